#!/bin/sh
# rootfs: debian
# One guest of the Ansible fleet run (tests/qemu/fleet-ansible.sh; not in scenarios/, so run.sh
# never boots it alone). Runs after the guest's systemd is up with sshd and rtagent.service;
# waits while the controller's ansible-playbook manages this host over SSH, until the driver
# writes /run/rtagent-fleet-done (or 15 minutes pass); then checks what the role left here.
# With /rtagent/fleet-install saying `deb` (fleet-ansible.sh --deb) the guest must start
# without rtagent and end with Debian's package installed by the role.
. /rtagent/lib.sh
INSTALL=$(cat /rtagent/fleet-install 2>/dev/null || echo cmake)
fact hostname "$(hostname)"
fact install "$INSTALL"
if [ "$INSTALL" = deb ]; then
  # Before the playbook: nothing of rtagent here, so what is there at the end the role put there.
  if dpkg-query -W rtagent > /dev/null 2>&1 || [ -e /usr/bin/rtagent ] || [ -e /usr/local/bin/rtagent ]; then
    fail "no rtagent before the playbook" "$(dpkg-query -W -f='${Status} ' rtagent 2>&1; ls /usr/bin/rtagent /usr/local/bin/rtagent 2>&1 | tr '\n' ' ')"
  else
    pass "no rtagent before the playbook (no package, no binary)"
  fi
fi
fact sshd "$(systemctl is-active ssh.service)"
fact address "$(ip -4 -o addr show scope global 2>/dev/null | awk '{print $2, $4}' | tr '\n' ' ')"
echo "FLEET-NODE-READY $(hostname)"
i=0
while [ ! -e /run/rtagent-fleet-done ] && [ $i -lt 900 ]; do sleep 1; i=$((i + 1)); done
if [ -e /run/rtagent-fleet-done ]; then pass "the controller finished ($i s after the guest was up)"; else fail "controller" "no /run/rtagent-fleet-done after 900 s"; fi
fact controller_said "$(cat /run/rtagent-fleet-done 2>/dev/null)"
expect_grep "the role placed the fleet profile" '^name: fleet-example' /etc/rtagent/profile.yaml
expect_eq "rtagent.service enabled by the role" "$(systemctl is-enabled rtagent.service)" enabled
expect_eq "rtagent.service running" "$(systemctl is-active rtagent.service)" active
if [ "$INSTALL" = deb ]; then
  expect_eq "the role installed the rtagent package (dpkg)" "$(dpkg-query -W -f='${Status}' rtagent 2>&1)" "install ok installed"
  fact package "$(dpkg-query -W -f='${Package} ${Version} ${Architecture}' rtagent 2>&1)"
  if [ -x /usr/libexec/rtagent/rtagent-sampler ]; then pass "the package's sampler is at /usr/libexec/rtagent/rtagent-sampler"
  else fail "sampler" "no executable /usr/libexec/rtagent/rtagent-sampler"; fi
  expect_eq "rtagent.service runs the package's binary" \
    "$(systemctl show -p ExecStart --value rtagent.service | sed -n 's/.*path=\([^ ;]*\).*/\1/p')" /usr/bin/rtagent
fi
if [ -s /var/lib/rtagent/verify.json ]; then pass "verify --json written on the host"; else fail "verify.json" "/var/lib/rtagent/verify.json missing or empty"; fi
finish

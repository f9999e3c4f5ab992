#!/bin/sh
# rootfs: debian
# One guest of the Ansible fleet run (tests/qemu/fleet-ansible.sh; not in scenarios/, so run.sh
# never boots it alone). Runs after the guest's systemd is up with sshd and rtagent.service;
# waits while the controller's ansible-playbook manages this host over SSH, until the driver
# writes /run/rtagent-fleet-done (or 15 minutes pass); then checks what the role left here.
. /rtagent/lib.sh
fact hostname "$(hostname)"
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
if [ -s /var/lib/rtagent/verify.json ]; then pass "verify --json written on the host"; else fail "verify.json" "/var/lib/rtagent/verify.json missing or empty"; fi
finish

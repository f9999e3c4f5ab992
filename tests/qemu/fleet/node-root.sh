#!/bin/bash
# mkrootfs.sh's hook (-x) for one guest of the Ansible fleet run (tests/qemu/fleet-ansible.sh):
# makes the staged tree ROOT a host Ansible can manage over SSH.
#
#   FLEET_HOSTNAME=NAME FLEET_HOSTKEY=KEY FLEET_AUTHKEY=KEY.pub FLEET_KDIR=KERNEL_DIR [FLEET_INSTALL=deb] node-root.sh ROOT
#
# - /rtagent/fleet-install says how rtagent gets onto this guest, for fleet-node.sh: `cmake`
#   (on the disk already, cmake --install) or `deb` (FLEET_INSTALL=deb: the disk has none, the
#   role installs the package);
# - /etc/hostname and /etc/hosts say NAME (sudo resolves it; the verify JSON names it);
# - the only SSH host key is KEY (made per run by the driver, which writes known_hosts from its
#   .pub): the keys openssh-server's postinst made in the base tarball are removed, so no two
#   runs or guests share one;
# - root's authorized_keys is KEY.pub of the driver's client key (PermitRootLogin stays
#   prohibit-password: keys only);
# - systemd-networkd gives the virtio NIC QEMU's user-network address (10.0.2.15/24, gateway
#   10.0.2.2), no DHCP wait; QEMU forwards 127.0.0.1:PORT on the build machine to port 22;
# - virtio_net and its dependencies from the booted kernel's package, with depmod's index, so
#   the guest's udev loads the driver (the initramfs loads only the disk's modules).
set -euo pipefail
R=${1:?usage: node-root.sh ROOT}
: "${FLEET_HOSTNAME:?}" "${FLEET_HOSTKEY:?}" "${FLEET_AUTHKEY:?}" "${FLEET_KDIR:?}"

echo "$FLEET_HOSTNAME" > "$R/etc/hostname"
echo "${FLEET_INSTALL:-cmake}" > "$R/rtagent/fleet-install"
printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n' "$FLEET_HOSTNAME" > "$R/etc/hosts"

rm -f "$R"/etc/ssh/ssh_host_*
install -m 600 "$FLEET_HOSTKEY" "$R/etc/ssh/ssh_host_ed25519_key"
install -m 644 "$FLEET_HOSTKEY.pub" "$R/etc/ssh/ssh_host_ed25519_key.pub"
mkdir -p "$R/etc/ssh/sshd_config.d"
printf 'HostKey /etc/ssh/ssh_host_ed25519_key\nPermitRootLogin prohibit-password\nUseDNS no\n' \
  > "$R/etc/ssh/sshd_config.d/rtagent-fleet.conf"
install -d -m 700 "$R/root/.ssh"
install -m 600 "$FLEET_AUTHKEY" "$R/root/.ssh/authorized_keys"

mkdir -p "$R/etc/systemd/network"
printf '[Match]\nName=en* eth*\n\n[Network]\nAddress=10.0.2.15/24\nGateway=10.0.2.2\nDNS=10.0.2.3\n' \
  > "$R/etc/systemd/network/20-fleet.network"
systemctl --root="$R" enable ssh.service systemd-networkd.service > /dev/null 2>&1
systemctl --root="$R" mask systemd-networkd-wait-online.service > /dev/null 2>&1

MODROOT=$(ls -d "$FLEET_KDIR"/lib/modules/*/ | head -1)
KREL=$(basename "${MODROOT%/}")
for m in failover net_failover virtio_net; do
  f=$(find "$MODROOT" -name "$m.ko*" | head -1)
  [ -n "$f" ] || { echo "node-root: no $m module in $MODROOT" >&2; exit 1; }
  rel=${f#"$MODROOT"}
  mkdir -p "$R/lib/modules/$KREL/$(dirname "$rel")"
  cp "$f" "$R/lib/modules/$KREL/$rel"
done
for f in modules.order modules.builtin modules.builtin.modinfo; do
  [ -f "$MODROOT/$f" ] && cp "$MODROOT/$f" "$R/lib/modules/$KREL/"
done
# The guest's own depmod (kmod is in the base; the build machine may have none), run in the
# tree: nothing is mounted, depmod reads and writes only lib/modules/KREL.
chroot "$R" /sbin/depmod "$KREL"

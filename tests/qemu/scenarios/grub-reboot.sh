#!/bin/sh
# kernel: rt
# bootdisk: grub
# boots: 3
# Isolation through GRUB and a reboot (issue 12): a disk booted by SeaBIOS and GRUB
# (mkbootdisk.sh: Debian's PREEMPT_RT kernel installed in the guest with dpkg, grub-install,
# update-grub), run by guest/run-phases.sh at each of its three boots (reboot-lib.sh):
# `rtagent apply` with `cores.bootloader.type: grub` writes /etc/default/grub.d/90-rtagent.cfg
# and runs update-grub, the guest reboots into the profile's arguments, `rtagent revert`
# removes the drop-in and runs update-grub again, the guest reboots into the user's line.
. /rtagent/lib.sh
. /rtagent/reboot-lib.sh

DROPIN=/etc/default/grub.d/90-rtagent.cfg
CFG=/boot/grub/grub.cfg

loader_files() { printf '%s\n' /etc/default/grub $DROPIN $CFG; }
# The arguments of the first menu entry's `linux` line (GRUB_DEFAULT=0), after the kernel's path.
default_line() { awk '$1 == "linux" { for (i = 3; i <= NF; i++) printf "%s%s", $i, (i < NF ? " " : "\n"); exit }' $CFG; }
# The user's own managed arguments in /etc/default/grub, made effective by the user's update-grub.
loader_prepare() {
  sed -i "s/^GRUB_CMDLINE_LINUX=\"\(.*\)\"/GRUB_CMDLINE_LINUX=\"\1 $USER_MANAGED\"/" /etc/default/grub
  fact etc_default_grub "$(grep '^GRUB_CMDLINE_LINUX' /etc/default/grub | tr '\n' ' ')"
  update-grub > "$OUT/update-grub.user" 2>&1 || fail "the user's update-grub" "$(tail -3 "$OUT/update-grub.user" | tr '\n' '|')"
}
loader_after_apply() {
  if [ -f $DROPIN ]; then pass "apply wrote $DROPIN"; sed 's/^/  D| /' $DROPIN
  else fail "apply wrote $DROPIN" "absent"; fi
  # Only update-grub writes grub.cfg: the profile's arguments in it mean apply ran it.
  if [ "$(count_arg "$(default_line)" nohz_full=2-3)" != 0 ]; then
    pass "apply ran update-grub: $CFG carries the profile's arguments"
  else
    fail "apply ran update-grub" "$CFG does not carry the profile's arguments"
    info "the harness runs update-grub itself to go on"
    update-grub > "$OUT/update-grub.harness" 2>&1
  fi
}
loader_after_revert() {
  if [ -e $DROPIN ]; then fail "revert removed $DROPIN" "still there"; else pass "revert removed $DROPIN"; fi
  if [ "$(count_arg "$(default_line)" nohz_full=2-3)" = 0 ]; then
    pass "revert ran update-grub: $CFG no longer carries the profile's arguments"
  else
    fail "revert ran update-grub" "$CFG still carries the profile's arguments"
  fi
}

reboot_loop grub

#!/bin/sh
# kernel: rt
# bootdisk: extlinux
# boots: 3
# Isolation through syslinux's extlinux and a reboot (issue 12): a disk booted by SeaBIOS,
# syslinux's MBR and extlinux (mkbootdisk.sh: Debian's PREEMPT_RT kernel installed in the guest
# with dpkg, `extlinux --install /boot/extlinux`, an extlinux.conf with a default entry and a
# rescue entry), run by guest/run-phases.sh at each of its three boots (reboot-lib.sh):
# `rtagent apply` with `cores.bootloader.type: extlinux` edits the default entry's APPEND line
# (extlinux reads its file at boot: there is no update command), the guest reboots into the
# profile's arguments, `rtagent revert` puts the file back, the guest reboots into the user's line.
. /rtagent/lib.sh
. /rtagent/reboot-lib.sh

CONF=/boot/extlinux/extlinux.conf

loader_files() { echo $CONF; }
# append_of LABEL: the APPEND arguments of that entry; default_line: of the DEFAULT entry.
append_of() {
  awk -v want="$1" '
    { k = tolower($1) }
    k == "label" { inside = ($2 == want) }
    inside && k == "append" { sub(/^[ \t]*[Aa][Pp][Pp][Ee][Nn][Dd][ \t]+/, ""); print; exit }' $CONF
}
default_line() { append_of "$(awk 'tolower($1) == "default" { print $2; exit }' $CONF)"; }
# The user's own managed arguments on the default entry's APPEND line.
loader_prepare() {
  label=$(awk 'tolower($1) == "default" { print $2; exit }' $CONF)
  sed -i "/^LABEL $label\$/,/^LABEL /s/^\(  APPEND .* no_timer_check\) /\1 $USER_MANAGED /" $CONF
  append_of rescue > "$RTAGENT_STATE/rescue.before"
  sed 's/^/  C| /' $CONF
}
loader_after_apply() {
  sed 's/^/  C| /' $CONF
  expect_eq "after apply: the rescue entry is untouched" "$(append_of rescue)" "$(cat "$RTAGENT_STATE/rescue.before")"
}
loader_after_revert() { :; }

reboot_loop extlinux

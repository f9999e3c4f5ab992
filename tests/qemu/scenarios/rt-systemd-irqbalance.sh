#!/bin/sh
# kernel: rt
# rootfs: debian
# base: irqbalance
# profile: tests/qemu/profiles/hold-irqbalance.yaml
# rtagent.service under a real systemd and the unit's own sandbox (ProtectSystem=strict and the
# rest, as shipped), beside Debian's irqbalance, whose /etc/default/irqbalance bans nothing yet:
# what the docs' way to a held board leaves behind (`commission --revert-after` takes the ban
# back out, then `systemctl enable --now rtagent.service`). Until 2026-12-06 the unit kept
# /etc/default read-only: hold's write of the ban was refused (EROFS), at start a rolled-back
# start and a restart every 5 s, and systemd.cpu_affinity's drop-in in /etc/systemd the same.
#  1. irqbalance starts after rtagent.service (Before=basic.target): a tick of hold sees it and
#     writes the ban into /etc/default/irqbalance, and irqbalance is restarted with it.
#  2. The ban taken back out (what a revert does) and rtagent.service restarted: this start plans
#     the ban itself and must write it, not roll back.
#  3. systemd's drop-in is never written by hold: the journal and STATUS= say it waits for
#     `rtagent apply`; the service was never restarted by systemd.
. /rtagent/lib.sh

CFG=/etc/default/irqbalance
DROPIN=/etc/systemd/system.conf.d/50-rtagent.conf

ib_pid() { systemctl show -p MainPID --value irqbalance.service; }
ib_env() { tr '\0' '\n' < /proc/$1/environ 2>/dev/null | grep '^IRQBALANCE_BANNED' | tr '\n' ' ' | sed 's/ *$//'; }
banned() { sed -n 's/^IRQBALANCE_BANNED_CPULIST=//p' $CFG 2>/dev/null | tr -d '"'; }
# wait_for SECONDS COMMAND...: until COMMAND succeeds, every 0.2 s
wait_for() {
  n=$(( $1 * 5 )); shift
  while ! "$@" && [ $n -gt 0 ]; do sleep 0.2; n=$((n - 1)); done
}
is_banned() { [ "$(banned)" = 2-3 ]; }
ib_banned() { [ "$(ib_env "$(ib_pid)")" = "IRQBALANCE_BANNED_CPULIST=2-3" ]; }
journal() { journalctl -u rtagent.service --no-pager -o cat 2>/dev/null; }

fact systemd "$(systemctl --version | head -1)"
fact irqbalance_version "$(dpkg-query -W -f '${Version}' irqbalance 2>/dev/null)"
fact unit_read_write "$(systemctl show -p ReadWritePaths --value rtagent.service)"
fact unit_read_only "$(systemctl show -p ReadOnlyPaths --value rtagent.service)"
if [ "$(systemctl is-active irqbalance.service)" != active ]; then
  info "irqbalance.service not active at boot ($(systemctl is-enabled irqbalance.service 2>&1)); starting it"
  systemctl start irqbalance.service
fi
expect_eq "irqbalance.service runs (Debian's unit)" "$(systemctl is-active irqbalance.service)" active

# 1. The ban, written by a tick once irqbalance runs.
expect_eq "rtagent.service is active" "$(systemctl show -p ActiveState --value rtagent.service)/$(systemctl show -p SubState --value rtagent.service)" "active/running"
wait_for 30 is_banned
expect_eq "$CFG bans the isolated CPUs (written under the unit's sandbox)" "$(banned)" 2-3
wait_for 20 ib_banned
expect_eq "irqbalance was restarted with the ban in its environment" "$(ib_env "$(ib_pid)")" "IRQBALANCE_BANNED_CPULIST=2-3"
if journal | grep -q "Read-only file system"; then
  fail "no write of the daemon refused by the sandbox" "$(journal | grep -m1 'Read-only file system')"
else
  pass "no write of the daemon refused by the sandbox"
fi

# 2. The ban taken out, as a revert does, and the service restarted: its start writes the ban.
sed -i '/^IRQBALANCE_BANNED_CPULIST=/d' $CFG
restarts0=$(systemctl show -p NRestarts --value rtagent.service)
systemctl restart rtagent.service
rc=$?
expect_eq "systemctl restart rtagent.service succeeds (the start is not rolled back)" "$rc" 0
expect_eq "rtagent.service is active after the restart" "$(systemctl show -p ActiveState --value rtagent.service)" active
expect_eq "the restarted start wrote the ban again" "$(banned)" 2-3
sleep 6
expect_eq "systemd restarted nothing after a failure (NRestarts)" "$(systemctl show -p NRestarts --value rtagent.service)" "$restarts0"

# 3. systemd's drop-in is apply's: not written, said to wait.
exists_fact dropin $DROPIN
if [ -e $DROPIN ]; then fail "hold never writes systemd's drop-in" "$DROPIN exists"; else pass "hold never writes systemd's drop-in"; fi
status_text=$(systemctl show -p StatusText --value rtagent.service)
fact status_text "$status_text"
case $status_text in
  *"1 boot-time file not written (rtagent apply writes it)"*) pass "STATUS= says the drop-in waits for rtagent apply" ;;
  *) fail "STATUS= says the drop-in waits for rtagent apply" "$status_text" ;;
esac
if journal | grep -q "$DROPIN does not say what the profile asks yet"; then pass "the journal names the drop-in as waiting"
else fail "the journal names the drop-in as waiting" "$(journal | grep -m1 -i 'drop-in\|boot-time')"; fi
journal | tail -12 | sed 's/^/  J| /'
finish

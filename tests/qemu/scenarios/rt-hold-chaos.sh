#!/bin/sh
# kernel: rt
# monitor: qmp
# qemu: -device pcie-root-port,id=hp,bus=pcie.0,chassis=1
# modules: virtio_net
# `rtagent hold` under chaos (issue 17), on rt-hold's base (docs/service.md, "Under chaos"):
#  1. a managed thread (`sleep 1000`, FIFO 55 by its command line) killed and started again:
#     the new thread gets FIFO 55 within seconds, with a drift line;
#  2. the profile file deleted, SIGHUP: the reload fails naming the file, hold keeps the last
#     good state (still holding, IRQ 8 on 0-1, the note held); then a broken profile in its
#     place, SIGHUP: the same, naming the error; drift is still put back with the last good
#     profile; the good file back, SIGHUP: reload ok;
#  3. 100 SIGHUPs within about a second: hold is still holding, its last reload is ok, the note
#     and IRQ 8 as held, no fd more than before, and drift still comes back;
#  4. /run/rtagent (a 256 KiB tmpfs here) full: hold keeps holding; a value already journaled
#     (IRQ 8) is still put back; the state file cannot be rewritten (logged with ENOSPC; status
#     shows the last one written); a new thread's rank needs a journal entry, so it waits,
#     logged, and is set on the first tick after space comes back.
#  5. a network card hot-plugged through QEMU's monitor (host_monitor: a virtio-net-pci into the
#     PCIe root port `hp` given at boot; virtio_net loaded before hold starts): its MSI-X IRQs
#     appear in /proc/interrupts, the driver spreading its queue IRQs over all four CPUs
#     (affinity hint 0-3); hold puts every one on the housekeeping CPUs (`irqs.default`), with a
#     drift line per IRQ it moves. Then the card unplugged (device_del): its IRQs vanish, hold
#     keeps holding with no failure logged, and drift is still put back.
# Then SIGTERM: exit 0, on_stop revert puts IRQ 8 and the note back, and skips the journaled
# IRQs of the card that went (nothing left to put back), with no error.
. /rtagent/lib.sh

P=/tmp/hold.yaml
cat > "$P.good" <<'YAML'
version: 1
name: qemu-hold-chaos
cores:
  housekeeping: 0-1
  isolated: 2-3
  runtime:
    workqueue_cpumask: keep
    default_smp_affinity: keep
irqs:
  default: housekeeping
  rules:
    rtc:
      irq: [8]
      cpus: 0-1
ranks:
  rules:
    sleeper: {cmdline: "sleep 1000", policy: fifo, priority: 55}
power:
  cpu_dma_latency_us: 0
service:
  on_stop: revert
  watch_interval: 200ms
  cpus: housekeeping
YAML
cp "$P.good" "$P"

note() { od -An -td4 -N4 /dev/cpu_dma_latency 2>/dev/null | tr -d ' \n'; }
# wait_for SECONDS COMMAND...: polls every 0.2 s until COMMAND succeeds.
wait_for() {
  n=$(($1 * 5)); shift
  i=0
  while [ $i -lt $n ]; do "$@" && return 0; sleep 0.2; i=$((i + 1)); done
  return 1
}
count() { grep -c "$1" "$OUT/hold.err" 2>/dev/null || true; }
holding() { grep -q '"state": "holding"' /run/rtagent/state.json 2>/dev/null && kill -0 $pid 2>/dev/null; }
sleeper_fifo55() { [ "$(stat_sched "$1" 2>/dev/null)" = 55/1 ]; }
irq8_back() { [ "$(cat /proc/irq/8/smp_affinity_list)" = 0-1 ]; }
more_than() { [ "$(count "$1")" -gt "$2" ]; }
reload_field() { sed -n 's/.*"last_reload": "\(.*\)",*$/\1/p' /run/rtagent/state.json | head -1; }
# hold's descriptors at rest: the fewest of fifteen looks 0.15 s apart. A tick or a reload holds a
# file open for a moment (one look counted 6 before the storm and 5 after, another 5 and 6);
# a leaked descriptor stays, so it is in every look.
fds_at_rest() {
  least=
  for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
    n=$(ls /proc/$pid/fd 2>/dev/null | wc -l)
    if [ -z "$least" ] || [ "$n" -lt "$least" ]; then least=$n; fi
    usleep 150000
  done
  echo "$least"
}
drift_irq8() {
  echo 0-3 > /proc/irq/8/smp_affinity_list
  if wait_for 30 irq8_back; then pass "$1: IRQ 8 widened behind hold's back comes back to 0-1"
  else fail "$1: IRQ 8 comes back to 0-1" "reads $(cat /proc/irq/8/smp_affinity_list)"; fi
}

# 5 needs the driver before the card comes (no udev here to load it).
load_modules virtio_pci virtio_net

# 4 needs /run/rtagent small before hold starts (its journal and state file live there).
mkdir -p /run/rtagent
mount -t tmpfs -o size=256k,mode=0755 tmpfs /run/rtagent || fail "a 256k tmpfs on /run/rtagent" "mount failed"
echo 0-3 > /proc/irq/8/smp_affinity_list 2>/dev/null
irq_before=$(cat /proc/irq/8/smp_affinity_list)
note_before=$(note)
sleep 1000 & s1=$!

rtagent hold "$P" > "$OUT/hold.out" 2> "$OUT/hold.err" &
pid=$!
if wait_for 120 holding; then pass "hold reached holding (pid $pid)"
else
  fail "hold reached holding" "$(head -5 "$OUT/hold.err" | tr '\n' '|')"
  kill -TERM $pid $s1 2>/dev/null
  finish
fi
expect_eq "the first sleeper runs FIFO 55" "$(stat_sched $s1)" 55/1

# 1. The managed thread killed and started again.
kill $s1; wait $s1 2>/dev/null
drifts=$(count "drift: ")
sleep 1000 & s2=$!
t0=$(cut -d' ' -f1 /proc/uptime)
if wait_for 30 sleeper_fifo55 $s2; then pass "1: a re-created sleeper (pid $s2) is set to FIFO 55 by hold"
else fail "1: the re-created sleeper gets FIFO 55" "reads $(stat_sched $s2)"; fi
fact recreated_thread_set_after_s "$(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.2f", b - a }')"
wait_for 10 more_than "drift: " "$drifts"
expect_grep "1: a drift line names the new thread" "drift: .*sleep.*re-asserted" "$OUT/hold.err"

# 2. The profile deleted, then broken, then good again.
failed=$(count "reload failed, keeping the state of")
mv "$P" "$P.away"
kill -HUP $pid
if wait_for 30 more_than "reload failed, keeping the state of" "$failed"; then
  pass "2: SIGHUP with the profile deleted logs that the reload failed and the state is kept"
else fail "2: reload with the profile deleted is logged" "$(tail -3 "$OUT/hold.err" | tr '\n' '|')"; fi
expect_grep "2: the failed reload names the missing file" "reload failed.*$P" "$OUT/hold.err"
wait_for 10 holding
expect_eq "2: still holding after the deleted profile" "$(holding && echo yes)" yes
expect_eq "2: the note still held" "$(note)" 0
expect_file "2: IRQ 8 still on 0-1" /proc/irq/8/smp_affinity_list 0-1
case "$(reload_field)" in failed:*) pass "2: the state file says the last reload failed" ;;
  *) fail "2: the state file's last_reload" "$(reload_field)" ;; esac

failed=$(count "reload failed, keeping the state of")
printf 'version: 1\nname: broken\ncores:\n  housekeeping: [0-1\n' > "$P"
kill -HUP $pid
if wait_for 30 more_than "reload failed, keeping the state of" "$failed"; then
  pass "2: SIGHUP with a broken profile logs that the reload failed and the state is kept"
else fail "2: reload of a broken profile is logged" "$(tail -3 "$OUT/hold.err" | tr '\n' '|')"; fi
info "$(grep 'reload failed' "$OUT/hold.err" | tail -1)"
expect_eq "2: still holding after the broken profile" "$(holding && echo yes)" yes
expect_eq "2: the note still held after the broken profile" "$(note)" 0
drift_irq8 "2 (last good profile kept)"
expect_eq "2: the sleeper keeps FIFO 55" "$(stat_sched $s2)" 55/1

oks=$(count "reload: .* applied")
cp "$P.good" "$P"
kill -HUP $pid
if wait_for 30 more_than "reload: .* applied" "$oks"; then pass "2: the good profile back, SIGHUP reloads it"
else fail "2: the good profile reloads" "$(tail -3 "$OUT/hold.err" | tr '\n' '|')"; fi
wait_for 10 sh -c '[ "$(sed -n "s/.*\"last_reload\": \"\\(.*\\)\",*$/\\1/p" /run/rtagent/state.json | head -1)" = ok ]'
expect_eq "2: the state file says the last reload is ok" "$(reload_field)" ok

# 3. 100 SIGHUPs in about a second.
fds_before=$(fds_at_rest)
fd_list_before=$(ls -l /proc/$pid/fd 2>/dev/null | sed -n 's/.* \([0-9]*\) -> /\1 -> /p' | tr '\n' ' ')
reloads_before=$(count "reload: reading")
t0=$(cut -d' ' -f1 /proc/uptime)
# Ten bursts of ten (kill is the shell's own: no fork), 0.1 s apart: 100 signals in about a
# second under TCG (a usleep between single signals took 3.6 s, the fork being the cost).
i=0
while [ $i -lt 100 ]; do
  kill -HUP $pid; kill -HUP $pid; kill -HUP $pid; kill -HUP $pid; kill -HUP $pid
  kill -HUP $pid; kill -HUP $pid; kill -HUP $pid; kill -HUP $pid; kill -HUP $pid
  i=$((i + 10))
  [ $i -lt 100 ] && usleep 100000
done
t1=$(cut -d' ' -f1 /proc/uptime)
storm=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
fact sighup_storm_seconds "$storm"
if awk -v s="$storm" 'BEGIN { exit !(s <= 1.5) }'; then pass "3: 100 SIGHUPs sent within 1.5 s ($storm s)"
else fail "3: 100 SIGHUPs within 1.5 s" "took $storm s"; fi
sleep 3
reloads=$(( $(count "reload: reading") - reloads_before ))
fact sighup_storm_reloads "$reloads of 100 signals (pending SIGHUPs merge)"
expect_eq "3: hold is alive after 100 SIGHUPs" "$(kill -0 $pid 2>/dev/null && echo alive)" alive
wait_for 20 holding
expect_eq "3: still holding after the storm" "$(holding && echo yes)" yes
wait_for 10 sh -c '[ "$(sed -n "s/.*\"last_reload\": \"\\(.*\\)\",*$/\\1/p" /run/rtagent/state.json | head -1)" = ok ]'
expect_eq "3: the last reload is ok" "$(reload_field)" ok
if [ "$reloads" -ge 1 ] && [ "$reloads" -le 100 ]; then pass "3: between 1 and 100 reloads ($reloads)"
else fail "3: reloads after 100 SIGHUPs" "$reloads"; fi
# Not more at rest than before (fds_at_rest: a tick's file open for a moment is not a leak).
fds_after=$(fds_at_rest)
if [ "$fds_after" -le "$fds_before" ]; then pass "3: no fd leaked by the reloads ($fds_before before, $fds_after after, at rest)"
else
  fd_list_after=$(ls -l /proc/$pid/fd 2>/dev/null | sed -n 's/.* \([0-9]*\) -> /\1 -> /p' | tr '\n' ' ')
  fail "3: no fd leaked by the reloads" "$fds_before before ($fd_list_before), $fds_after after ($fd_list_after), the fewest of fifteen looks each"
fi
expect_eq "3: the note still held" "$(note)" 0
expect_eq "3: the sleeper keeps FIFO 55" "$(stat_sched $s2)" 55/1
drift_irq8 "3 (after the storm)"

# 4. /run/rtagent full.
dd if=/dev/zero of=/run/rtagent/filler bs=4k 2>/dev/null
info "/run/rtagent: $(df -k /run/rtagent | tail -1)"
state_before=$(md5sum < /run/rtagent/state.json)
lines_before=$(grep -c . "$OUT/hold.err")
nospace=$(count "No space left on device")
drift_irq8 "4 (/run/rtagent full: IRQ 8 is journaled already)"
if wait_for 30 more_than "No space left on device" "$nospace"; then
  pass "4: the failed state file write is logged with ENOSPC"
else fail "4: ENOSPC is logged" "$(tail -3 "$OUT/hold.err" | tr '\n' '|')"; fi
info "$(grep 'No space left' "$OUT/hold.err" | head -2 | tr '\n' '|')"
expect_eq "4: the last state file is left whole, as written (md5sum)" "$(md5sum < /run/rtagent/state.json)" "$state_before"
ls /run/rtagent | grep -q '\.tmp\.' && fail "4: no temporary state file left" "$(ls /run/rtagent | tr '\n' ' ')" \
  || pass "4: no temporary file left in the full /run/rtagent"
# status answers from the last state file hold wrote (the one before /run filled): its exit is
# that file's last verify, 1 when it says FAIL (a verify runs at start and at each reload, so
# which it is depends on what the storm's last reload found), 0 otherwise.
last_verify=$(sed -n '/"last_verify"/,/}/s/.*"result": "\([A-Z]*\)".*/\1/p' /run/rtagent/state.json | head -1)
info "the state file's last verify: $last_verify: $(sed -n '/"last_verify"/,/}/s/.*"summary": "\(.*\)".*/\1/p' /run/rtagent/state.json | head -1)"
info "hold's verify lines: $(grep 'verify: ' "$OUT/hold.err" | tail -3 | tr '\n' '|')"
want_status=0
[ "$last_verify" = FAIL ] && want_status=1
rt_expect status-full $want_status status
expect_grep "4: status still says running" "running \\(pid $pid\\)" "$OUT/status-full.out"
kill $s2; wait $s2 2>/dev/null
sleep 1000 & s3=$!
s3_seen() { grep -q "drift: thread sleep (pid $s3).*failed" "$OUT/hold.err" || sleeper_fifo55 $s3; }
wait_for 30 s3_seen
if sleeper_fifo55 $s3; then fail "4: a new sleeper waits while its journal entry cannot be written" "it was set to FIFO 55 with /run/rtagent full"
else pass "4: a new sleeper waits while its journal entry cannot be written ($(stat_sched $s3))"; fi
expect_grep "4: its drift is logged as failed with ENOSPC" "drift: thread sleep \(pid $s3\).*failed.*No space left" "$OUT/hold.err"
info "4: the new sleeper's write while full: $(grep "pid $s3" "$OUT/hold.err" | tail -1)"
sleep 2
fact hold_log_lines_while_full "$(( $(grep -c . "$OUT/hold.err") - lines_before ))"
rm -f /run/rtagent/filler
if wait_for 30 sleeper_fifo55 $s3; then pass "4: space back, the new sleeper is set to FIFO 55"
else fail "4: the new sleeper gets FIFO 55 once space is back" "$(stat_sched $s3)"; fi
wait_for 30 sh -c '[ "$(md5sum < /run/rtagent/state.json)" != "$0" ]' "$state_before" \
  && pass "4: space back, the state file is written again" || fail "4: the state file is rewritten" "unchanged"
expect_eq "4: still holding" "$(holding && echo yes)" yes

# 5. A network card hot-plugged, then unplugged.
card_irqs() { sed -n 's/^ *\([0-9]*\):.* virtio[0-9]*-[a-z]*[.0-9]*$/\1/p' /proc/interrupts; }
card_up() { grep -Eq ' virtio[0-9]+-input' /proc/interrupts && grep -Eq ' virtio[0-9]+-output' /proc/interrupts; }
card_gone() { [ -z "$(card_irqs)" ]; }
card_on_housekeeping() {
  for n in $(card_irqs); do [ "$(cat /proc/irq/$n/smp_affinity_list 2>/dev/null)" = 0-1 ] || return 1; done
}
drifts=$(count "drift: IRQ [0-9]* (virtio")
t0=$(cut -d' ' -f1 /proc/uptime) t5=$(cut -d' ' -f1 /proc/uptime)
host_monitor device_add virtio-net-pci,id=hp0,bus=hp
if wait_for 60 card_up; then
  irqs=$(card_irqs | tr '\n' ' ')
  pass "5: the hot-plugged card's IRQs appear (${irqs% })"
  fact hotplug_irqs_seen_after_s "$(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.2f", b - a }')"
  fact hotplug_irq_affinity_first_read_by_the_scenario "$(for n in $irqs; do printf '%s:%s ' $n "$(cat /proc/irq/$n/smp_affinity_list)"; done)"
  t0=$(cut -d' ' -f1 /proc/uptime)
  if wait_for 30 card_on_housekeeping; then pass "5: hold puts every IRQ of the new card on 0-1"
  else fail "5: every IRQ of the new card on 0-1" "$(for n in $(card_irqs); do printf '%s:%s ' $n "$(cat /proc/irq/$n/smp_affinity_list)"; done)"; fi
  fact hotplug_irqs_placed_after_s "$(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.2f", b - a }')"
  wait_for 10 more_than "drift: IRQ [0-9]* (virtio" "$drifts"
  expect_grep "5: a drift line names a new IRQ of the card, moved to 0-1" "drift: IRQ [0-9]+ \(virtio[0-9]+-[a-z]+.*-> 0-1 \(re-asserted\)" "$OUT/hold.err"
  info "$(grep 'drift: IRQ [0-9]* (virtio' "$OUT/hold.err" | tr '\n' '|')"
  expect_eq "5: still holding with the new card" "$(holding && echo yes)" yes

  lines_before=$(grep -c . "$OUT/hold.err")
  host_monitor device_del hp0
  if wait_for 60 card_gone; then pass "5: the card unplugged, its IRQs are gone from /proc/interrupts"
  else fail "5: the unplugged card's IRQs go" "still $(card_irqs | tr '\n' ' ')"; fi
  drift_irq8 "5 (after the unplug: the watch goes on)"
  expect_eq "5: still holding after the unplug" "$(holding && echo yes)" yes
  after=$(sed -n "$((lines_before + 1)),\$p" "$OUT/hold.err")
  fact hold_log_lines_after_unplug "$(printf '%s' "$after" | grep -c .)"
  if printf '%s\n' "$after" | grep -Eq 'failed|error|cannot'; then
    fail "5: nothing fails after the unplug" "$(printf '%s\n' "$after" | grep -E 'failed|error|cannot' | head -3 | tr '\n' '|')"
  else pass "5: nothing fails after the unplug (no error, no failed drift)"; fi
else
  fail "5: the hot-plugged card's IRQs appear" "no virtio line in /proc/interrupts within 60 s (the host's HOST-MONITOR answer is above)"
fi
fact hotplug_step_s "$(awk -v a="$t5" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }')"

kill -TERM $pid
wait $pid
expect_eq "hold exits 0 on SIGTERM" "$?" 0
expect_grep "on_stop revert: hold says the state is reverted" "stopped: .*state reverted" "$OUT/hold.err"
if grep -q ' error: revert: ' "$OUT/hold.err"; then fail "on_stop revert: no value left behind" "$(grep ' error: revert: ' "$OUT/hold.err" | head -3 | tr '\n' '|')"
else pass "on_stop revert: no value left behind (the gone card's IRQs skipped)"; fi
expect_file "on_stop revert: IRQ 8 back" /proc/irq/8/smp_affinity_list "$irq_before"
expect_eq "PM QoS note given back" "$(note)" "$note_before"
kill $s3 2>/dev/null
info "$(grep -c . "$OUT/hold.err") log lines; the last: $(tail -3 "$OUT/hold.err" | tr '\n' '|')"
finish

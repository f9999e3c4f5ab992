#!/bin/sh
# kernel: rt
# rootfs: debian
# base: tuned
# profile: none
# isolation: none
# modules: veth
# timeout: 600
# opt-in: RTAGENT_QEMU_TUNED
# TuneD before/after against rtagent (issue 20; docs/migrating-from-tuned.md, "Measured in a
# guest"). Debian 12's TuneD 2.20 (debian-base.sh --variant tuned; its unit disabled in the image)
# and Debian's irqbalance, on the RT kernel with 4 CPUs booted without isolation, isolated 2-3:
#  1. snapshot "before" twice, 3 s apart (what differs between the two is noise, left out);
#  2. `tuned-adm profile realtime` with isolated_cores=2-3: snapshot "tuned";
#  3. `tuned-adm off`: snapshot "off" (what TuneD did not restore is named, a FACT); what it left
#     is then written back to its "before" value (sysctls, workqueue masks, ignore_ce), so that
#     rtagent starts where TuneD did and each of its changes is measured: snapshot "start";
#  4. `rtagent apply` of a profile that includes profiles/base/tuned-realtime.yaml with the same
#     CPUs (its plan without an error finding): snapshot "rtagent"; every key TuneD changed must
#     read what TuneD made it, unless the key is in DELIBERATE below (each with its reason in
#     docs/migrating-from-tuned.md); the boot arguments TuneD wrote to /etc/tuned/bootcmdline
#     must be on rtagent's planned command line, unless deliberate;
#  5. `rtagent revert`: snapshot "reverted" equals "start" (and "before", less what could not be
#     written back).
# A snapshot is one `key=value` line per tunable: every sysctl, workqueue masks, IRQ placement
# (housekeeping-only or not: irqbalance re-places IRQs every 10 s), NIC channels and RPS/XPS
# masks (a veth pair with 4 rx and 4 tx queues: user networking gives virtio-net one queue
# pair), huge pages, THP, machine-check polling, KSM, the PM QoS note, each thread's policy,
# priority and CPUs (by name), systemd's CPUAffinity, irqbalance's banned CPUs (by meaning,
# from the running process), and boot/config files by checksum.
. /rtagent/lib.sh

S=/tmp/snap
mkdir -p $S
ISO=2-3
# Keys TuneD changes that rtagent leaves on purpose (docs/migrating-from-tuned.md says why):
#   kernel.sched_rt_runtime_us  RT throttling kept as the safety net (Chapter 2)
#   cpus:*                      TuneD's [scheduler] moves every thread off the isolated CPUs;
#                               rtagent moves the threads its rules name (isolcpus=domain at boot)
#   pm_qos                      force_latency: TuneD's daemon holds the note; `rtagent hold` does,
#                               `apply` cannot (the note lives while a file stays open)
# (machinecheck:* is no longer one: cores.runtime.machinecheck_ignore_ce sets what TuneD's [sysfs] does)
DELIBERATE='^(sysctl:kernel\.sched_rt_runtime_us|cpus:.*|pm_qos)='
# and boot arguments: tsc=reliable (the TSC watchdog stays on), intel_pstate=disable (x86 board's call)
DELIBERATE_ARGS=' tsc=reliable intel_pstate=disable '
# sysctls that move by themselves (counters, random, the last pid)
VOLATILE='^sysctl:(fs\.(dentry-state|file-nr|inode-nr|inode-state|aio-nr|quota\.)|kernel\.(random\.|ns_last_pid|pty\.nr|tainted)|net\.netfilter\.nf_conntrack_count)'

# where LIST: "hk" when it names only housekeeping CPUs 0-1, else "iso:LIST"
where() { case $1 in 0|1|0-1|0,1) echo hk ;; *) echo "iso:$1" ;; esac; }
threads() {
  set --
  for t in /proc/[0-9]*/task/[0-9]*; do set -- "$@" "$t/status" "$t/stat"; done
  gawk 'FILENAME ~ /status$/ { if (FNR == 1) { n = ""; c = "" }
         if ($1 == "Name:") { n = $0; sub(/^Name:[ \t]*/, "", n) } else if ($1 == "Cpus_allowed_list:") c = $2; next }
       FNR == 1 && n != "" && n !~ /^kworker/ { s = $0; sub(/.*\) /, "", s); split(s, f, " ")
         print "sched:" n "=" f[39] "/" f[38]; print "cpus:" n "=" c; n = "" }' "$@" 2>/dev/null
}
snap() {
  {
    sysctl -a 2>/dev/null | sed 's/ = /=/; s/^/sysctl:/' | grep -Ev "$VOLATILE"
    for f in /sys/devices/virtual/workqueue/cpumask /sys/devices/virtual/workqueue/*/cpumask; do
      [ -r "$f" ] && echo "wq:${f#/sys/devices/virtual/workqueue/}=$(cat "$f")"
    done
    echo "irq:default=$(cat /proc/irq/default_smp_affinity)"
    for d in /proc/irq/[0-9]*; do [ -r $d/smp_affinity_list ] && echo "irq:${d##*/}=$(where "$(cat $d/smp_affinity_list)")"; done
    for n in /sys/class/net/*; do
      i=${n##*/}
      [ "$i" = lo ] && continue
      ethtool -l "$i" 2>/dev/null | gawk -v i="$i" '/^Current/ { c = 1; next } c && /:/ { gsub(/[ \t]+/, ""); sub(/:/, "="); print "net:" i ":channels:" $0 }'
      for q in $n/queues/rx-*; do [ -r $q/rps_cpus ] && echo "net:$i:${q##*/}:rps=$(cat $q/rps_cpus)"; done
      for q in $n/queues/tx-*; do [ -r $q/xps_cpus ] && echo "net:$i:${q##*/}:xps=$(cat $q/xps_cpus 2>/dev/null)"; done
    done
    for f in /sys/kernel/mm/hugepages/*/nr_hugepages /sys/devices/system/node/node*/hugepages/*/nr_hugepages; do
      [ -r "$f" ] && echo "hugepages:$(echo "$f" | cut -d/ -f4-)=$(cat "$f")"
    done
    for f in enabled defrag; do  # the Debian RT kernel has no THP
      [ -r /sys/kernel/mm/transparent_hugepage/$f ] && echo "thp:$f=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/$f)"
    done
    for f in /sys/devices/system/machinecheck/machinecheck*/ignore_ce; do [ -r "$f" ] && echo "machinecheck:$(echo "$f" | cut -d/ -f6)=$(cat "$f")"; done
    [ -r /sys/kernel/mm/ksm/run ] && echo "ksm:run=$(cat /sys/kernel/mm/ksm/run)"
    for f in /sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor /sys/devices/system/cpu/cpu[0-9]*/power/energy_perf_bias; do
      [ -r "$f" ] && echo "cpu:$(echo "$f" | cut -d/ -f6-)=$(cat "$f")"
    done
    echo "pm_qos=$(od -An -td4 -N4 /dev/cpu_dma_latency | tr -d ' ')"
    threads
    echo "systemd:CPUAffinity=$(systemctl show -p CPUAffinity --value)"
    ib=$(pgrep -x irqbalance | head -1)
    if [ -n "$ib" ]; then
      env=$(tr '\0' '\n' < /proc/$ib/environ)
      list=$(echo "$env" | sed -n 's/^IRQBALANCE_BANNED_CPULIST=//p')
      mask=$(echo "$env" | sed -n 's/^IRQBALANCE_BANNED_CPUS=//p')
      [ -z "$list" ] && [ -n "$mask" ] && list=$(mask_list "$mask")
      echo "irqbalance:banned=${list:-none}"
    else echo "irqbalance:banned=not-running"; fi
    for f in /etc/default/grub /etc/default/grub.d/* /boot/grub/grub.cfg /etc/systemd/system.conf.d/* /etc/sysctl.d/* /etc/modprobe.d/* /etc/default/irqbalance; do
      [ -f "$f" ] && echo "file:$f=$(md5sum < "$f" | cut -c1-12)"
    done
  } | LC_ALL=C sort -u | gawk -F= '{ k = $1; v = substr($0, length(k) + 2)
      if (k in a) a[k] = a[k] "," v; else { a[k] = v; o[++n] = k } }
      END { for (i = 1; i <= n; i++) print o[i] "=" a[o[i]] }' > "$S/$1"
  echo "INFO snapshot $1: $(wc -l < "$S/$1") keys"
}
# mask_list HEXMASK: the CPU list of a mask (up to 32 CPUs)
mask_list() {
  gawk -v m="$1" 'BEGIN { gsub(/,/, "", m); v = strtonum("0x" m); s = ""
    for (c = 0; c < 32; c++) if (int(v / 2 ^ c) % 2) s = s (s == "" ? "" : ",") c; print s }'
}
# changed A B: the keys whose value differs between snapshots A and B (present in both, or in
# A only; a thread that ended is no change), as "key: a -> b", noise left out
changed() {
  gawk -F= 'FILENAME == ARGV[1] { noise[$1] = 1; next }
    FILENAME == ARGV[2] { a[$1] = substr($0, length($1) + 2); next }
    { b[$1] = substr($0, length($1) + 2) }
    END { for (k in a) if (!(k in noise) && (!(k in b) && k !~ /^(cpus|sched):/ || (k in b) && a[k] != b[k]))
            print k ": " a[k] " -> " (k in b ? b[k] : "(gone)") }' \
    "$S/noise" "$S/$1" "$S/$2" | LC_ALL=C sort
}
value() { gawk -v k="$2" 'index($0, k "=") == 1 { print substr($0, length(k) + 2); exit }' "$S/$1"; }

fact tuned_version "$(dpkg-query -W -f '${Version}' tuned 2>/dev/null)"
fact irqbalance_version "$(dpkg-query -W -f '${Version}' irqbalance 2>/dev/null)"
fact cmdline "$(cat /proc/cmdline)"
if [ -d /usr/lib/tuned/realtime ]; then pass "Debian's tuned ships the realtime profile"
else fail "tuned ships the realtime profile" "no /usr/lib/tuned/realtime"; finish; fi

# The NIC: a veth pair with 4 rx and 4 tx queues (veth module from the initramfs; iproute2).
if ip link add v0 numrxqueues 4 numtxqueues 4 type veth peer name v1 numrxqueues 4 numtxqueues 4 2>"$OUT/ip.err"; then
  ip link set v0 up; ip link set v1 up
  fact v0_channels "$(ethtool -l v0 2>&1 | tr '\n' ' ' | tr -s ' \t' ' ')"
else
  info "no veth pair: $(cat "$OUT/ip.err")"
fi
systemctl is-active irqbalance.service > /dev/null && info "irqbalance runs ($(pgrep -x irqbalance))"

# 1. before, twice: the noise
sleep 2
snap before
sleep 3
snap before2
gawk -F= 'FILENAME == ARGV[1] { a[$1] = $0; next } { if (!($1 in a) || a[$1] != $0) print $1; delete a[$1] }
  END { for (k in a) print k }' "$S/before" "$S/before2" | sort -u > "$S/noise"
fact noise_keys "$(tr '\n' ' ' < "$S/noise")"

# 2. TuneD's realtime profile, isolated_cores=2-3
sed -i "s/^isolated_cores=.*/isolated_cores=$ISO/" /etc/tuned/realtime-variables.conf
grep '^isolated_cores' /etc/tuned/realtime-variables.conf | sed 's/^/  T| /'
: > /etc/tuned/active_profile
echo manual > /etc/tuned/profile_mode
t0=$(cut -d' ' -f1 /proc/uptime)
systemctl start tuned.service
tuned-adm profile realtime > "$OUT/tuned-adm.out" 2>&1
trc=$?
fact tuned_apply_s "$(gawk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }')"
expect_eq "tuned-adm profile realtime exits 0" "$trc" 0
expect_eq "TuneD's active profile is realtime" "$(tuned-adm active 2>&1 | sed -n 's/^Current active profile: //p')" realtime
sleep 3
snap tuned
journalctl -u tuned.service --no-pager -o cat 2>/dev/null | grep -iE 'error|warn|fail|not supported|scheduler' | head -30 | sed 's/^/  TJ| /'
grep -iE 'error|warn|fail|not supported' /var/log/tuned/tuned.log 2>/dev/null | cut -c1-220 | head -30 | sed 's/^/  TL| /'
sed -n 's/^TUNED_BOOT_CMDLINE=//p' /etc/tuned/bootcmdline 2>/dev/null | tr -d '"' > "$S/tuned.cmdline"
fact tuned_boot_cmdline "$(cat "$S/tuned.cmdline")"
changed before tuned > "$S/tuned.diff"
fact tuned_changed_count "$(wc -l < "$S/tuned.diff")"
sed 's/^/  TUNED| /' "$S/tuned.diff"
if [ -s "$S/tuned.diff" ]; then pass "TuneD's realtime profile changed $(wc -l < "$S/tuned.diff") keys"
else fail "TuneD's realtime profile changes something" "no key changed"; fi
journalctl -u irqbalance.service --no-pager -o cat 2>/dev/null | grep -i 'discarded\|banned' | tail -2 | sed 's/^/  IJ| /'

# 3. tuned-adm off, then the daemon stopped
tuned-adm off > "$OUT/tuned-off.out" 2>&1
expect_eq "tuned-adm off exits 0" "$?" 0
sleep 3
snap off
changed before off > "$S/off.diff"
if [ -s "$S/off.diff" ]; then
  info "tuned-adm off left $(wc -l < "$S/off.diff") keys changed:"
  sed 's/^/  OFF| /' "$S/off.diff"
  fact tuned_off_left "$(cut -d: -f1-2 "$S/off.diff" | tr '\n' ' ')"
else pass "tuned-adm off restored every key"; fi
systemctl stop tuned.service
# what TuneD left, written back to its value before TuneD (a key with no file to write stays)
while IFS= read -r line; do
  k=${line%%: *} v=$(value before "${line%%: *}")
  case $k in
    sysctl:*) sysctl -q -w "${k#sysctl:}=$v" ;;
    wq:*) echo "$v" > "/sys/devices/virtual/workqueue/${k#wq:}" ;;
    machinecheck:*) echo "$v" > "/sys/devices/system/machinecheck/${k#machinecheck:}/ignore_ce" ;;
    *) false ;;
  esac 2>/dev/null && echo "  RESET| $k back to $v" || echo "  RESET| $k: not written back"
done < "$S/off.diff"
sleep 1
snap start
changed before start > "$S/start.diff"
if [ -s "$S/start.diff" ]; then sed 's/^/  START| /' "$S/start.diff"; info "rtagent starts with $(wc -l < "$S/start.diff") keys TuneD left"
else pass "rtagent starts where TuneD did: what tuned-adm off left is written back"; fi

# 4. rtagent apply of the TuneD-equivalent base profile with the same CPUs
P=/rtagent/profiles/qemu-tuned-board.yaml
cat > $P <<EOF
include: [base/tuned-realtime.yaml]
name: qemu-tuned-board
description: the QEMU harness's 4 CPUs from TuneD's realtime profile, isolated 2-3
cores:
  housekeeping: 0-1
  isolated: $ISO
  bootloader: print
EOF
rt_expect validate 0 validate $P
rt_expect plan 0 plan $P
sed 's/^/  PL| /' "$OUT/plan.out" | head -80
expect_eq "the plan of TuneD's realtime as rtagent settings has no error finding" "$(grep -c '^ *error \[' "$OUT/plan.out")" 0
rt_expect apply 0 apply $P --json
sed 's/^/  A| /' "$OUT/apply.err" | tail -8
sleep 3
snap rtagent
changed start rtagent > "$S/rtagent.diff"
fact rtagent_changed_count "$(wc -l < "$S/rtagent.diff")"
sed 's/^/  RTAGENT| /' "$S/rtagent.diff"

# The comparison: every key TuneD changed reads as TuneD made it, unless deliberate.
missing=0 same=0 deliberate=0 unmeasured=0
while IFS= read -r line; do
  k=${line%%: *}
  want=$(value tuned "$k")
  got=$(value rtagent "$k")
  if echo "$k=" | grep -Eq "$DELIBERATE"; then
    deliberate=$((deliberate + 1)); echo "  CMP| deliberate $k: TuneD $want, rtagent $got"
  elif [ "$got" = "$want" ] && [ "$(value start "$k")" = "$want" ]; then
    unmeasured=$((unmeasured + 1)); echo "  CMP| unmeasured $k: it read $want before rtagent's apply"
  elif [ "$got" = "$want" ]; then
    same=$((same + 1)); echo "  CMP| same $k: $want"
  else
    missing=$((missing + 1)); echo "  CMP| MISSING $k: TuneD $want, rtagent $got"
    fail "rtagent makes TuneD's change of $k" "TuneD $want, rtagent $got"
  fi
done < "$S/tuned.diff"
fact compare "same $same, deliberate $deliberate, unmeasured $unmeasured, missing $missing"
[ $missing = 0 ] && pass "every change TuneD made, rtagent made too ($same keys; $deliberate deliberate, $unmeasured already so before apply)"

# The boot arguments: TuneD's /etc/tuned/bootcmdline against rtagent's planned line.
for arg in $(cat "$S/tuned.cmdline"); do
  case $DELIBERATE_ARGS in *" $arg "*) echo "  CMD| deliberate $arg"; continue ;; esac
  case $arg in
    isolcpus=*)
      flags=$(echo "${arg#isolcpus=}" | tr , '\n' | sort | tr '\n' ,)
      if grep -o 'isolcpus=[^ ]*' "$OUT/plan.out" | while read -r a; do
           [ "$(echo "${a#isolcpus=}" | tr , '\n' | sort | tr '\n' ,)" = "$flags" ] && echo y; done | grep -q y; then
        pass "rtagent's command line has TuneD's $arg (flags in any order)"
      else fail "rtagent's command line has TuneD's $arg" "$(grep -o 'isolcpus=[^ ]*' "$OUT/plan.out" | head -1)"; fi ;;
    *)
      if grep -q -- "$arg" "$OUT/plan.out"; then pass "rtagent's command line has TuneD's $arg"
      else fail "rtagent's command line has TuneD's $arg" "not in the plan"; fi ;;
  esac
done

# 5. revert: every key back to "start" (rtagent's own start), and so to "before" where it was written back
rt_expect revert 0 revert
# where the IRQs are right after revert and 3 s later (irqbalance, restarted by revert, re-places
# IRQs on its own), with what revert said about them
irqs_now() { for d in /proc/irq/[0-9]*; do [ -r $d/smp_affinity_list ] && printf ' %s:%s' "${d##*/}" "$(cat $d/smp_affinity_list)"; done; echo; }
echo "  IRQS| right after revert (irqbalance $(pgrep -x irqbalance)):$(irqs_now)"
grep -iE 'irq' "$OUT/revert.out" "$OUT/revert.err" | head -20 | sed 's/^/  RV| /'
sleep 3
echo "  IRQS| 3 s after revert (irqbalance $(pgrep -x irqbalance)):$(irqs_now)"
snap reverted
changed start reverted > "$S/revert.diff"
if [ -s "$S/revert.diff" ]; then
  sed 's/^/  REVERT| /' "$S/revert.diff"
  fail "rtagent revert puts every key back" "$(cut -d: -f1 "$S/revert.diff" | tr '\n' ' ')"
else pass "rtagent revert: the snapshot equals the one before apply"; fi
changed before reverted | while IFS= read -r line; do
  k=${line%%: *}
  gawk -v k="$k: " 'index($0, k) == 1 { f = 1 } END { exit !f }' "$S/start.diff" || echo "$line"
done > "$S/revert-before.diff"
if [ -s "$S/revert-before.diff" ]; then
  sed 's/^/  BEFORE| /' "$S/revert-before.diff"
  fail "after revert the snapshot equals before (less what TuneD left that could not be written back)" "$(cut -d: -f1 "$S/revert-before.diff" | tr '\n' ' ')"
else pass "after revert the snapshot equals before (less what TuneD left that could not be written back)"; fi
# the snapshots, for docs/migrating-from-tuned.md
for f in tuned.diff off.diff rtagent.diff; do artifact $f "$S/$f"; done
finish

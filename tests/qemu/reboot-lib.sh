# The reboot loop of the boot-loader scenarios (grub-reboot; sourced after lib.sh; run by
# guest/run-phases.sh once per boot, RTAGENT_PHASE saying which): isolation through the boot
# loader, proven by booting it.
#   boot 1: no isolation booted; an `isolcpus=3 nohz_full=3` of the user's own in the boot
#           loader's configuration; `rtagent apply` with `cores.bootloader.type: LOADER`; the
#           line the boot loader will give the default entry carries the profile's arguments
#           once each, not the user's managed ones, and the rest of the user's line; reboot.
#   boot 2: /proc/cmdline is exactly that line; the kernel isolated 2-3; verify's cmdline
#           checks PASS; a short accept on isolated CPU 2; `rtagent revert` puts the boot
#           loader's files back byte for byte; reboot.
#   boot 3: /proc/cmdline is the user's line again: none of the profile's arguments, the
#           user's isolcpus=3 nohz_full=3 back.
# The scenario defines, for its boot loader:
#   loader_prepare          boot 1, before apply: put USER_MANAGED into the user's configuration
#   loader_files            the files apply may change and revert must put back (one a line)
#   default_line            the arguments the boot loader's configuration gives its default entry
#   loader_after_apply      checks of its own after apply (e.g. the update command ran)
#   loader_after_revert     checks of its own after revert (then the harness puts back any file
#                           revert did not, so boot 3 still runs)

P=/etc/rtagent/reboot.yaml
S=$RTAGENT_STATE
# The arguments every direct boot of the other scenarios gets from boot.sh. The profile turns
# off rcu_nocb_poll, kthread_cpus and skew_tick: booted through GRUB with them, the emulated
# kernel once took 167 s to reach /init (6 s without) and once printed nothing for 8 minutes
# under a loaded host; which of them does it under TCG is not known (docs/qemu.md).
PROFILE_ARGS="isolcpus=nohz,domain,managed_irq,2-3 nohz_full=2-3 rcu_nocbs=2-3 irqaffinity=0-1"
USER_MANAGED="isolcpus=3 nohz_full=3"
USER_KEPT="console=ttyS0,115200n8 no_timer_check"

# count_arg LINE ARG: how many times ARG is a whole argument of LINE
count_arg() { printf '%s\n' "$1" | tr ' \t' '\n\n' | grep -cxF -- "$2"; }
# expect_each CHECK LINE N ARGS: every argument of ARGS appears exactly N times in LINE
expect_each() {
  bad=
  for a in $4; do c=$(count_arg "$2" "$a"); [ "$c" = "$3" ] || bad="$bad $a($c)"; done
  if [ -z "$bad" ]; then pass "$1"; else fail "$1" "expected $3 of each, got:$bad in '$2'"; fi
}
# booted_line: /proc/cmdline without what the boot loader adds by itself (BOOT_IMAGE=, initrd=)
booted_line() { tr ' ' '\n' < /proc/cmdline | grep -v -e '^BOOT_IMAGE=' -e '^initrd=' -e '^$' | tr '\n' ' ' | sed 's/ $//'; }
# a boot's own id, and a check that this boot is not the one before
boot_facts() {
  cat /proc/sys/kernel/random/boot_id > "$S/boot_id.$RTAGENT_PHASE"
  fact "boot_${RTAGENT_PHASE}_cmdline" "$(cat /proc/cmdline)"
  fact "boot_${RTAGENT_PHASE}_uptime_s" "$(cut -d' ' -f1 /proc/uptime)"
  expect_grep "boot $RTAGENT_PHASE came through a boot loader (BOOT_IMAGE= on /proc/cmdline)" '(^| )BOOT_IMAGE=/' /proc/cmdline
  if [ "$RTAGENT_PHASE" -gt 1 ]; then
    prev=$((RTAGENT_PHASE - 1))
    if [ -s "$S/boot_id.$prev" ] && ! cmp -s "$S/boot_id.$prev" "$S/boot_id.$RTAGENT_PHASE"; then
      pass "the guest rebooted by itself (boot id $(cut -c1-8 "$S/boot_id.$prev") -> $(cut -c1-8 "$S/boot_id.$RTAGENT_PHASE"))"
    else
      fail "the guest rebooted by itself" "boot id of boot $prev missing or unchanged"
    fi
  fi
}
# cmdline_suite: verify with conformance and the cmdline check only, JSON flattened to $OUT/verify.flat
cmdline_verify() {
  printf 'name: reboot\ndescription: conformance and the kernel command line\nchecks: [conformance, cmdline]\n' > /tmp/suite.yaml
  rt_verdict "verify-boot$RTAGENT_PHASE" verify $P --suite /tmp/suite.yaml --json
  json_flat "$OUT/verify-boot$RTAGENT_PHASE.out" > "$OUT/verify.flat"
  for id in cmdline.boot_args cmdline.isolated cmdline.nohz_full conformance.reboot; do
    fact "verify_boot${RTAGENT_PHASE}_$id" "$(result_field "$OUT/verify.flat" $id status): $(result_field "$OUT/verify.flat" $id summary)"
  done
}
expect_result() {   # expect_result CHECK ID STATUS
  st=$(result_field "$OUT/verify.flat" "$2" status)
  expect_eq "$1" "$st" "$3"
}
save_files() {   # save_files DIR: a copy of every file loader_files names ("absent" when it is not there)
  mkdir -p "$1"
  loader_files | while read -r f; do
    n=$(echo "$f" | tr / _)
    if [ -e "$f" ]; then cp "$f" "$1/$n"; else echo absent > "$1/$n.absent"; fi
  done
}
expect_files_as() {   # expect_files_as DIR CHECK: every file of loader_files is as saved in DIR
  loader_files | while read -r f; do
    n=$(echo "$f" | tr / _)
    if [ -e "$1/$n.absent" ]; then
      if [ -e "$f" ]; then fail "$2: $f" "exists, was absent"; else pass "$2: $f absent as before"; fi
    elif cmp -s "$1/$n" "$f"; then pass "$2: $f byte-identical"
    else fail "$2: $f" "differs: $(diff "$1/$n" "$f" 2>&1 | head -6 | tr '\n' '|')"
    fi
  done
}
# restore_files DIR: the harness puts back what revert did not (each said), so that boot 3
# still shows what the user's own line boots.
restore_files() {
  loader_files | while read -r f; do
    n=$(echo "$f" | tr / _)
    if [ -e "$1/$n.absent" ]; then
      [ -e "$f" ] && { info "the harness removes $f to go on"; rm -f "$f"; }
    elif ! cmp -s "$1/$n" "$f"; then
      info "the harness puts $f back to go on"; cp "$1/$n" "$f"
    fi
  done
}

reboot_loop() {
  LOADER=$1
  boot_facts
  case $RTAGENT_PHASE in
  1)
    line=$(booted_line)
    expect_each "boot 1: none of the profile's arguments booted" "$line" 0 "$PROFILE_ARGS"
    expect_eq "boot 1: no isolated CPU" "$(cat /sys/devices/system/cpu/isolated)" ""
    loader_prepare
    save_files "$S/before"
    line=$(default_line)
    echo "$line" > "$S/line.before"
    fact user_line "$line"
    expect_each "the user's line has the managed $USER_MANAGED" "$line" 1 "$USER_MANAGED"

    mkdir -p /etc/rtagent
    cat > $P <<EOF
version: 1
name: qemu-reboot
description: the QEMU guest's 4 CPUs, isolated through $LOADER and a reboot
cores:
  housekeeping: 0-1
  isolated: 2-3
  boot:
    rcu_nocb_poll: false
    kthread_cpus: false
    skew_tick: false
  bootloader:
    type: $LOADER
  runtime:
    workqueue_cpumask: keep
    default_smp_affinity: keep
irqs:
  default: keep
acceptance:
  duration: 3s
  cpus: 2
  histogram_limit_us: 100000
  max_us: 100000
  loads:
    cpus: housekeeping
    builtin: [cache]
EOF
    sed 's/^/  P| /' $P
    rt validate validate $P
    rt plan plan $P
    sed 's/^/  | /' "$OUT/plan.out" | head -30
    rt apply apply $P
    sed 's/^/  | /' "$OUT/apply.out" | head -40
    loader_after_apply
    line=$(default_line)
    echo "$line" > "$S/line.applied"
    fact applied_line "$line"
    expect_each "after apply: the default entry's line has each profile argument once" "$line" 1 "$PROFILE_ARGS"
    expect_each "after apply: the user's managed arguments are gone from it" "$line" 0 "$USER_MANAGED"
    expect_each "after apply: the rest of the user's line is kept" "$line" 1 "$USER_KEPT"
    cmdline_verify
    expect_result "boot 1: cmdline.boot_args says reboot required" cmdline.boot_args WARN
    reboot_to_phase 2
    ;;
  2)
    line=$(booted_line)
    expect_eq "boot 2: /proc/cmdline is the line apply wrote" "$line" "$(cat "$S/line.applied")"
    expect_each "boot 2: each profile argument booted once" "$line" 1 "$PROFILE_ARGS"
    expect_each "boot 2: none of the user's managed arguments booted" "$line" 0 "$USER_MANAGED"
    expect_file "boot 2: the kernel isolated 2-3" /sys/devices/system/cpu/isolated 2-3
    expect_file "boot 2: nohz_full 2-3" /sys/devices/system/cpu/nohz_full 2-3
    cmdline_verify
    expect_eq "boot 2: verify exits 0" "$RT_RC" 0
    expect_result "boot 2: cmdline.boot_args" cmdline.boot_args PASS
    expect_result "boot 2: cmdline.isolated" cmdline.isolated PASS
    expect_result "boot 2: cmdline.nohz_full" cmdline.nohz_full PASS
    expect_result "boot 2: conformance.reboot (nothing waits for a reboot)" conformance.reboot PASS

    rt_verdict accept accept $P --duration 3s --json "$OUT/v.json"
    sed 's/^/  | /' "$OUT/accept.out" | head -20
    if [ -s "$OUT/v.json" ]; then
      json_flat "$OUT/v.json" > "$OUT/v.flat"
      jexpect "accept measured isolated CPU 2" "$OUT/v.flat" config.cpus 2
      jexpect "accept's sampler ran SCHED_FIFO" "$OUT/v.flat" config.policy SCHED_FIFO
      fact accept_result "$(jget "$OUT/v.flat" result) (exit $RT_RC; an emulated run, not a real-time figure)"
    else
      fail "accept wrote its verdict" "$OUT/v.json is missing or empty"
    fi

    rt revert revert
    sed 's/^/  | /' "$OUT/revert.out" | head -30
    expect_files_as "$S/before" "after revert"
    loader_after_revert
    restore_files "$S/before"
    line=$(default_line)
    echo "$line" > "$S/line.reverted"
    expect_eq "after revert: the default entry's line is the user's again" "$line" "$(cat "$S/line.before")"
    reboot_to_phase 3
    ;;
  3)
    line=$(booted_line)
    expect_eq "boot 3: /proc/cmdline is the user's line again" "$line" "$(cat "$S/line.before")"
    expect_each "boot 3: none of the profile's arguments booted" "$line" 0 "$PROFILE_ARGS"
    expect_each "boot 3: the user's own $USER_MANAGED booted again" "$line" 1 "$USER_MANAGED"
    expect_file "boot 3: the kernel isolated the user's CPU 3" /sys/devices/system/cpu/isolated 3
    finish
    ;;
  *)
    fail "phase" "unknown phase '$RTAGENT_PHASE'"
    finish
    ;;
  esac
}

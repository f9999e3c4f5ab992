#!/bin/sh
# kernel: rt
# disk: 16M
# qemu: -drive file=@WORK@/disk.img,if=none,format=raw,id=d0 -device virtio-blk-pci,drive=d0,num-queues=4
# A virtio-blk disk with 4 queues: one managed PCI-MSI line per queue. Shows the harness can
# set them up and that the kernel refuses their affinity (EIO); rtagent's apply records them as
# unchangeable, not as failures, and verify says the kernel keeps them (a WARN, not a FAIL).
. /rtagent/lib.sh

load_modules virtio_pci virtio_blk
i=0; while [ ! -e /sys/block/vda ] && [ $i -lt 50 ]; do sleep 0.2; i=$((i+1)); done
if [ -e /sys/block/vda ]; then pass "virtio-blk disk vda appeared"; else fail "virtio-blk disk vda appeared" "no /sys/block/vda"; fi
fact vda_mq "$(ls /sys/block/vda/mq 2>/dev/null | tr '\n' ' ')"

grep -E 'virtio' /proc/interrupts > /tmp/virtio-irqs
sed 's/^/  | /' /tmp/virtio-irqs
n=$(grep -c 'virtio[0-9]*-req' /tmp/virtio-irqs)
expect_eq "4 virtio request queue IRQs" "$n" 4
expect_grep "queue IRQs are PCI-MSI" 'PCI-MSI.*virtio[0-9]*-req' /tmp/virtio-irqs

eio=0; other=""
for irq in $(grep 'virtio[0-9]*-req' /tmp/virtio-irqs | awk '{sub(":","",$1); print $1}'); do
  aff=$(cat /proc/irq/$irq/smp_affinity_list)
  eff=$(cat /proc/irq/$irq/effective_affinity_list 2>/dev/null)
  r=$(affinity_write_errno "$irq" 1)
  fact "irq_$irq" "$(grep "^ *$irq:" /tmp/virtio-irqs | awk '{print $NF}') affinity=$aff effective=$eff write=$r"
  case "$r" in *"Input/output error"*) eio=$((eio+1)) ;; *) other="$other $irq:$r" ;; esac
done
expect_eq "writing a managed queue IRQ's smp_affinity gives EIO" "$eio${other:+ (others:$other)}" 4

# the config (non-managed) vector is movable
cfg=$(grep 'virtio[0-9]*-config' /tmp/virtio-irqs | awk '{sub(":","",$1); print $1}' | head -1)
if [ -n "$cfg" ]; then
  expect_eq "the config IRQ is movable" "$(affinity_write_errno "$cfg" 1)" ok
fi
fact irq0_affinity_write "$(affinity_write_errno 0 1)"

# threaded handlers for the queues (PREEMPT_RT)
threads > /tmp/threads
fact virtio_irq_threads "$(awk '$3 ~ /^irq\/.*virtio/ {print $3 "=" $4 "/" $5}' /tmp/threads | tr '\n' ' ')"

if rt inspect-json inspect --json; then
  json_flat "$OUT/inspect-json.out" > /tmp/inspect.flat
  q=$(grep -E '^irqs\.irqs\.[0-9]+\.name=virtio[0-9]+-req' /tmp/inspect.flat | wc -l)
  expect_eq "inspect --json lists the 4 virtio queues" "$q" 4
  h=$(for i in $(sed -n 's/^irqs\.irqs\.\([0-9]*\)\.name=virtio[0-9]*-req.*/\1/p' /tmp/inspect.flat); do jget /tmp/inspect.flat irqs.irqs.$i.managed_hint; done | sort -u | tr '\n' ' ')
  expect_eq "inspect: the queues' managed_hint" "$h" "true "
fi

# apply with irqs.default housekeeping: the queues are recorded unchangeable, not failed
cat > /tmp/managed.yaml <<'EOP'
version: 1
name: managed-irqs
cores:
  housekeeping: 0-1
  isolated: 2-3
  boot: {isolcpus: [nohz, domain, managed_irq], nohz_full: true, rcu_nocbs: true, rcu_nocb_poll: false, irqaffinity: true, kthread_cpus: false, skew_tick: false}
  bootloader: print
irqs:
  default: housekeeping
kernel:
  preempt_rt: any
EOP
rt_expect apply 0 apply /tmp/managed.yaml --json
json_flat "$OUT/apply.out" > /tmp/apply.flat
grep -E '^results\.[0-9]+\.(what|outcome|detail)=' /tmp/apply.flat | sed 's/^/  | /' | head -60
jexpect "apply: not rolled back" /tmp/apply.flat rolled_back false
jexpect "apply: nothing failed" /tmp/apply.flat summary.failed 0
for irq in $(grep 'virtio[0-9]*-req' /tmp/virtio-irqs | awk '{sub(":","",$1); print $1}'); do
  i=$(grep -E "^results\.[0-9]+\.key=.*irq/$irq/smp_affinity_list\$" /tmp/apply.flat | sed 's/^results\.\([0-9]*\)\..*/\1/' | head -1)
  if [ -z "$i" ]; then fail "apply: IRQ $irq (virtio queue) in the results" "no result with key .../irq/$irq/smp_affinity_list"; continue; fi
  jexpect "apply: IRQ $irq ($(jget /tmp/apply.flat results.$i.what)) outcome" /tmp/apply.flat results.$i.outcome unchangeable
done
if [ -n "$cfg" ]; then
  i=$(grep -E "^results\.[0-9]+\.key=.*irq/$cfg/smp_affinity_list\$" /tmp/apply.flat | sed 's/^results\.\([0-9]*\)\..*/\1/' | head -1)
  [ -n "$i" ] && jexpect "apply: config IRQ $cfg outcome" /tmp/apply.flat results.$i.outcome "applied|already_set"
  expect_file "config IRQ $cfg after apply" /proc/irq/$cfg/smp_affinity_list 0-1
fi
# verify after that apply: the queues differ from the profile because the kernel keeps them, not
# because anything moved them, so conformance.irqs is a WARN carrying the kernel's reason (and
# not a FAIL whose hint says apply would set them: apply has just said it cannot)
expect_grep "apply recorded the kernel's refusals for verify" 'virtio[0-9]*-req' /run/rtagent/refused.json
printf 'name: conformance\ndescription: what apply changed\nchecks: [conformance]\n' > /tmp/conformance-suite.yaml
rt_expect verify 0 verify /tmp/managed.yaml --suite /tmp/conformance-suite.yaml --json
json_flat "$OUT/verify.out" > /tmp/verify.flat
grep -E '^results\.[0-9]+\.(id|status|summary|measured|hint)=' /tmp/verify.flat | sed 's/^/  | /' | head -30
expect_eq "verify: conformance.irqs is a WARN" "$(result_field /tmp/verify.flat conformance.irqs status)" WARN
m=$(result_field /tmp/verify.flat conformance.irqs measured)
expect_eq "verify: each queue named as refused by the kernel" "$(echo "$m" | grep -o 'virtio[0-9]*-req[^)]*) affinity: [^,]*, refused by the kernel' | wc -l)" 4
case "$(result_field /tmp/verify.flat conformance.irqs hint)" in
  "the kernel's reason: a managed IRQ"*) pass "verify: the hint names a managed IRQ" ;;
  *) fail "verify: the hint names a managed IRQ" "$(result_field /tmp/verify.flat conformance.irqs hint)" ;;
esac
rt_expect revert 0 revert
if [ -e /run/rtagent/refused.json ]; then fail "revert removed the record of refusals" "/run/rtagent/refused.json is left"; else pass "revert removed the record of refusals"; fi
finish

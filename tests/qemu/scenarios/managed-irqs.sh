#!/bin/sh
# kernel: rt
# disk: 16M
# qemu: -drive file=@WORK@/disk.img,if=none,format=raw,id=d0 -device virtio-blk-pci,drive=d0,num-queues=4
# A virtio-blk disk with 4 queues: one managed PCI-MSI line per queue. Shows the harness can
# set them up and that the kernel refuses their affinity (EIO). Later issues assert that
# rtagent's apply records them as unchangeable, not as failures.
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
  expect_grep "inspect --json lists the virtio queues" 'virtio[0-9]*-req' "$OUT/inspect-json.out"
fi
finish

// The attribution on a trace in the kernel's own format (tests/traces/) and on small inline
// ones: each cause found, named and timed, and the rows always adding up to the latency.
#include <catch2/catch.hpp>

#include <string>

#include "base/sysroot.h"
#include "trace/attribution.h"
#include "trace/ftrace_text.h"

using namespace rtagent;

namespace {

std::string ReadTrace(const std::string& name) {
  auto text = FsRoot(RTAGENT_SOURCE_DIR).Read("tests/traces/" + name);
  REQUIRE(text);
  return *text;
}

const Cause* Find(const Attribution& a, const std::string& kind, const std::string& name) {
  for (const Cause& c : a.causes) {
    if (c.kind == kind && c.name == name) return &c;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("attribution: a FIFO thread above timerlat, a device IRQ and a softirq, each timed", "[trace][attribution]") {
  auto trace = ParseFtraceText(ReadTrace("composed-spin-irq-softirq.txt"));
  REQUIRE(trace);
  auto all = FindWakeups(*trace);
  REQUIRE(all.size() == 2);
  auto w = PickWakeup(*trace, {});
  REQUIRE(w);
  CHECK(w->latency_ns == 2010000);
  CHECK(w->cpu == 2);
  CHECK(w->comm == "timerlat/2");
  CHECK(w->irq_latency_ns == 12000);
  CHECK(w->deadline_ns == 100000000000);

  Attribution a = Attribute(*trace, *w);
  CHECK(a.TotalNs() == w->latency_ns);
  REQUIRE(a.causes.size() == 6);
  // The spinning thread first, with its rank.
  const Cause& top = a.causes.front();
  CHECK(top.kind == "thread");
  CHECK(top.name == "noise-spin:412");
  CHECK(top.pid == 412);
  CHECK(top.policy == "RT");
  CHECK(top.priority == 98);
  CHECK(top.ns == 1986000 - 30000 - 50000);
  const Cause* irq = Find(a, "irq", "IRQ 4 (ttyS0)");
  REQUIRE(irq);
  CHECK(irq->ns == 30000);
  CHECK(irq->irq == 4);
  const Cause* soft = Find(a, "softirq", "softirq NET_RX");
  REQUIRE(soft);
  CHECK(soft->ns == 50000);
  const Cause* timer = Find(a, "timer_irq", "timer IRQ handler (local_timer)");
  REQUIRE(timer);
  CHECK(timer->ns == 4000);
  const Cause* delay = Find(a, "timer_irq_delay", "timer IRQ delay: IRQs off in noise-spin:412");
  REQUIRE(delay);
  CHECK(delay->ns == 10000);
  const Cause* own = Find(a, "wakeup_path", "the woken thread's own wake-up path");
  REQUIRE(own);
  CHECK(own->ns == 10000);
  CHECK(a.timer_irq_start_ns == 10000);
  CHECK(a.events == "sched_switch, osnoise, irq");
  CHECK(a.notes.empty());
}

TEST_CASE("attribution: a trace recorded in QEMU (Debian's RT kernel, TCG): the timer fired 10.9 ms late from idle",
          "[trace][attribution]") {
  // tests/qemu/scenarios/rt-explain.sh, the first timerlat activation on isolated CPU 2: the
  // kernel stopped tracing at once (11.26 ms > 1500 µs). The emulator's timer, not a thread.
  auto trace = ParseFtraceText(ReadTrace("qemu-rt-timerlat-idle.txt"));
  REQUIRE(trace);
  CHECK(trace->tracer == "timerlat");
  CHECK(trace->unreadable_lines == 0);
  WakeupQuery q;
  q.cpus = CpuSet::Of({2});
  q.threshold_ns = 1500000;
  auto w = PickWakeup(*trace, q);
  REQUIRE(w);
  CHECK(w->latency_ns == 11259190);
  CHECK(w->irq_latency_ns == 10765350);
  CHECK(w->comm == "timerlat/2");
  CHECK(w->pid == 212);
  Attribution a = Attribute(*trace, *w);
  CHECK(a.TotalNs() == 11259190);
  REQUIRE(a.causes.size() == 3);
  CHECK(a.causes[0].kind == "timer_irq_delay");
  CHECK(a.causes[0].name == "timer IRQ delay: exit from idle");
  CHECK(a.causes[0].ns == 10927350);
  CHECK(a.causes[0].policy.empty());
  CHECK(a.causes[1].name == "the woken thread's own wake-up path");
  CHECK(a.causes[1].ns == 222840);
  CHECK(a.causes[2].name == "switch from idle");
  CHECK(a.causes[2].ns == 109000);
}

TEST_CASE("attribution: a lower-ranked thread that keeps the CPU is blocking, a threshold picks the first past it",
          "[trace][attribution]") {
  const std::string text =
      "  kworker/2:1-60  [002] d.h1.  10.000003000: #1 context irq timer_latency 3000 ns\n"
      "  kworker/2:1-60  [002] d.h2.  10.000003500: sched_wakeup: comm=timerlat/2 pid=88 prio=4 target_cpu=002\n"
      "  kworker/2:1-60  [002] d.h..  10.000004000: irq_noise: local_timer:236 start 10.000002000 duration 2000 ns\n"
      "  kworker/2:1-60  [002] d..2.  10.000104000: sched_switch: prev_comm=kworker/2:1 prev_pid=60 prev_prio=120 "
      "prev_state=R+ ==> next_comm=timerlat/2 next_pid=88 next_prio=4\n"
      "  timerlat/2-88   [002] .....  10.000110000: #1 context thread timer_latency 110000 ns\n"
      "  timerlat/2-88   [002] .....  11.000009000: #2 context thread timer_latency 9000 ns\n"
      "CPU:2 [LOST 3 EVENTS]\n";
  auto trace = ParseFtraceText(text);
  REQUIRE(trace);
  WakeupQuery q;
  q.threshold_ns = 50000;
  auto w = PickWakeup(*trace, q);
  REQUIRE(w);
  CHECK(w->latency_ns == 110000);
  Attribution a = Attribute(*trace, *w);
  CHECK(a.TotalNs() == 110000);
  REQUIRE_FALSE(a.causes.empty());
  CHECK(a.causes[0].kind == "blocking");
  CHECK(a.causes[0].name == "kworker/2:1:60");
  CHECK(a.causes[0].policy == "OTHER");
  CHECK(a.causes[0].priority == 0);
  CHECK(a.causes[0].ns == 100000);
  REQUIRE(a.notes.size() == 1);
  CHECK_THAT(a.notes[0], Catch::Contains("lost events"));

  q.threshold_ns = 200000;
  auto none = PickWakeup(*trace, q);
  REQUIRE_FALSE(none);
  CHECK(none.error().message == "no wake-up in the trace was later than 200 µs (2 looked at)");
  WakeupQuery other_cpu;
  other_cpu.cpus = CpuSet::Of({3});
  auto empty = PickWakeup(*trace, other_cpu);
  REQUIRE_FALSE(empty);
  CHECK_THAT(empty.error().message, Catch::Contains("no wake-up to explain on CPU 3"));
}

TEST_CASE("attribution: without sched events the window still adds up, with what is unknown said so",
          "[trace][attribution]") {
  const std::string text =
      "  <idle>-0  [001] d.h1.  5.000020000: #9 context irq timer_latency 20000 ns\n"
      "  <idle>-0  [001] d.h..  5.000025000: irq_noise: local_timer:236 start 5.000018000 duration 7000 ns\n"
      "  timerlat/1-70  [001] .....  5.000040000: #9 context thread timer_latency 40000 ns\n";
  auto trace = ParseFtraceText(text);
  REQUIRE(trace);
  auto w = PickWakeup(*trace, {});
  REQUIRE(w);
  Attribution a = Attribute(*trace, *w);
  CHECK(a.TotalNs() == 40000);
  CHECK(Find(a, "timer_irq_delay", "timer IRQ delay"));
  CHECK(Find(a, "unexplained", "not explained by the trace"));
  REQUIRE_FALSE(a.notes.empty());
  CHECK_THAT(a.notes[0], Catch::Contains("no sched_switch events on CPU 1"));
}

TEST_CASE("attribution: a trace without timerlat samples has nothing to explain", "[trace][attribution]") {
  auto trace = ParseFtraceText("  a-1 [000] d... 1.000000: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 "
                               "prev_state=S ==> next_comm=b next_pid=2 next_prio=120\n");
  REQUIRE(trace);
  auto w = PickWakeup(*trace, {});
  REQUIRE_FALSE(w);
  CHECK_THAT(w.error().message, Catch::Contains("no timerlat thread sample"));
}

TEST_CASE("attribution: where the trace clock saw less than timerlat measured, the rest is one row that says so",
          "[trace][attribution]") {
  // tests/qemu/scenarios/rt-explain.sh before the recording chose trace_clock mono: the kernel
  // had found the emulated TSC unstable and stamped events with "global" (sched_clock), which
  // stood still for whole jiffies (several events share one stamp). timerlat measured 222.1 ms
  // on its hrtimer's clock; the trace saw 32.9 ms from the expiry to the thread's sample.
  auto trace = ParseFtraceText(ReadTrace("qemu-rt-global-clock-spin.txt"));
  REQUIRE(trace);
  WakeupQuery q;
  q.cpus = CpuSet::Of({2});
  q.threshold_ns = 50000000;
  auto w = PickWakeup(*trace, q);
  REQUIRE(w);
  CHECK(w->latency_ns == 222106620);
  REQUIRE(w->sample_ns);
  Attribution a = Attribute(*trace, *w);
  CHECK(a.TotalNs() == 222106620);  // the rows still add up to what timerlat measured
  REQUIRE_FALSE(a.causes.empty());
  CHECK(a.causes[0].kind == "clock_gap");
  CHECK(a.causes[0].name == "not seen on the trace's clock");
  CHECK(a.causes[0].ns == w->end_ns - *w->sample_ns);
  bool spin = false;
  for (const Cause& c : a.causes) spin = spin || (c.comm == "noise-spin" && c.kind == "thread");
  CHECK(spin);
  for (const Cause& c : a.causes) CHECK(c.name != "the woken thread's own wake-up path");  // it never ran late
  REQUIRE_FALSE(a.notes.empty());
  CHECK_THAT(a.notes.back(), Catch::Contains("the trace's clock saw 32901.2 µs") &&
                                 Catch::Contains("where timerlat measured 222106.6 µs"));
}

TEST_CASE("attribution: a trace recorded on trace_clock mono in QEMU names the injected spinner first",
          "[trace][attribution]") {
  // tests/qemu/scenarios/rt-explain.sh: noise-spin, FIFO 98 on isolated CPU 2, spins 80 ms of
  // every 100; rtagent explain recorded on trace_clock mono, so the time stamps and timerlat's
  // latencies agree and no row is left "not seen on the trace's clock".
  auto trace = ParseFtraceText(ReadTrace("qemu-rt-mono-spin.txt"));
  REQUIRE(trace);
  WakeupQuery q;
  q.cpus = CpuSet::Of({2});
  q.threshold_ns = 50000000;
  auto w = PickWakeup(*trace, q);
  REQUIRE(w);
  CHECK(w->latency_ns == 82090290);
  Attribution a = Attribute(*trace, *w);
  CHECK(a.TotalNs() == w->latency_ns);
  REQUIRE_FALSE(a.causes.empty());
  CHECK(a.causes[0].kind == "thread");
  CHECK(a.causes[0].comm == "noise-spin");
  CHECK(a.causes[0].policy == "RT");
  CHECK(a.causes[0].priority == std::optional<int>(98));
  CHECK(a.causes[0].ns > w->latency_ns / 2);
  for (const Cause& c : a.causes) CHECK(c.kind != "clock_gap");
}

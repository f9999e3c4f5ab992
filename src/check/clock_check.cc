// The clock check. A virtual machine or a coarse clock is not an error, but every latency
// figure of such a run must say so: they are not the board's real-time figures (the ipcbench
// seed's "coarse clock" verdict, made general). Hypervisor detection is inspect's
// (CPUID flag, DMI, sys/hypervisor, device tree); the coarse-clock rule is latency/clock_info's.
#include "check/clock_check.h"

#include "check/chapters.h"

namespace rtagent::check {
namespace {

const char* kName = "clock";

std::string Ns(int64_t ns) {
  if (ns < 10000) return std::to_string(ns) + " ns";
  return std::to_string(ns / 1000) + " us";
}

CheckResult Source(const ClockState& c) {
  if (!c.clocksource) {
    auto r = NewResult(kName, "clock.source", Status::kSkip, "current_clocksource is not readable", kChapter1);
    return r;
  }
  const std::string& cur = *c.clocksource;
  std::string avail;
  for (const auto& a : c.available) avail += (avail.empty() ? "" : " ") + a;
  CheckResult r;
  // jiffies ticks at HZ; hpet and acpi_pm have no vDSO fast path, so every read is a
  // system call and an uncached device access (Documentation/timers/timekeeping.rst).
  if (cur == "jiffies") {
    r = NewResult(kName, "clock.source", Status::kWarn,
                  "the clocksource is jiffies: time moves in ticks of 1-10 ms, far coarser than 1 us bins", kChapter1);
    r.hint = "boot with a hardware clocksource (tsc, arch_sys_counter); check dmesg for a clocksource watchdog switch";
  } else if (cur == "hpet" || cur == "acpi_pm") {
    r = NewResult(kName, "clock.source", Status::kWarn,
                  "the clocksource is " + cur + ": every clock read is a slow device access, which blurs each sample",
                  kChapter1);
    r.hint = "prefer tsc: if the watchdog marked it unstable, fix the cause or boot with tsc=reliable on a board "
             "whose TSC is known good";
  } else {
    r = NewResult(kName, "clock.source", Status::kPass, "the clocksource is " + cur, kChapter1);
  }
  r.measured = cur + (avail.empty() ? "" : " (available: " + avail + ")");
  return r;
}

CheckResult Resolution(const std::optional<ClockFacts>& m, const std::string& why_not) {
  if (!m) {
    auto r = NewResult(kName, "clock.resolution", Status::kSkip, "not measured: " + why_not, kChapter1);
    return r;
  }
  ClockVerdictInput in;
  in.clock = *m;
  ClockVerdict v = JudgeClock(in);
  CheckResult r;
  if (v.coarse) {
    std::string why;
    for (const auto& s : v.reasons) why += (why.empty() ? "" : "; ") + s;
    r = NewResult(kName, "clock.resolution", Status::kWarn,
                  "coarse clock: " + why + ". Latency figures of this run are not the board's real-time figures",
                  kChapter1);
    r.hint = "use a clocksource with a fast, fine read (tsc, arch_sys_counter) before trusting 1 us figures";
  } else {
    r = NewResult(kName, "clock.resolution", Status::kPass, "CLOCK_MONOTONIC is fine enough for 1 us bins", kChapter1);
  }
  r.measured = "clock_getres " + Ns(m->resolution_ns) + ", one read " + Ns(m->read_cost_ns);
  r.limit = "resolution <= " + Ns(kCoarseResolutionNs) + ", read <= " + Ns(kCoarseReadCostNs);
  return r;
}

CheckResult Hypervisor(const ClockState& c) {
  const HypervisorInfo& h = c.hypervisor;
  CheckResult r;
  if (h.present) {
    r = NewResult(kName, "clock.hypervisor", Status::kWarn,
                  "virtual machine: a hypervisor runs under this kernel, so every latency figure is a virtual-machine "
                  "figure, not the board's real-time figure",
                  kChapter5);
    std::string ev;
    for (const auto& e : h.evidence) ev += (ev.empty() ? "" : "; ") + e;
    r.measured = ev.empty() ? "hypervisor present" : ev;
    r.hint = "measure the real board for real-time figures: the host can deschedule a vCPU for milliseconds";
  } else {
    r = NewResult(kName, "clock.hypervisor", Status::kPass,
                  "no hypervisor found (CPUID flag, DMI, sys/hypervisor, device tree)", kChapter5);
    std::string what = h.dmi_product_name.value_or(h.device_tree_model.value_or(""));
    r.measured = what.empty() ? "bare metal" : "bare metal: " + what;
  }
  r.limit = "bare metal";
  return r;
}

class ClockCheck : public Check {
 public:
  const CheckInfo& Info() const override {
    static const profile::CheckBlock<profile::Toggle> kSettings{
        kName, "clocksource, timer resolution, hypervisor: a VM's figures are labelled so", {}};
    static const CheckInfo kInfo{.name = kName,
                                 .title = "clock honesty: clocksource, resolution, read cost, hypervisor",
                                 .chapters = "1, 5",
                                 .settings = &kSettings};
    return kInfo;
  }
  std::vector<CheckResult> Run(CheckEnv& env) const override {
    std::optional<ClockFacts> m;
    std::string why;
    if (auto no_time = env.NoLiveTime()) {
      why = *no_time + " (and this machine's clock is not the fixture's)";
    } else if (auto f = MeasureClock(); f) {
      m = *f;
      if (env.state.clock && env.state.clock->clocksource) m->clocksource = *env.state.clock->clocksource;
    } else {
      why = f.error().message;
    }
    return ClockResults(env, m, why);
  }
};

}  // namespace

std::vector<CheckResult> ClockResults(const CheckEnv& env, const std::optional<ClockFacts>& measured,
                                      const std::string& not_measured_reason) {
  if (!env.state.clock) {
    return {NewResult(kName, "clock", Status::kSkip, "the clock section was not collected", kChapter1)};
  }
  const ClockState& c = *env.state.clock;
  return {Source(c), Resolution(measured, not_measured_reason), Hypervisor(c)};
}

std::unique_ptr<Check> MakeClockCheck() { return std::make_unique<ClockCheck>(); }
}  // namespace rtagent::check

#include "latency/acceptance.h"

#include <unistd.h>

#include <thread>

#include "base/time_text.h"
#include "latency/load.h"
#include "latency/measuring_cgroup.h"
#include "latency/sampler_process.h"

namespace rtagent {

namespace {

// How often the caller hears of a running sampler (its progress line).
constexpr std::chrono::milliseconds kProgressPeriod{250};

SamplerConfig SamplerConfigOf(const profile::AcceptanceConfig& a, std::chrono::nanoseconds duration) {
  SamplerConfig sc;
  sc.cpus = a.cpus.value.cpus;
  sc.interval = std::chrono::microseconds(a.interval_us.value);
  sc.duration = duration;
  sc.priority = a.priority.value;
  sc.histogram_limit_us = static_cast<uint32_t>(a.histogram_limit_us.value);
  if (a.pm_qos_us.value) sc.hold_pm_qos_us = *a.pm_qos_us.value;
  return sc;
}

Result<std::unique_ptr<Load>> MakeLoad(const profile::Load& l, const std::string& log_dir, const SysRoot& root) {
  if (l.builtin) {
    BuiltinLoadOptions bo;
    if (l.workers.IsSet()) bo.workers = l.workers.value;
    return MakeBuiltinLoad(profile::ToString(l.kind), bo, root);
  }
  ExternalLoadSpec es;
  es.name = l.name;
  es.argv = l.argv;
  es.log_path = log_dir + "/rtagent-load-" + (l.name.empty() ? "external" : l.name) + "-" +
                std::to_string(::getpid()) + ".log";
  return MakeExternalLoad(es, root);
}

// The two counter readings around the worst wake-up seen so far: at each tick the worst
// of every CPU is compared with the best kept; when one grew, the readings before and after
// this tick become the window.
class WorstWindowWatch {
 public:
  WorstWindowWatch(const SysRoot& root, std::optional<CounterSnapshot> start)
      : root_(root), last_(std::move(start)), last_at_(std::chrono::steady_clock::now()) {}

  void Tick(const SamplerProcess& sampler) {
    std::optional<CounterSnapshot> now = ReadInterruptCounts(root_);
    const auto at = std::chrono::steady_clock::now();
    for (const CpuProgress& p : sampler.Progress()) {
      if (!p.worst_ns || (window_ && *p.worst_ns <= window_->worst_ns) || !last_ || !now) continue;
      WorstWindow w;
      w.cpu = p.cpu;
      w.worst_ns = *p.worst_ns;
      w.span_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(at - last_at_).count();
      w.counts = CoarseCounts(*last_, *now, CpuSet::Of({p.cpu}));
      window_ = std::move(w);
    }
    last_ = std::move(now);
    last_at_ = at;
  }
  std::optional<WorstWindow> Take() { return std::move(window_); }

 private:
  const SysRoot& root_;
  std::optional<CounterSnapshot> last_;
  std::chrono::steady_clock::time_point last_at_;
  std::optional<WorstWindow> window_;
};

// Waits for the sampler to finish (its duration, or a stop asked through the hooks), telling
// the caller of its progress and watching the counters when asked.
void WaitForSampler(SamplerProcess& sampler, const AcceptanceHooks& hooks, WorstWindowWatch* watch) {
  while (!sampler.Finished()) {
    std::this_thread::sleep_for(kProgressPeriod);
    if (hooks.on_progress) hooks.on_progress(sampler);
    if (watch) watch->Tick(sampler);
  }
}

}  // namespace

std::string AcceptanceCannotRunReason(const SysRoot& root, int priority) {
  // A latency test measures the machine it runs on; a fixture tree has no clock to measure.
  if (!root.IsLive()) {
    return "a latency test measures the live machine only; --root " + root.Dir() +
           " is a fixture tree (run it without --root)";
  }
  if (::geteuid() != 0) {
    return "the sampler needs root (SCHED_FIFO priority " + std::to_string(priority) +
           " and locked memory); run it with sudo";
  }
  return "";
}

Result<std::unique_ptr<AcceptanceRun>> AcceptanceRun::Prepare(const profile::AcceptanceConfig& a,
                                                              std::chrono::nanoseconds duration,
                                                              const std::string& log_dir, const SysRoot& root) {
  std::unique_ptr<AcceptanceRun> prep(new AcceptanceRun(root));
  prep->sampler_ = SamplerConfigOf(a, duration);
  if (auto ok = Sampler::Validate(prep->sampler_); !ok) return ok.error();
  // Loads are made now: a missing external program is bad input, found before anything runs.
  prep->load_cpus_ = a.load_cpus.value.cpus;
  for (const profile::Load& l : a.loads) {
    auto made = MakeLoad(l, log_dir, root);
    if (!made) return Wrap("load " + l.name + ": ", made.error());
    prep->loads_.Add(std::move(*made), l.cpus.IsSet() ? l.cpus.value.cpus : CpuSet());
  }
  const CpuSet& measured = prep->sampler_.cpus;
  if (prep->loads_.Size() > 0 && prep->load_cpus_.Intersects(measured)) {
    return MakeError("the loads' CPUs " + prep->load_cpus_.ToList() + " overlap the measured CPUs " +
                     measured.ToList() + " (set acceptance.loads.cpus or acceptance.cpus apart)");
  }
  // A partition on the measured CPUs (apply made one) is closed to a process outside it.
  if (root.IsLive()) {
    auto where = FindMeasuringCgroup(root, measured);
    if (!where) return where.error();
    if (*where) {
      prep->sampler_.join_cgroup_dir = (*where)->dir;
      prep->cgroup_note_ = (*where)->reason;
    }
  }
  return prep;
}

Result<AcceptanceRecord> AcceptanceRun::Run(const AcceptanceHooks& hooks) {
  if (used_) return MakeError("internal: an acceptance run was prepared once and run twice");
  used_ = true;
  const SysRoot& root = root_;
  const SamplerConfig& sc = sampler_;
  LoadSet& loads = loads_;

  // 1. The facts before the run.
  AcceptanceRecord rec;
  rec.started_at = UnixNow();
  rec.host = ReadHostFacts(root);
  if (auto clock = MeasureClock(); clock) {
    rec.clock = *clock;
    rec.clock->clocksource = rec.host.clocksource;
    rec.host.clock_resolution_ns = clock->resolution_ns;
    rec.host.clock_read_cost_ns = clock->read_cost_ns;
  }
  rec.pm_qos_device_us = ReadPmQosDevice(root);
  const auto irq_before = ReadInterruptCounts(root);

  // 2. The loads, then the sampler. The measuring loop runs in rtagent-sampler, a process of
  //    its own: its mlockall() then locks that small program's pages, not all of rtagent's
  //    (docs/performance.md).
  if (loads.Size() > 0) {
    if (auto ok = loads.Start(load_cpus_, sc.cpus); !ok) {
      return Wrap("cannot start the loads: ", ok.error());
    }
  }
  SamplerProcess sampler(sc, root);
  if (auto ok = sampler.Start(); !ok) {
    loads.Stop();
    return Wrap("cannot start the sampler: ", ok.error());
  }
  if (hooks.on_sampler) hooks.on_sampler(&sampler);
  if (hooks.stop_requested && hooks.stop_requested()) sampler.RequestStop();

  // 3. The run, until its duration or a stop.
  std::optional<WorstWindowWatch> watch;
  if (hooks.watch_worst_window) watch.emplace(root, ReadInterruptCounts(root));
  WaitForSampler(sampler, hooks, watch ? &*watch : nullptr);
  auto run = sampler.Wait();
  if (hooks.on_sampler) hooks.on_sampler(nullptr);
  loads.Stop();
  if (!run) return Wrap("the sampler failed: ", run.error());

  // 4. The facts after the run.
  rec.interrupts = InterruptDeltas(irq_before, ReadInterruptCounts(root), sc.cpus);
  rec.sampler = std::move(*run);
  if (!cgroup_note_.empty()) rec.sampler.notes.insert(rec.sampler.notes.begin(), cgroup_note_);
  rec.load_count = loads.Size();
  rec.loads = loads.Reports();
  rec.load_problems = loads.Problems();
  if (watch) rec.worst_window = watch->Take();
  return rec;
}

}  // namespace rtagent

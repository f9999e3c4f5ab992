#include "profile/validate.h"

#include <algorithm>
#include <map>

#include "profile/duration.h"

namespace rtagent::profile {
namespace {

class Validator {
 public:
  Validator(const Profile& p, Diagnostics* d) : p_(p), d_(d) {}

  void Run() {
    Cores();
    Boot();
    Runtime();
    Irqs();
    Ranks();
    Partitions();
    Memory();
    Checks();
    Acceptance();
    Service();
  }

 private:
  // A value's mark, or the next best one, or the top of the profile: every diagnostic points
  // at a line.
  SourceMark At(std::initializer_list<SourceMark> marks) const {
    for (const SourceMark& m : marks) {
      if (m.Known()) return m;
    }
    return SourceMark{p_.path, 1, 1};
  }

  const CpuSet& Hk() const { return p_.cores.housekeeping->cpus; }
  // An empty set that only follows from an empty housekeeping set, already reported.
  bool Cascade(const CpuSpec& s) const { return s.keyword == CpuKeyword::kHousekeeping && Hk().Empty(); }
  const CpuSet& Iso() const { return p_.cores.isolated->cpus; }

  // ---- cores (Chapter 6: "at least one core must keep the tick")
  void Cores() {
    const CoresConfig& c = p_.cores;
    CpuSet overlap = Hk().Intersect(Iso());
    if (!overlap.Empty()) {
      d_->Error(At({c.isolated.mark, c.housekeeping.mark}),
                "housekeeping and isolated CPUs overlap: CPU " + overlap.ToList() + " is in both (housekeeping " +
                    Hk().ToList() + ", isolated " + Iso().ToList() + ")",
                "a CPU is either housekeeping (takes the kernel's chores) or isolated (runs the loop); remove CPU " +
                    overlap.ToList() + " from one of them");
    }
    if (Hk().Empty()) {
      d_->Error(At({c.housekeeping.mark, c.isolated.mark}),
                "no housekeeping CPU is left (isolated " + Iso().ToList() + " of " + p_.system.online.ToList() + ")",
                "keep at least one CPU for housekeeping: it keeps the tick and time of day (Chapter 6); e.g. "
                "'housekeeping: 0' and 'isolated: 1-N'");
    } else if (!Hk().Intersects(p_.system.online)) {
      d_->Error(At({c.housekeeping.mark}), "every housekeeping CPU (" + Hk().ToList() + ") is offline",
                "choose housekeeping CPUs among the online ones: " + p_.system.online.ToList());
    }
  }

  void Boot() {
    const BootConfig& b = p_.cores.boot;
    if (b.nohz_full->enabled) {
      const CpuSet& nohz = b.nohz_full->cpus.cpus;
      CpuSet hk = nohz.Intersect(Hk());
      if (!hk.Empty()) {
        d_->Error(At({b.nohz_full.mark}), "nohz_full includes housekeeping CPU " + hk.ToList(),
                  "housekeeping CPUs keep the tick; list only isolated CPUs in nohz_full (Chapter 6)");
      }
      int boot_cpu = p_.system.online.Cpus().front();
      if (nohz.Has(boot_cpu) && hk.Empty() && !Hk().Empty()) {
        d_->Warning(At({b.nohz_full.mark, p_.cores.isolated.mark}),
                    "nohz_full includes CPU " + std::to_string(boot_cpu) + ", the boot CPU, which the kernel keeps ticking",
                    "leave the boot CPU out of nohz_full and isolated (Chapter 6)");
      }
    }
    auto away_from_isolated = [&](const Marked<BootCpuArg>& a, const char* key, const char* what) {
      if (!a->enabled || !a.IsSet()) return;
      CpuSet on_iso = a->cpus.cpus.Intersect(Iso());
      if (!on_iso.Empty()) {
        d_->Warning(a.mark, std::string(key) + " sends " + what + " to isolated CPU " + on_iso.ToList(),
                    std::string("point ") + key + " at housekeeping CPUs; route a chosen IRQ to an isolated CPU with an irqs rule instead");
      }
    };
    away_from_isolated(b.irqaffinity, "irqaffinity", "device interrupts");
    away_from_isolated(b.kthread_cpus, "kthread_cpus", "kernel threads");
    const BootloaderConfig& bl = p_.cores.bootloader;
    bool file_type = *bl.type == BootloaderType::kGrub || *bl.type == BootloaderType::kExtlinux ||
                     *bl.type == BootloaderType::kRpi || *bl.type == BootloaderType::kBls ||
                     *bl.type == BootloaderType::kKernelInstall;
    if (bl.path.IsSet() && !file_type) {
      d_->Warning(bl.path.mark, "cores.bootloader.path is ignored with type " + ToString(*bl.type),
                  "set 'type' to grub, extlinux, rpi, bls or kernel-install to edit that file");
    }
    if (bl.entry.IsSet() && *bl.type != BootloaderType::kExtlinux && *bl.type != BootloaderType::kBls) {
      d_->Warning(bl.entry.mark, "cores.bootloader.entry only applies to extlinux and bls",
                  "remove 'entry' or set 'type' to extlinux or bls");
    }
  }

  void Runtime() {
    const RuntimeConfig& rt = p_.cores.runtime;
    for (const auto* f : {&rt.workqueue_cpumask, &rt.default_smp_affinity}) {
      if (!f->IsSet() || (*f)->keyword == CpuKeyword::kKeep) continue;
      const char* key = f == &rt.workqueue_cpumask ? "workqueue_cpumask" : "default_smp_affinity";
      if ((*f)->cpus.Empty()) {
        if (Cascade(**f)) continue;
        d_->Error(f->mark, std::string("cores.runtime.") + key + " is empty", "the kernel refuses an empty mask; use housekeeping");
        continue;
      }
      CpuSet on_iso = (*f)->cpus.Intersect(Iso());
      if (!on_iso.Empty()) {
        d_->Warning(f->mark, std::string("cores.runtime.") + key + " includes isolated CPU " + on_iso.ToList(),
                    "point it at housekeeping CPUs so the kernel's chores stay off the isolated ones (Chapter 6)");
      }
    }
    // kernel.timer_migration can be said twice; the two must agree.
    for (const Sysctl& s : p_.memory.sysctls) {
      if (s.name == "kernel.timer_migration" && rt.timer_migration->has_value() &&
          (s.value == "1") != **rt.timer_migration) {
        d_->Error(s.mark, "memory.sysctl kernel.timer_migration=" + s.value + " contradicts cores.runtime.timer_migration (" +
                              rt.timer_migration.mark.ToString() + ")",
                  "set timer_migration in one place only: cores.runtime.timer_migration");
      }
    }
  }

  void Irqs() {
    for (const IrqRule& r : p_.irqs.rules) {
      if (r.cpus.IsSet() && r.cpus->cpus.Empty() && r.cpus->keyword != CpuKeyword::kKeep && !Cascade(*r.cpus)) {
        d_->Error(r.cpus.mark, "IRQ rule '" + r.name + "' sends its IRQs to no CPU (" + r.cpus->text + " is empty here)",
                  "give it at least one CPU");
      }
    }
    if (p_.irqs.default_cpus->keyword != CpuKeyword::kKeep && p_.irqs.default_cpus->cpus.Empty() &&
        !Cascade(*p_.irqs.default_cpus)) {
      d_->Error(At({p_.irqs.default_cpus.mark}), "irqs.default names no CPU", "use housekeeping, a CPU list, or keep");
    }
  }

  // ---- ranks (Chapter 4: the IRQ thread that feeds the loop above it, the loop above the rest)
  static int Level(const RankRule& r) {
    switch (**r.policy) {
      case Policy::kDeadline: return 1000;  // the deadline class runs before every fifo/rr rank
      case Policy::kFifo:
      case Policy::kRr: return *r.priority;
      default: return 0;
    }
  }
  static std::string Describe(const RankRule& r) {
    Policy pol = **r.policy;
    if (pol == Policy::kFifo || pol == Policy::kRr) return ToString(pol) + " " + std::to_string(*r.priority);
    return ToString(pol);
  }

  void Ranks() {
    for (const RankRule& r : p_.ranks.rules) {
      if (r.cpus.IsSet() && r.cpus->has_value() && (*r.cpus)->cpus.Empty() && !Cascade(**r.cpus)) {
        d_->Error(r.cpus.mark, "rank '" + r.name + "' allows no CPU", "give it at least one CPU");
      }
    }
    const auto& order = *p_.ranks.order;
    std::vector<std::string> names;
    for (const RankRule& r : p_.ranks.rules) names.push_back(r.name);
    std::vector<const RankRule*> ranked;
    bool ok = true;
    for (size_t i = 0; i < order.size(); ++i) {
      SourceMark m = At({i < p_.ranks.order_marks.size() ? p_.ranks.order_marks[i] : SourceMark{}, p_.ranks.order.mark});
      const RankRule* r = p_.FindRank(order[i]);
      if (r == nullptr) {
        std::string nearest = NearestWord(order[i], names);
        d_->Error(m, "ranks.order names '" + order[i] + "', which is not a rank rule",
                  nearest.empty() ? "name rules defined under ranks.rules" : "did you mean '" + nearest + "'?");
        ok = false;
        continue;
      }
      if (std::count(order.begin(), order.begin() + static_cast<long>(i), order[i]) > 0) {
        d_->Error(m, "ranks.order lists '" + order[i] + "' twice", "list each rank once, highest first");
        ok = false;
        continue;
      }
      bool rt = r->policy->has_value() && (**r->policy == Policy::kFifo || **r->policy == Policy::kRr);
      if (rt && !r->priority.IsSet()) {
        ok = false;  // already reported: "uses policy fifo but has no priority"
        continue;
      }
      if (!r->policy->has_value()) {
        d_->Error(m, "rank '" + order[i] + "' has no policy, so its place in ranks.order cannot hold",
                  "give it a policy and priority, or leave it out of the order");
        ok = false;
        continue;
      }
      ranked.push_back(r);
    }
    if (!ok) return;
    for (size_t i = 0; i + 1 < ranked.size(); ++i) {
      const RankRule& hi = *ranked[i];
      const RankRule& lo = *ranked[i + 1];
      if (Level(hi) > Level(lo)) continue;
      SourceMark m = At({p_.ranks.order_marks.size() > i ? p_.ranks.order_marks[i] : SourceMark{}});
      d_->Error(m,
                "ranks.order puts '" + hi.name + "' (" + Describe(hi) + ") above '" + lo.name + "' (" + Describe(lo) +
                    "), but it does not outrank it",
                "raise '" + hi.name + "' above '" + lo.name + "' (" + hi.priority.mark.ToString() +
                    ") or change the order; the IRQ thread that feeds a loop must rank above the loop (Chapter 4)");
    }
  }

  // ---- partitions (Chapter 6, Documentation/admin-guide/cgroup-v2.rst "cpuset.cpus.partition")
  void Partitions() {
    CpuSet used;
    for (size_t i = 0; i < p_.partitions.size(); ++i) {
      const Partition& a = p_.partitions[i];
      const CpuSet& cpus = a.cpus->cpus;
      if (!a.cpus.IsSet()) continue;
      if (cpus.Empty()) {
        d_->Error(a.cpus.mark, "partition '" + a.name + "' has no CPU", "give it at least one CPU, e.g. 'cpus: isolated'");
        continue;
      }
      for (size_t j = 0; j < i; ++j) {
        const Partition& b = p_.partitions[j];
        CpuSet both = cpus.Intersect(b.cpus->cpus);
        if (!both.Empty()) {
          d_->Error(a.cpus.mark, "partitions '" + b.name + "' and '" + a.name + "' share CPU " + both.ToList(),
                    "a partition's CPUs are exclusive; give each partition its own CPUs");
        }
      }
      if (*a.type == PartitionType::kIsolated) {
        CpuSet hk = cpus.Intersect(Hk());
        if (!hk.Empty()) {
          d_->Error(a.cpus.mark, "isolated partition '" + a.name + "' takes housekeeping CPU " + hk.ToList(),
                    "an isolated partition holds isolated CPUs; use 'cpus: isolated' or move CPU " + hk.ToList() +
                        " out of housekeeping");
        }
      }
      used = used.Union(cpus);
    }
    if (!p_.partitions.empty() && p_.system.online.IsSubsetOf(used)) {
      d_->Error(At({p_.partitions.back().cpus.mark}), "the partitions take every online CPU, leaving none for the root cgroup",
                "leave the housekeeping CPUs out of every partition");
    }
  }

  // ---- memory and sysctls (Chapters 2 and 8)
  void Memory() {
    const MemoryConfig& m = p_.memory;
    if (m.thp_defrag->has_value() && **m.thp_defrag == "always") {
      d_->Warning(m.thp_defrag.mark, "THP defrag 'always' makes allocations stall to compact memory",
                  "use 'madvise' or 'never' on a real-time system (Chapter 8)");
    }
    const Sysctl* runtime = nullptr;
    const Sysctl* period = nullptr;
    for (const Sysctl& s : m.sysctls) {
      if (s.name == "kernel.sched_rt_runtime_us") runtime = &s;
      if (s.name == "kernel.sched_rt_period_us") period = &s;
    }
    if (runtime != nullptr) {
      long long rt = std::stoll(runtime->value);
      long long per = period != nullptr ? std::stoll(period->value) : 1000000;  // the kernel's default period
      if (rt > per) {
        d_->Error(runtime->mark, "kernel.sched_rt_runtime_us " + runtime->value + " is larger than the period " + std::to_string(per),
                  "the runtime is the share of each period real-time tasks may use; keep it at most the period (EINVAL otherwise)");
      }
      if (rt == -1) {
        SafetyNetExpectation net = *p_.kernel.rt_safety_net;
        if (net == SafetyNetExpectation::kAny) {
          d_->Warning(runtime->mark, "kernel.sched_rt_runtime_us=-1 removes the RT safety net on every CPU",
                      "remove it only where the loop runs alone (Chapter 2)");
        } else {
          d_->Error(runtime->mark,
                    "kernel.sched_rt_runtime_us=-1 removes the RT safety net on every CPU, but kernel.rt_safety_net is " +
                        ToString(net),
                    "keep the net (Chapter 2), or set kernel.rt_safety_net: any if that is really meant");
        }
      }
    }
  }

  // ---- checks (Documentation/trace/hwlat_detector.rst: width is the busy part of each window)
  void Checks() {
    const ChecksConfig& c = p_.checks;
    if (*c.hwlat_width >= *c.hwlat_window) {
      d_->Error(At({c.hwlat_width.mark, c.hwlat_window.mark}),
                "checks.hwlat.width " + FormatDuration(*c.hwlat_width) + " is not shorter than the window " +
                    FormatDuration(*c.hwlat_window),
                "the tracer spins for 'width' out of every 'window' (the kernel refuses width >= window); the "
                "defaults are 500ms of 1s");
    }
    if (*c.hwlat_duration < *c.hwlat_window) {
      d_->Error(At({c.hwlat_duration.mark, c.hwlat_window.mark}),
                "checks.hwlat.duration " + FormatDuration(*c.hwlat_duration) + " is shorter than one window (" +
                    FormatDuration(*c.hwlat_window) + ")",
                "run the tracer for many windows: 30s or more");
    }
    // A gap is measured inside one width of spinning, so it can never be longer than the width:
    // a threshold at or above it reports nothing, whatever the firmware does.
    if (std::chrono::microseconds(*c.hwlat_threshold_us) >= *c.hwlat_width) {
      d_->Error(At({c.hwlat_threshold_us.mark, c.hwlat_width.mark}),
                "checks.hwlat.threshold_us " + std::to_string(*c.hwlat_threshold_us) +
                    " is not shorter than the width " + FormatDuration(*c.hwlat_width) +
                    ": no gap can be longer than the width, so nothing would ever be reported",
                "a threshold of a few microseconds (the default is 10) finds SMIs and firmware gaps");
    }
  }

  // ---- acceptance (Chapter 5)
  void Acceptance() {
    const AcceptanceConfig& a = p_.acceptance;
    if (a.cpus->cpus.Empty()) {
      d_->Error(At({a.cpus.mark, p_.cores.isolated.mark}), "acceptance measures no CPU", "measure at least one CPU: 'cpus: isolated'");
    }
    auto interval = std::chrono::microseconds(*a.interval_us);
    if (interval >= *a.duration) {
      d_->Error(At({a.interval_us.mark, a.duration.mark}),
                "acceptance.interval_us " + std::to_string(*a.interval_us) + " is not shorter than the duration " +
                    FormatDuration(*a.duration),
                "a run takes many wake-ups: lengthen the duration or shorten the interval");
    }
    long long possible = *a.duration / interval;
    if (*a.min_samples > possible) {
      d_->Error(At({a.min_samples.mark}),
                "acceptance.min_samples " + std::to_string(*a.min_samples) + " cannot be reached: " +
                    FormatDuration(*a.duration) + " at " + std::to_string(*a.interval_us) + " us gives " +
                    std::to_string(possible) + " wake-ups per CPU",
                "lengthen the duration to at least " + FormatDuration(interval * *a.min_samples) + " or lower min_samples");
    }
    // Percentile limits: a lower percentile with a looser limit than a higher one never binds.
    const std::vector<std::pair<const char*, const Marked<std::optional<int>>*>> limits = {
        {"p50_us", &a.p50_us}, {"p90_us", &a.p90_us}, {"p99_us", &a.p99_us},
        {"p99_9_us", &a.p99_9_us}, {"p99_99_us", &a.p99_99_us}, {"max_us", &a.max_us}};
    for (size_t i = 0; i < limits.size(); ++i) {
      const auto& lo = *limits[i].second;
      if (!lo->has_value()) continue;
      for (size_t j = i + 1; j < limits.size(); ++j) {
        const auto& hi = *limits[j].second;
        if (hi->has_value() && **lo > **hi) {
          d_->Warning(lo.mark, std::string("acceptance.") + limits[i].first + " (" + std::to_string(**lo) + ") is above " +
                                   limits[j].first + " (" + std::to_string(**hi) + "), so it can never be the limit that fails",
                      "limits should grow with the percentile: p50 <= p90 <= p99 <= p99_9 <= max");
          break;
        }
      }
    }
    if (a.max_us->has_value() && **a.max_us > *a.histogram_limit_us) {
      d_->Warning(a.max_us.mark,
                  "acceptance.max_us " + std::to_string(**a.max_us) + " is above histogram_limit_us " +
                      std::to_string(*a.histogram_limit_us) + ": a wake-up past the histogram overflows and fails the run first",
                  "raise histogram_limit_us to at least max_us");
    }
    for (const Load& l : a.loads) {
      CpuSet on_measured = l.cpus->cpus.Intersect(a.cpus->cpus);
      if (l.cpus->cpus.Empty()) {
        if (Cascade(*l.cpus)) continue;
        d_->Error(At({l.cpus.mark, l.mark}), "load '" + l.name + "' is placed on no CPU (" + l.cpus->text + " is empty here)",
                  "place loads on housekeeping CPUs: 'cpus: housekeeping'");
      } else if (!on_measured.Empty() && !p_.cores.isolated->cpus.Empty()) {
        d_->Warning(At({l.cpus.mark, a.load_cpus.mark, l.mark}),
                    "load '" + l.name + "' runs on measured CPU " + on_measured.ToList(),
                    "loads belong on housekeeping CPUs; a load on a measured CPU measures the load, not the tuning");
      }
    }
  }

  void Service() {
    const ServiceConfig& s = p_.service;
    CpuSet on_iso = s.cpus->cpus.Intersect(Iso());
    if (s.cpus.IsSet() && !on_iso.Empty()) {
      d_->Warning(s.cpus.mark, "service.cpus includes isolated CPU " + on_iso.ToList(),
                  "the hold daemon's wake-ups belong on housekeeping CPUs");
    }
    if (s.cpus->cpus.Empty() && !Cascade(*s.cpus)) {
      d_->Error(At({s.cpus.mark}), "service.cpus names no CPU", "use housekeeping");
    }
  }

  const Profile& p_;
  Diagnostics* d_;
};

}  // namespace

void ValidateProfile(const Profile& p, Diagnostics* diags) { Validator(p, diags).Run(); }

}  // namespace rtagent::profile

#include "tune/partitions_tuner.h"

#include <algorithm>
#include <cerrno>
#include <optional>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"
#include "inspect/cgroups.h"
#include "inspect/system_state.h"
#include "inspect/threads.h"
#include "tune/cgroup_actuator.h"
#include "tune/sched_actuator.h"

namespace rtagent {
namespace {

constexpr const char* kWhyV2 = "Real-Time Linux, Chapter 6 (partitions); cgroup-v2.rst, cpuset.cpus.partition";
constexpr const char* kWhyV1 = "Real-Time Linux, Chapter 6 (partitions); cgroup-v1/cpusets.rst, exclusive cpusets";
constexpr char kNone[] = "(absent)";

const char* kCpusRefusedEinval =
    "the kernel refused these CPUs (EINVAL): not all within the parent's, offline, or overlapping a sibling's "
    "exclusive CPUs";
const char* kCpusRefusedEbusy = "SCHED_DEADLINE tasks in the cgroup still need the CPUs being removed (EBUSY)";
const char* kPartitionRefused =
    "the kernel refused the partition (EINVAL): its CPUs must be exclusive of its siblings', within the parent's, "
    "and leave the parent at least one CPU";
const char* kPartitionBusy =
    "the kernel refused the partition (EBUSY): its CPUs are taken by a sibling partition or still needed by "
    "SCHED_DEADLINE tasks";
const char* kExclusiveRefused =
    "the kernel refused cpu_exclusive (EINVAL): a sibling cpuset holds some of these CPUs, or the parent is not "
    "exclusive";

std::string Bool(bool b) { return b ? "1" : "0"; }

// The refusals a process move may meet (v1 adds ENOSPC for a cpuset not yet set up).
std::vector<KnownRefusal> MoveRefusals(bool v2) {
  std::vector<KnownRefusal> refusals = {
      {ESRCH, "the process exited"},
      {EINVAL, "the kernel refused the move (EINVAL): a per-CPU kernel thread, or a thread pinned outside the "
               "partition's CPUs"},
      {EBUSY, "the partition cannot take it (EBUSY): its SCHED_DEADLINE bandwidth does not fit there, or the "
              "cgroup has child cgroups"}};
  if (!v2) refusals.push_back({ENOSPC, "the cpuset has no CPUs or memory nodes yet (ENOSPC)"});
  return refusals;
}

// One plan of the partitions section, built through the backend (which only reads here).
class PartitionPlanner {
 public:
  PartitionPlanner(const std::string& section, const CgroupBackend& be, SectionPlan& plan)
      : section_(section),
        be_(be),
        h_(be.hierarchy()),
        v2_(h_.version == 2),
        why_(v2_ ? kWhyV2 : kWhyV1),
        plan_(plan) {}

  // v1: a cpuset takes no task until it has memory nodes; each partition gets its parent's.
  std::string TopMems(const std::vector<profile::Partition>& parts) {
    auto mems = be_.Get("/", h_.Cpuset(kpath::kCpusetMems));
    if (mems && !mems->empty()) return *mems;
    Warn("the top cpuset's " + h_.Cpuset(kpath::kCpusetMems) + " cannot be read; the partitions get memory node 0",
         parts.front().mark, kWhyV1);
    return "0";
  }

  // v2: the top hands the cpuset controller down (a child has cpuset files only then).
  // v1: a warning when the top still balances every CPU.
  void PlanTop(const std::vector<profile::Partition>& parts) {
    if (v2_) {
      auto sub = be_.Get("/", kpath::kCgroupSubtreeControl);
      bool on = sub && HasWord(*sub, "cpuset");
      Add(parts.front(), "cpuset controller for the cgroups below the top (cgroup.subtree_control)",
          CgroupControllerKey("/", "cpuset"), on ? "+cpuset" : "-cpuset", "+cpuset", Compare::kExact, {});
      return;
    }
    auto balance = be_.Get("/", h_.Cpuset(kpath::kCpusetSchedLoadBalance));
    bool any_isolated = false;
    for (const auto& p : parts) any_isolated |= *p.type == profile::PartitionType::kIsolated;
    if (any_isolated && balance && Trim(*balance) == "1") {
      Warn("cgroup v1: the top cpuset balances every CPU (its cpuset.sched_load_balance is 1), so a cpuset without "
           "load balancing still shares a scheduling domain with the rest unless isolcpus=domain keeps its CPUs out; "
           "rtagent leaves the top alone, because turning it off stops balancing on the housekeeping CPUs too",
           parts.front().mark, "cgroup-v1/cpusets.rst, section 1.7 (sched_load_balance)");
    }
  }

  // The partition's directory and CPUs, then its v2 type or its v1 exclusive cpuset files.
  void PlanCgroup(const profile::Partition& p, const std::string& top_mems) {
    const std::string cg = "/" + p.name;
    const bool exists = be_.Exists(cg);
    const std::string label = "partition " + p.name;
    Add(p, label + " cgroup (" + h_.CgroupPath(cg) + ")", CgroupDirKey(cg), exists ? kPresent : kAbsent, kPresent,
        Compare::kExact, {});
    Add(p, label + " CPUs", CgroupFileKey(cg, h_.Cpuset(kpath::kCpusetCpus)), Now(cg, exists, kpath::kCpusetCpus),
        p.cpus->cpus.ToList(), Compare::kCpuList, {{EINVAL, kCpusRefusedEinval}, {EBUSY, kCpusRefusedEbusy}});
    if (v2_) {
      PlanType(p, cg, exists, label);
      return;
    }
    Add(p, label + " memory nodes (the parent's)", CgroupFileKey(cg, h_.Cpuset(kpath::kCpusetMems)),
        Now(cg, exists, kpath::kCpusetMems), top_mems, Compare::kCpuList, {{EINVAL, kCpusRefusedEinval}});
    Add(p, label + " exclusive CPUs", CgroupFileKey(cg, h_.Cpuset(kpath::kCpusetCpuExclusive)),
        Now(cg, exists, kpath::kCpusetCpuExclusive), "1", Compare::kInteger, {{EINVAL, kExclusiveRefused}});
    // isolated: no load balancing inside; root: one scheduling domain of its own.
    bool balance = *p.type == profile::PartitionType::kRoot;
    Add(p, label + " load balancing", CgroupFileKey(cg, h_.Cpuset(kpath::kCpusetSchedLoadBalance)),
        Now(cg, exists, kpath::kCpusetSchedLoadBalance), Bool(balance), Compare::kInteger, {});
  }

  // Processes: user processes only (a kernel thread is never moved into a partition); the
  // first partition that names a process takes it. A name that matches nothing is a warning.
  void PlanProcesses(const std::vector<profile::Partition>& parts, const std::vector<TaskView>& procs) {
    std::vector<std::vector<bool>> used(parts.size());
    for (size_t i = 0; i < parts.size(); ++i) used[i].assign(parts[i].processes->size(), false);
    for (const TaskView& t : procs) {
      if (t.Kthread()) continue;
      for (size_t i = 0; i < parts.size(); ++i) {
        if (!MarkMatches(parts[i], t.comm, used[i])) continue;
        PlanMove(parts[i], t);
        break;
      }
    }
    for (size_t i = 0; i < parts.size(); ++i) {
      for (size_t j = 0; j < used[i].size(); ++j) {
        if (used[i][j]) continue;
        Warn("partition \"" + parts[i].name + "\": no running process is named \"" +
                 (*parts[i].processes)[j].pattern + "\"",
             parts[i].processes.mark, why_);
      }
    }
  }

 private:
  void Add(const profile::Partition& p, std::string what, std::string key, std::string before, std::string after,
           Compare how, std::vector<KnownRefusal> refusals) {
    Change c;
    c.section = section_;
    c.what = std::move(what);
    c.actuator = kCgroupActuator;
    c.key = std::move(key);
    c.before = std::move(before);
    c.after = std::move(after);
    c.compare = how;
    c.why = "partition \"" + p.name + "\" (" + p.mark.ToString() + "); " + why_;
    c.refusals = std::move(refusals);
    plan_.items.push_back(std::move(c));
  }

  void Note(Finding::Level level, std::string text, const profile::SourceMark& mark, const char* why) {
    plan_.findings.push_back({level, std::move(text), mark, why});
  }
  void Warn(std::string text, const profile::SourceMark& mark, const char* why) {
    Note(Finding::Level::kWarning, std::move(text), mark, why);
  }

  // A cpuset file of the cgroup as the plan shows it: kNone when the cgroup or file is not there.
  std::string Now(const std::string& cg, bool exists, const std::string& name) const {
    if (!exists) return kNone;
    auto v = be_.Get(cg, h_.Cpuset(name));
    if (v) return *v;
    return v.error().err == ENOENT ? kNone : "(unreadable: " + v.error().message + ")";
  }

  // v2: the partition type, with the kernel's own word on an invalid one (the write was taken
  // but the kernel could not honour it; the item stays pending).
  void PlanType(const profile::Partition& p, const std::string& cg, bool exists, const std::string& label) {
    const std::string file = h_.Cpuset(kpath::kCpusetPartition);
    std::string now = Now(cg, exists, kpath::kCpusetPartition);
    if (exists && now == kNone) {
      Note(Finding::Level::kError,
               "partition \"" + p.name + "\": this kernel has no " + file + "; cpuset partitions need a newer kernel",
               p.mark, kWhyV2);
    } else if (exists) {
      PartitionValue parsed = ParsePartition(now);
      if (!parsed.valid) {
        Note(Finding::Level::kError,
                 "partition \"" + p.name + "\" is invalid: " +
                     (parsed.reason.empty() ? std::string("no reason given") : parsed.reason) + " (" + file +
                     " reads \"" + now + "\")",
                 p.mark, kWhyV2);
      }
    }
    Add(p, label + " type", CgroupFileKey(cg, file), now, ToString(*p.type), Compare::kExact,
        {{EINVAL, kPartitionRefused}, {EBUSY, kPartitionBusy}});
  }

  // Marks in `used` the partition's names that match `comm`; true when any did.
  static bool MarkMatches(const profile::Partition& p, const std::string& comm, std::vector<bool>& used) {
    bool hit = false;
    for (size_t j = 0; j < p.processes->size(); ++j) {
      if ((*p.processes)[j].Matches(comm)) {
        used[j] = true;
        hit = true;
      }
    }
    return hit;
  }

  // The item that moves the process into the partition (a warning when its cgroup cannot
  // be read; nothing when it has exited).
  void PlanMove(const profile::Partition& p, const TaskView& t) {
    const std::string who = "process " + t.comm + " (pid " + std::to_string(t.pid) + ")";
    auto now = be_.CgroupOf(t.pid);
    if (!now) {
      if (now.error().err != ESRCH) {
        Warn("the cgroup of " + who + " cannot be read: " + now.error().message, p.processes.mark, why_);
      }
      return;
    }
    Add(p, who + " in partition " + p.name, CgroupProcKey(t.pid), *now, "/" + p.name, Compare::kExact,
        MoveRefusals(v2_));
  }

  const std::string section_;
  const CgroupBackend& be_;
  const CpusetHierarchy& h_;
  const bool v2_;
  const char* why_;
  SectionPlan& plan_;
};

// A cpuset that holds its CPUs apart already: a valid v2 "isolated" or "root" partition, a v1
// exclusive cpuset.
struct HeldCpuset {
  std::string cgroup;  ///< "/rt"
  std::string kind;    ///< "isolated partition", "root partition", "exclusive cpuset"
  CpuSet cpus;
  std::string undo;    ///< the command that gives its CPUs back
};

std::vector<HeldCpuset> HeldCpusets(const SysRoot& root, const CpusetHierarchy& h) {
  std::vector<HeldCpuset> out;
  auto mounts = root.Read(kpath::kMounts);
  if (!mounts) return out;
  const CgroupState st = CollectCgroups(root, ParseMounts(*mounts));
  auto undo = [&](const std::string& cg, const std::string& file, const char* value) {
    return std::string("echo ") + value + " > /" + h.CgroupPath(cg) + "/" + h.Cpuset(file);
  };
  if (h.version == 2) {
    for (const CgroupV2Cpuset& c : st.v2_cpusets) {
      if (c.path == "/" || !c.parsed.valid || (c.parsed.type != "isolated" && c.parsed.type != "root")) continue;
      const std::optional<CpuSet>& cpus = c.effective_cpus ? c.effective_cpus : c.cpus;
      if (cpus) out.push_back({c.path, c.parsed.type + " partition", *cpus, undo(c.path, kpath::kCpusetPartition, "member")});
    }
    return out;
  }
  for (const CgroupV1Cpuset& c : st.v1_cpusets) {
    if (c.path == "/" || !c.cpu_exclusive.value_or(false) || !c.cpus) continue;
    out.push_back({c.path, "exclusive cpuset", *c.cpus, undo(c.path, kpath::kCpusetCpuExclusive, "0")});
  }
  return out;
}

// True when one cgroup is the other or lies inside it ("/rt" and "/rt/loop").
bool Nested(const std::string& a, const std::string& b) {
  auto inside = [](const std::string& in, const std::string& out) {
    return in == out || (in.size() > out.size() && in.compare(0, out.size(), out) == 0 && in[out.size()] == '/');
  };
  return inside(a, b) || inside(b, a);
}

// Issue 17: a partition on CPUs another partition already holds is refused before anything is
// written. The kernel would take the write and mark one of them invalid, or refuse it (EINVAL)
// half-way through the batch. A cpuset the profile itself names (or one nested in it) is not
// another's: its CPUs are this profile's to set.
Result<void> RefuseHeldCpus(const std::vector<profile::Partition>& parts, const SysRoot& root, const CpusetHierarchy& h) {
  const std::vector<HeldCpuset> held = HeldCpusets(root, h);
  for (const profile::Partition& p : parts) {
    for (const HeldCpuset& other : held) {
      const bool ours = std::any_of(parts.begin(), parts.end(), [&](const profile::Partition& q) {
        return Nested("/" + q.name, other.cgroup);
      });
      const CpuSet both = p.cpus->cpus.Intersect(other.cpus);
      if (ours || both.Empty()) continue;
      // The sentence says it all: EBUSY is kept for the caller, without strerror's words after the hint.
      return Error{p.mark.ToString() + ": partition \"" + p.name + "\" wants " + p.cpus->cpus.Named() +
                       ", but the existing " + other.kind + " " + other.cgroup + " already holds " +
                       other.cpus.Named() + " (" + both.ToList() + " in both); nothing was planned. Give \"" + p.name +
                       "\" other CPUs, name it \"" + other.cgroup.substr(1) + "\" to take " + other.cgroup +
                       " over, or give its CPUs back first (" + other.undo + ")",
                   EBUSY};
    }
  }
  return Ok();
}

// Issue 17: a running SCHED_DEADLINE thread whose allowed CPUs would all be taken by a
// partition it is not in (nor moved into) could run nowhere: the kernel admitted its bandwidth
// on those CPUs and refuses the partition (EBUSY, cgroup-v2.rst "Cpuset"; the bandwidth test is
// dl_cpuset_cpumask_can_shrink). Refused here, before anything is written. A thread allowed on
// other CPUs too is left to the kernel's own test: its bandwidth may still fit there.
Result<void> RefuseDeadlineCpus(const std::vector<profile::Partition>& parts, const SysRoot& root,
                                const CgroupBackend& be, const SystemState& state) {
  // The state's threads when it has them (verify collects every section), else a walk that
  // reads the status and sched of deadline threads only: no other thread is tested here.
  std::optional<ThreadState> walked;
  if (!state.threads) walked = ThreadsFromTasks(root, ListTasks(root, false), RealtimeDetail::kDeadlineOnly);
  const ThreadState& threads = state.threads ? *state.threads : *walked;
  for (const ThreadInfo& t : threads.realtime) {
    if (t.policy != kSchedDeadline || !t.affinity) continue;
    for (const profile::Partition& p : parts) {
      if (!t.affinity->IsSubsetOf(p.cpus->cpus)) continue;
      auto now = be.CgroupOf(t.pid);
      if (now && *now == "/" + p.name) continue;  // it lives in that partition already
      const bool moved_in = std::any_of(p.processes->begin(), p.processes->end(),
                                        [&](const profile::Regex& r) { return r.Matches(t.process_comm); });
      if (moved_in) continue;
      return Error{p.mark.ToString() + ": partition \"" + p.name + "\" wants " + p.cpus->cpus.Named() +
                       ", but the SCHED_DEADLINE thread " + t.comm + " (tid " + std::to_string(t.tid) + " of " +
                       t.process_comm + ", pid " + std::to_string(t.pid) + ") may run only on " +
                       t.affinity->Named() + " and is not in it; nothing was planned. Add \"" + t.process_comm +
                       "\" to partitions." + p.name + ".processes, or widen that thread's affinity first",
                   EBUSY};
    }
  }
  return Ok();
}

}  // namespace

Result<SectionPlan> PartitionsTuner::Plan(const PlanContext& ctx) const {
  SectionPlan plan;
  plan.section = Section();
  const auto& parts = ctx.profile.partitions;
  if (parts.empty()) return plan;

  auto h = FindCpusetHierarchy(ctx.root);
  if (!h) return h.error();
  if (auto held = RefuseHeldCpus(parts, ctx.root, *h); !held) return held.error();
  auto made = factory_(ctx.root, nullptr, *h);
  if (!made) return made.error();
  if (auto dl = RefuseDeadlineCpus(parts, ctx.root, **made, ctx.state); !dl) return dl.error();
  PartitionPlanner planner(plan.section, **made, plan);
  const std::string top_mems = h->version == 2 ? std::string() : planner.TopMems(parts);
  planner.PlanTop(parts);
  for (const auto& p : parts) planner.PlanCgroup(p, top_mems);
  const bool any_processes = std::any_of(parts.begin(), parts.end(), [](const auto& p) { return !p.processes->empty(); });
  if (any_processes) planner.PlanProcesses(parts, ListProcesses(ctx.root));
  return plan;
}

void PartitionsTuner::AddActuators(Executor& executor, SysRoot& root) const {
  executor.AddActuator(kCgroupActuator, std::make_unique<CgroupActuator>(root, factory_));
  // The task placements a partition write disturbs are journaled and restored through
  // "affinity" (CgroupActuator::SideEffects). The ranks tuner registers the same actuator
  // over the same kind of syscall layer; this one serves a partitions-only executor.
  std::shared_ptr<SchedSyscalls> sys = sched_factory_(root, &root);
  executor.AddActuator(kAffinityActuator, std::make_unique<SchedActuator>(sys, SchedActuator::Kind::kAffinity));
}

std::unique_ptr<Tuner> MakePartitionsTuner() { return std::make_unique<PartitionsTuner>(); }

}  // namespace rtagent

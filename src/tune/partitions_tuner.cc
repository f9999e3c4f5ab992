#include "tune/partitions_tuner.h"

#include <algorithm>
#include <cerrno>

#include "base/kernel_text.h"
#include "inspect/cgroups.h"
#include "inspect/threads.h"
#include "tune/cgroup_actuator.h"
#include "tune/sched_actuator.h"

namespace rtagent {
namespace {

constexpr const char* kWhyV2 = "Real-Time Linux, Chapter 6 (partitions); cgroup-v2.rst, cpuset.cpus.partition";
constexpr const char* kWhyV1 = "Real-Time Linux, Chapter 6 (partitions); cgroup-v1/cpusets.rst, exclusive cpusets";
const std::string kNone = "(absent)";

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

}  // namespace

Result<SectionPlan> PartitionsTuner::Plan(const PlanContext& ctx) const {
  SectionPlan plan;
  plan.section = Section();
  const auto& parts = ctx.profile.partitions;
  if (parts.empty()) return plan;

  auto h = FindCpusetHierarchy(ctx.root);
  if (!h) return h.error();
  auto made = factory_(ctx.root, nullptr, *h);
  if (!made) return made.error();
  const CgroupBackend& be = **made;
  const bool v2 = h->version == 2;
  const char* why_kernel = v2 ? kWhyV2 : kWhyV1;

  auto add = [&](const profile::Partition& p, std::string what, std::string key, std::string before, std::string after,
                 Compare how, std::vector<KnownRefusal> refusals) {
    Change c;
    c.section = Section();
    c.what = std::move(what);
    c.actuator = kCgroupActuator;
    c.key = std::move(key);
    c.before = std::move(before);
    c.after = std::move(after);
    c.compare = how;
    c.why = "partition \"" + p.name + "\" (" + p.mark.ToString() + "); " + why_kernel;
    c.refusals = std::move(refusals);
    plan.items.push_back(std::move(c));
  };
  auto read = [&](const std::string& cg, const std::string& file) -> std::string {
    auto v = be.Get(cg, file);
    if (v) return *v;
    return v.error().err == ENOENT ? kNone : "(unreadable: " + v.error().message + ")";
  };

  // v1: a cpuset takes no task until it has memory nodes; it gets its parent's.
  std::string top_mems;
  if (!v2) {
    auto mems = be.Get("/", h->Cpuset(kpath::kCpusetMems));
    if (mems && !mems->empty()) {
      top_mems = *mems;
    } else {
      top_mems = "0";
      plan.findings.push_back({Finding::Level::kWarning,
                               "the top cpuset's " + h->Cpuset(kpath::kCpusetMems) +
                                   " cannot be read; the partitions get memory node 0",
                               parts.front().mark, kWhyV1});
    }
  }

  if (v2) {
    // A child has cpuset files only when its parent hands the controller down.
    auto sub = be.Get("/", kpath::kCgroupSubtreeControl);
    bool on = sub && HasWord(*sub, "cpuset");
    add(parts.front(), "cpuset controller for the cgroups below the top (cgroup.subtree_control)",
        CgroupControllerKey("/", "cpuset"), on ? "+cpuset" : "-cpuset", "+cpuset", Compare::kExact, {});
  } else {
    auto balance = be.Get("/", h->Cpuset(kpath::kCpusetSchedLoadBalance));
    bool any_isolated = false;
    for (const auto& p : parts) any_isolated |= *p.type == profile::PartitionType::kIsolated;
    if (any_isolated && balance && Trim(*balance) == "1") {
      plan.findings.push_back(
          {Finding::Level::kWarning,
           "cgroup v1: the top cpuset balances every CPU (its cpuset.sched_load_balance is 1), so a cpuset without "
           "load balancing still shares a scheduling domain with the rest unless isolcpus=domain keeps its CPUs out; "
           "rtagent leaves the top alone, because turning it off stops balancing on the housekeeping CPUs too",
           parts.front().mark, "cgroup-v1/cpusets.rst, section 1.7 (sched_load_balance)"});
    }
  }

  for (const auto& p : parts) {
    const std::string cg = "/" + p.name;
    const bool exists = be.Exists(cg);
    auto get = [&](const std::string& file) { return exists ? read(cg, file) : kNone; };
    const std::string label = "partition " + p.name;
    add(p, label + " cgroup (" + h->CgroupPath(cg) + ")", CgroupDirKey(cg), exists ? kPresent : kAbsent, kPresent,
        Compare::kExact, {});
    add(p, label + " CPUs", CgroupFileKey(cg, h->Cpuset(kpath::kCpusetCpus)), get(h->Cpuset(kpath::kCpusetCpus)),
        p.cpus->cpus.ToList(), Compare::kCpuList, {{EINVAL, kCpusRefusedEinval}, {EBUSY, kCpusRefusedEbusy}});
    if (v2) {
      const std::string file = h->Cpuset(kpath::kCpusetPartition);
      std::string now = get(file);
      if (exists) {
        PartitionValue parsed = ParsePartition(now);
        if (now == kNone) {
          plan.findings.push_back({Finding::Level::kError,
                                   "partition \"" + p.name + "\": this kernel has no " + file +
                                       "; cpuset partitions need a newer kernel",
                                   p.mark, kWhyV2});
        } else if (!parsed.valid) {
          // The write was taken but the kernel could not honour it; the item stays pending.
          plan.findings.push_back({Finding::Level::kError,
                                   "partition \"" + p.name + "\" is invalid: " +
                                       (parsed.reason.empty() ? std::string("no reason given") : parsed.reason) + " (" +
                                       file + " reads \"" + now + "\")",
                                   p.mark, kWhyV2});
        }
      }
      add(p, label + " type", CgroupFileKey(cg, file), now, ToString(*p.type), Compare::kExact,
          {{EINVAL, kPartitionRefused}, {EBUSY, kPartitionBusy}});
    } else {
      add(p, label + " memory nodes (the parent's)", CgroupFileKey(cg, h->Cpuset(kpath::kCpusetMems)),
          get(h->Cpuset(kpath::kCpusetMems)), top_mems, Compare::kCpuList, {{EINVAL, kCpusRefusedEinval}});
      add(p, label + " exclusive CPUs", CgroupFileKey(cg, h->Cpuset(kpath::kCpusetCpuExclusive)),
          get(h->Cpuset(kpath::kCpusetCpuExclusive)), "1", Compare::kInteger, {{EINVAL, kExclusiveRefused}});
      // isolated: no load balancing inside; root: one scheduling domain of its own.
      bool balance = *p.type == profile::PartitionType::kRoot;
      add(p, label + " load balancing", CgroupFileKey(cg, h->Cpuset(kpath::kCpusetSchedLoadBalance)),
          get(h->Cpuset(kpath::kCpusetSchedLoadBalance)), Bool(balance), Compare::kInteger, {});
    }
  }

  // Processes: user processes only (a kernel thread is never moved into a partition); the
  // first partition that names a process takes it.
  const bool any_processes = std::any_of(parts.begin(), parts.end(), [](const auto& p) { return !p.processes->empty(); });
  if (!any_processes) return plan;
  std::vector<TaskView> procs = ListProcesses(ctx.root);
  std::vector<std::vector<bool>> used(parts.size());
  for (size_t i = 0; i < parts.size(); ++i) used[i].assign(parts[i].processes->size(), false);
  for (const TaskView& t : procs) {
    if (t.Kthread()) continue;
    for (size_t i = 0; i < parts.size(); ++i) {
      const auto& p = parts[i];
      bool hit = false;
      for (size_t j = 0; j < p.processes->size(); ++j) {
        if ((*p.processes)[j].Matches(t.comm)) {
          used[i][j] = true;
          hit = true;
        }
      }
      if (!hit) continue;
      auto now = be.CgroupOf(t.pid);
      if (!now) {
        if (now.error().err != ESRCH) {
          plan.findings.push_back({Finding::Level::kWarning,
                                   "the cgroup of process " + t.comm + " (pid " + std::to_string(t.pid) +
                                       ") cannot be read: " + now.error().message,
                                   p.processes.mark, why_kernel});
        }
        break;
      }
      std::vector<KnownRefusal> refusals = {
          {ESRCH, "the process exited"},
          {EINVAL, "the kernel refused the move (EINVAL): a per-CPU kernel thread, or a thread pinned outside the "
                   "partition's CPUs"},
          {EBUSY, "the partition cannot take it (EBUSY): its SCHED_DEADLINE bandwidth does not fit there, or the "
                  "cgroup has child cgroups"}};
      if (!v2) refusals.push_back({ENOSPC, "the cpuset has no CPUs or memory nodes yet (ENOSPC)"});
      add(p, "process " + t.comm + " (pid " + std::to_string(t.pid) + ") in partition " + p.name,
          CgroupProcKey(t.pid), *now, "/" + p.name, Compare::kExact, std::move(refusals));
      break;
    }
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    for (size_t j = 0; j < used[i].size(); ++j) {
      if (used[i][j]) continue;
      plan.findings.push_back({Finding::Level::kWarning,
                               "partition \"" + parts[i].name + "\": no running process is named \"" +
                                   (*parts[i].processes)[j].pattern + "\"",
                               parts[i].processes.mark, why_kernel});
    }
  }
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

#include "tune/cgroup_actuator.h"

#include <cerrno>

#include "base/kernel_text.h"
#include "inspect/cgroups.h"
#include "inspect/threads.h"
#include "tune/sched_actuator.h"

namespace rtagent {

std::string CgroupDirKey(const std::string& cgroup) { return "dir:" + cgroup; }
std::string CgroupFileKey(const std::string& cgroup, const std::string& file) { return "file:" + cgroup + ":" + file; }
std::string CgroupControllerKey(const std::string& cgroup, const std::string& controller) {
  return "controller:" + cgroup + ":" + controller;
}
std::string CgroupProcKey(int pid) { return "proc:" + std::to_string(pid); }

namespace {

struct ParsedKey {
  std::string kind;
  std::string cgroup;
  std::string name;  // the file or the controller
  int pid = 0;
};

Result<ParsedKey> ParseKey(const std::string& key) {
  ParsedKey k;
  size_t colon = key.find(':');
  if (colon == std::string::npos) return InvalidInput("not a cgroup key: \"" + key + "\"");
  k.kind = key.substr(0, colon);
  std::string rest = key.substr(colon + 1);
  if (k.kind == "dir") {
    k.cgroup = rest;
  } else if (k.kind == "file" || k.kind == "controller") {
    size_t last = rest.rfind(':');
    if (last == std::string::npos) return InvalidInput("not a cgroup key: \"" + key + "\"");
    k.cgroup = rest.substr(0, last);
    k.name = rest.substr(last + 1);
  } else if (k.kind == "proc") {
    auto pid = ParseInt(rest);
    if (!pid || *pid <= 0) return InvalidInput("not a cgroup key: \"" + key + "\"");
    k.pid = static_cast<int>(*pid);
  } else {
    return InvalidInput("not a cgroup key: \"" + key + "\"");
  }
  if (k.kind != "proc" && (k.cgroup.empty() || k.cgroup.front() != '/')) {
    return InvalidInput("cgroup paths start with '/': \"" + key + "\"");
  }
  return k;
}

}  // namespace

Result<CgroupBackend*> CgroupActuator::Backend() {
  if (backend_) return backend_.get();
  auto h = FindCpusetHierarchy(root_);
  if (!h) return h.error();
  auto b = factory_(root_, &root_, *h);
  if (!b) return b.error();
  backend_ = std::move(*b);
  return backend_.get();
}

Result<std::string> CgroupActuator::Read(const std::string& key) {
  auto k = ParseKey(key);
  if (!k) return k.error();
  auto b = Backend();
  if (!b) return b.error();
  CgroupBackend& be = **b;
  if (k->kind == "dir") return std::string(be.Exists(k->cgroup) ? kPresent : kAbsent);
  if (k->kind == "file") return be.Get(k->cgroup, k->name);
  if (k->kind == "controller") {
    auto text = be.Get(k->cgroup, kpath::kCgroupSubtreeControl);
    if (!text) return text.error();
    return (HasWord(*text, k->name) ? "+" : "-") + k->name;
  }
  return be.CgroupOf(k->pid);
}

Result<void> CgroupActuator::Write(const std::string& key, const std::string& value) {
  auto k = ParseKey(key);
  if (!k) return k.error();
  auto b = Backend();
  if (!b) return b.error();
  CgroupBackend& be = **b;
  if (k->kind == "dir") {
    if (value == kPresent) return be.Exists(k->cgroup) ? Ok() : be.Create(k->cgroup);
    if (value == kAbsent) return be.Exists(k->cgroup) ? be.Remove(k->cgroup) : Ok();
    return InvalidInput("cgroup " + k->cgroup + ": expected \"present\" or \"absent\", got \"" + value + "\"");
  }
  if (k->kind == "file") return be.Set(k->cgroup, k->name, value);
  if (k->kind == "controller") {
    if (value != "+" + k->name && value != "-" + k->name) {
      return InvalidInput("controller " + k->name + " of " + k->cgroup + ": expected +" + k->name + " or -" + k->name);
    }
    return be.Set(k->cgroup, kpath::kCgroupSubtreeControl, value);
  }
  return be.Move(k->pid, value);
}

// Which tasks the kernel re-places (kernel/cgroup/cpuset.c; Documentation/admin-guide/
// cgroup-v2.rst, "cpuset.cpus.partition"): a valid partition takes its CPUs out of its parent's
// cpuset.cpus.effective and gives them back when it becomes a member again (or its CPUs
// change). update_cpumasks_hier() then calls update_tasks_cpumask() on the parent and on every
// member cgroup below it whose effective CPUs follow, which sets each task's affinity to the new
// effective CPUs. On 6.1 that drops whatever affinity the task had: one set with
// sched_setaffinity, or the housekeeping CPUs every task inherits from isolcpus=domain (from
// 6.2 a mask set with sched_setaffinity survives, intersected). Only per-CPU kernel threads of
// the top cpuset are skipped. So after a partition comes and goes, init and every other task
// of the top cgroup runs on all CPUs. Attaching a task to a cpuset (cpuset_attach(), v1 and
// v2) likewise sets its affinity to the cpuset's CPUs. Taking every thread outside the
// partition's subtree is a little wider than the kernel's walk (a sibling whose CPUs do not
// change keeps its tasks' affinity), which only costs reads: revert finds those already back.
Result<std::vector<SideEffect>> CgroupActuator::SideEffects(const std::string& key, const std::string& value) {
  auto k = ParseKey(key);
  if (!k) return k.error();
  std::vector<SideEffect> out;
  // A thread named by its own name, or, known by its ids alone (ListTasksByProcess), by its process's.
  auto keep = [&](int pid, int tid, const std::string& comm, const std::string& process_comm, const std::string& why) {
    const std::string task = TaskKey({pid, tid});
    const std::string name = !comm.empty() ? comm : !process_comm.empty() ? "a thread of " + process_comm : "task";
    out.push_back({kAffinityActuator, task, "affinity of " + name + " (" + task + "), kept: " + why, Compare::kCpuList});
  };
  if (k->kind == "proc") {
    auto tids = root_.List(kpath::TaskDir(k->pid));
    if (!tids) return out;  // gone: the move itself answers ESRCH
    for (const auto& name : *tids) {
      auto tid = ParseInt(name);
      if (!tid) continue;
      keep(k->pid, static_cast<int>(*tid), "", "", "moving process " + std::to_string(k->pid) + " to " + value +
                                                   " sets it to the cpuset's CPUs");
    }
    return out;
  }
  if (k->kind != "file") return out;
  auto b = Backend();
  if (!b) return b.error();
  CgroupBackend& be = **b;
  const CpusetHierarchy& h = be.hierarchy();
  if (h.version != 2) return out;  // v1: cpu_exclusive and sched_load_balance leave the parent's tasks alone
  const bool partition_file = k->name == h.Cpuset(kpath::kCpusetPartition);
  if (!partition_file && k->name != h.Cpuset(kpath::kCpusetCpus)) return out;
  if (!partition_file) {
    // The CPUs of a member cgroup are within its parent's: its parent's tasks keep theirs.
    auto now = be.Get(k->cgroup, h.Cpuset(kpath::kCpusetPartition));
    if (!now || ParsePartition(*now).type == "member") return out;
  }
  const std::string why = "the kernel re-places it when " + k->cgroup + "'s " + k->name + " changes";
  int checked_pid = 0;
  bool inside = false;
  // Whether a thread is a kernel thread, and which process it belongs to, is all this walk
  // needs: each process's main thread is read, the other threads of a user process listed.
  for (const TaskView& t : ListTasksByProcess(root_)) {
    if (t.PerCpuKthread()) continue;  // the kernel leaves them on their CPU
    if (t.pid != checked_pid) {
      checked_pid = t.pid;
      inside = false;
      // Kernel threads stay in the top cgroup; a user process may be inside the partition.
      if (!t.Kthread()) {
        auto cg = be.CgroupOf(t.pid);
        inside = cg && (*cg == k->cgroup || cg->rfind(k->cgroup + "/", 0) == 0);
      }
    }
    if (!inside) keep(t.pid, t.tid, t.comm, t.process_comm, why);
  }
  return out;
}

}  // namespace rtagent

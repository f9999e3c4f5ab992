// ranks: scheduling policy, priority and CPU affinity of the threads the profile's rank rules
// match (kernel threads such as irq/*-eth0 and ktimers/*, named processes), and the declared
// rank order checked on the threads found (the lesson's chapters 2 and 4: the IRQ thread that
// feeds the loop above the loop, the loop above every other IRQ thread).
#pragma once

#include <string>
#include <vector>

#include "tune/sched_actuator.h"
#include "tune/tuner.h"

namespace rtagent {

/// A thread as the ranks and partitions tuners match it.
struct TaskView {
  int pid = 0;
  int tid = 0;
  std::string comm;          ///< the thread's name
  std::string process_comm;  ///< its process's name (the main thread's comm)
  std::string cmdline;       ///< the process's arguments joined by spaces ("" for kernel threads)
  unsigned long flags = 0;   ///< PF_* (stat field 9)
  int policy = 0;            ///< current policy (stat field 41)
  unsigned rt_priority = 0;  ///< current rt priority (stat field 40)
  long nice = 0;
  bool Kthread() const;
  /// A kernel thread bound to its CPU (PF_NO_SETAFFINITY): the kernel refuses to move it.
  bool PerCpuKthread() const;
  /// A threaded interrupt handler: "irq/<line>-<device>" (Chapter 4).
  bool IrqThread() const;
};

/// Every thread under proc/ (or only each process's main thread), sorted by (pid, tid), read
/// from proc/PID/task/TID/stat; the command line from proc/PID/cmdline only when `cmdlines`.
/// Threads that exit during the walk are skipped.
std::vector<TaskView> ListTasks(const SysRoot& root, bool cmdlines, bool main_threads_only = false);

/// True when every matcher of `rule` (threads, process, cmdline) matches `task`. A rule
/// without a matcher matches nothing.
bool RankRuleMatches(const profile::RankRule& rule, const TaskView& task);

class RanksTuner : public Tuner {
 public:
  /// `factory` makes the syscall layer: live syscalls on the running system, the fixture twin
  /// under --root (DefaultSchedFactory); tests pass fakes that inject errors.
  explicit RanksTuner(SchedFactory factory = DefaultSchedFactory()) : factory_(std::move(factory)) {}
  std::string Section() const override { return "ranks"; }
  int Chapter() const override { return 4; }
  /// One "affinity" item (when the rule sets cpus) and one "sched" item (when it sets a
  /// policy) per matched thread, in rule order. A thread matched by several rules takes the
  /// first in file order. Findings: rules that match nothing (warning), rank order and
  /// Chapter 4 violations on the matched threads (error, at the line of ranks.order).
  Result<SectionPlan> Plan(const PlanContext& ctx) const override;
  /// Registers "sched" and "affinity", sharing one syscall layer made by the factory.
  void AddActuators(Executor& executor, SysRoot& root) const override;

 private:
  SchedFactory factory_;
};

/// The registry's constructor for the ranks section.
std::unique_ptr<Tuner> MakeRanksTuner();

}  // namespace rtagent

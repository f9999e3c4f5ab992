// Threads: reading them from proc/PID/task/TID (one stat parser, one walk), every real-time
// thread with its policy, priority and affinity, and a summary of the per-CPU kernel threads
// (ksoftirqd/N, ktimers/N, rcuc/N, ...). The tuners, the checks and the load placement proof
// list threads here.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/cpuset.h"
#include "base/sysroot.h"

namespace rtagent {

/// Scheduling policies as numbered by sched_setscheduler(2) / include/uapi/linux/sched.h.
enum SchedPolicy : int {
  kSchedOther = 0,
  kSchedFifo = 1,
  kSchedRr = 2,
  kSchedBatch = 3,
  kSchedIdle = 5,
  kSchedDeadline = 6,
  kSchedExt = 7,
};
/// "other", "fifo", "rr", "batch", "idle", "deadline", "ext", or "policyN".
std::string PolicyName(int policy);
/// The kernel number of a class PolicyName gives ("fifo" -> SCHED_FIFO); nullopt for any other word.
std::optional<int> PolicyFromName(std::string_view name);
/// FIFO, RR and DEADLINE: the policies that outrank every normal task.
bool IsRealtimePolicy(int policy);

// Task flags from include/linux/sched.h, shown in field 9 of stat.
inline constexpr unsigned long kPfKthread = 0x00200000;
inline constexpr unsigned long kPfNoSetaffinity = 0x04000000;

/// The fields of /proc/PID/task/TID/stat rtagent uses (proc(5), fs/proc/array.c).
struct TaskStat {
  int tid = 0;                ///< field 1
  std::string comm;           ///< field 2, without the parentheses
  char state = '?';           ///< field 3
  int ppid = 0;               ///< field 4
  int pgrp = 0;               ///< field 5, the process group
  unsigned long flags = 0;    ///< field 9 (PF_*)
  long priority = 0;          ///< field 18 (kernel view: -1 - rt_priority for RT tasks)
  long nice = 0;              ///< field 19
  int processor = -1;         ///< field 39, the CPU it last ran on
  unsigned rt_priority = 0;   ///< field 40
  int policy = 0;             ///< field 41
};

/// Parses a stat line. comm sits in parentheses and may itself hold spaces and ')', so the
/// fields after it are found from the last ')'. nullopt on a malformed or short line (a line
/// without field 41 is refused, not read as CPU 0 or policy 0).
std::optional<TaskStat> ParseTaskStat(std::string_view text);

/// A thread as the rank rules, the partitions and the load placement proof see it: its stat
/// line (tid is the thread's id), and what its process adds.
struct TaskView : TaskStat {
  int pid = 0;               ///< its process (thread group)
  std::string process_comm;  ///< its process's name (the main thread's comm)
  std::string cmdline;       ///< the process's arguments joined by spaces ("" for kernel threads, or unread)
  bool Kthread() const;
  /// A kernel thread bound to its CPU (PF_NO_SETAFFINITY): the kernel refuses to move it.
  bool PerCpuKthread() const;
  /// A threaded interrupt handler: "irq/<line>-<device>" (Real-Time Linux, Chapter 4).
  bool IrqThread() const;
};

/// Every thread under proc/, sorted by (pid, tid), from proc/PID/task/TID/stat; the command
/// line from proc/PID/cmdline only when `cmdlines`. Threads that exit during the walk are
/// skipped.
std::vector<TaskView> ListTasks(const SysRoot& root, bool cmdlines);
/// Every thread under proc/, sorted by (pid, tid), reading only each process's main thread's
/// stat line: a kernel thread is a process of one thread, so the other threads of a process
/// are user threads, listed from proc/PID/task and known by their ids alone (comm empty,
/// flags 0, process_comm set). For a walk that needs only which threads are kernel threads
/// and where they belong (CgroupActuator::SideEffects): on a server of 20,000 threads in 5,700
/// processes it reads 5,700 stat lines instead of 20,000. A process whose main thread has
/// exited is read thread by thread, as ListTasks does. No command lines.
std::vector<TaskView> ListTasksByProcess(const SysRoot& root);
/// Each process's main thread (proc/PID/task/PID/stat), sorted by pid; no command lines.
std::vector<TaskView> ListProcesses(const SysRoot& root);
/// The threads of one process, sorted by tid; empty when it has gone.
std::vector<TaskView> ListProcessThreads(const SysRoot& root, int pid);

/// SCHED_DEADLINE parameters from /proc/PID/task/TID/sched (kernel/sched/debug.c prints
/// dl.runtime and dl.deadline; the period is only known to sched_getattr(2)).
struct DeadlineParams {
  std::optional<long long> runtime_ns;
  std::optional<long long> deadline_ns;
};
/// Parses the dl.runtime and dl.deadline lines of a sched file.
DeadlineParams ParseSchedDeadline(std::string_view text);

/// One real-time thread.
struct ThreadInfo {
  int pid = 0;  ///< the thread group (process)
  int tid = 0;
  std::string comm;          ///< the thread's name
  std::string process_comm;  ///< the name of its process (the thread whose tid == pid)
  int policy = 0;
  unsigned priority = 0;     ///< rt_priority (1..99; 0 for DEADLINE)
  std::optional<CpuSet> affinity;  ///< Cpus_allowed_list from status (deadline threads only under RealtimeDetail::kDeadlineOnly)
  int last_cpu = -1;
  bool kthread = false;
  bool per_cpu_kthread = false;  ///< kernel thread bound to its CPU (PF_NO_SETAFFINITY)
  std::optional<DeadlineParams> deadline;
};

/// Per-CPU kernel threads of one kind, e.g. "ksoftirqd/N": how many, at which policies.
struct KthreadGroup {
  std::string pattern;
  int count = 0;
  std::map<std::string, int> by_policy;
};

/// What inspect's "threads" section shows.
struct ThreadState {
  int processes = 0;
  int threads = 0;
  int kthreads = 0;
  std::map<std::string, int> by_policy;  ///< every thread, by policy name
  std::vector<ThreadInfo> realtime;      ///< FIFO/RR/DEADLINE threads, sorted by (pid, tid)
  std::vector<KthreadGroup> per_cpu_kthreads;  ///< sorted by pattern
};

/// "ksoftirqd/3" -> "ksoftirqd/N", "kworker/3:1H-kblockd" -> "kworker/N",
/// "kworker/u16:2" -> "kworker/uN", "kworker/R-kblockd" -> "kworker/R",
/// "irq/45-eth0" -> "irq/N-eth0": the name with its CPU (or IRQ) number, the first number
/// after the '/', folded, for grouping.
std::string ThreadPattern(std::string_view comm);

/// ThreadsFromTasks(root, ListTasks(root, false)), a process at a time: no list of every thread
/// is held. status and sched are read for real-time threads only; exited threads are skipped.
ThreadState CollectThreads(const SysRoot& root);
/// What ThreadsFromTasks reads of each real-time thread beyond its stat line.
enum class RealtimeDetail {
  kAll,           ///< its affinity (status), and a deadline thread's parameters (sched): inspect shows them
  kDeadlineOnly,  ///< a deadline thread's affinity and parameters only: all that planning reads
                  ///< (the partitions tuner's deadline test); the ranks tuner asks each thread's
                  ///< affinity itself, so status read here for every other thread went unused
};
/// The same, from a list ListTasks(root, ...) already gave (the status and sched files of the
/// real-time threads are still read from `root`, as `detail` says).
ThreadState ThreadsFromTasks(const SysRoot& root, const std::vector<TaskView>& tasks,
                             RealtimeDetail detail = RealtimeDetail::kAll);

}  // namespace rtagent

// A thread's scheduling class as rtagent names and compares it: the thread's key ("PID/TID")
// and the canonical text of its class ("fifo:80", "other:nice=0", "deadline:runtime=...").
// The ranks tuner plans in this text, the "sched" actuator reads and writes it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace rtagent {

/// One thread: its process (thread group) and its own id.
struct TaskId {
  int pid = 0;
  int tid = 0;
};

/// The actuator key of a thread: "PID/TID".
std::string TaskKey(const TaskId& t);
/// Parses "PID/TID" (or a bare "TID", taken as its own process).
Result<TaskId> ParseTaskKey(std::string_view key);

/// What sched_getattr(2) reports and sched_setattr(2) takes, in rtagent's terms.
struct SchedAttr {
  int policy = 0;     ///< SCHED_* number (inspect/threads.h SchedPolicy)
  int priority = 0;   ///< fifo/rr: 1..99
  int nice = 0;       ///< other/batch/idle: -20..19
  long long runtime_ns = -1;   ///< deadline; -1 when not known (a fixture without it)
  long long deadline_ns = -1;
  long long period_ns = -1;
  uint64_t flags = 0;  ///< SCHED_FLAG_*; only RESET_ON_FORK is carried over by a write
};

struct TaskStat;

/// What sched_getattr(2) reports for the thread whose stat line this is, for every class but
/// deadline: fs/proc/array.c prints the policy (field 41), rt_priority (40) and the nice value
/// (19), which is all the syscall returns for them (kernel/sched/syscalls.c, get_params: the
/// priority for fifo/rr, the nice value for the normal classes, 0 for what does not apply).
/// nullopt for a deadline thread, whose parameters only sched_getattr (or the sched file) knows.
std::optional<SchedAttr> SchedAttrOfStat(const TaskStat& st);

/// The canonical text of a scheduling class, the value plan prints and compares exactly:
/// "fifo:80", "rr:10", "other:nice=0", "batch:nice=5", "idle",
/// "deadline:runtime=300000,deadline=1000000,period=1000000" (ns; "?" for an unknown field).
std::string FormatSched(const SchedAttr& a);
/// Parses FormatSched's text; an Error (EINVAL) for anything else.
Result<SchedAttr> ParseSched(std::string_view text);

}  // namespace rtagent

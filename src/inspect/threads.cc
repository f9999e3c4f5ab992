#include "inspect/threads.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"

namespace rtagent {

namespace {
// The scheduling classes by their kernel number (include/uapi/linux/sched.h) and the name
// rtagent gives each in the JSON, the journal and the profile language.
struct PolicyRow {
  int policy;
  const char* name;
};
constexpr PolicyRow kPolicies[] = {{kSchedOther, "other"}, {kSchedFifo, "fifo"}, {kSchedRr, "rr"},
                                   {kSchedBatch, "batch"}, {kSchedIdle, "idle"}, {kSchedDeadline, "deadline"},
                                   {kSchedExt, "ext"}};
}  // namespace

std::string PolicyName(int policy) {
  for (const PolicyRow& r : kPolicies) {
    if (r.policy == policy) return r.name;
  }
  return "policy" + std::to_string(policy);
}

std::optional<int> PolicyFromName(std::string_view name) {
  for (const PolicyRow& r : kPolicies) {
    if (name == r.name) return r.policy;
  }
  return std::nullopt;
}

bool IsRealtimePolicy(int policy) {
  return policy == kSchedFifo || policy == kSchedRr || policy == kSchedDeadline;
}

std::optional<TaskStat> ParseTaskStat(std::string_view text) {
  size_t open = text.find('(');
  size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::nullopt;
  TaskStat s;
  auto tid = ParseInt(text.substr(0, open));
  if (!tid) return std::nullopt;
  s.tid = static_cast<int>(*tid);
  s.comm = std::string(text.substr(open + 1, close - open - 1));
  // rest[0] is field 3 (state), so field N is rest[N - 3]. Only fields 3 to 41 are read: split
  // that far into a fixed array (inspect parses 20,000 of these lines on a large server; a
  // vector of all 52 fields per line was 4 % of its user time).
  std::array<std::string_view, 39> rest;
  if (SplitWsInto(text.substr(close + 1), rest.data(), rest.size()) < rest.size()) return std::nullopt;
  auto num = [&](int field) { return ParseInt(rest[static_cast<size_t>(field - 3)]); };
  s.state = rest[0].empty() ? '?' : rest[0].front();
  auto ppid = num(4);
  auto pgrp = num(5);
  auto flags = ParseUint(rest[6]);
  auto prio = num(18);
  auto nice = num(19);
  auto cpu = num(39);
  auto rtprio = num(40);
  auto policy = num(41);
  if (!ppid || !pgrp || !flags || !prio || !nice || !cpu || !rtprio || !policy) return std::nullopt;
  s.ppid = static_cast<int>(*ppid);
  s.pgrp = static_cast<int>(*pgrp);
  s.flags = static_cast<unsigned long>(*flags);
  s.priority = static_cast<long>(*prio);
  s.nice = static_cast<long>(*nice);
  s.processor = static_cast<int>(*cpu);
  s.rt_priority = static_cast<unsigned>(*rtprio);
  s.policy = static_cast<int>(*policy);
  return s;
}

DeadlineParams ParseSchedDeadline(std::string_view text) {
  DeadlineParams d;
  for (auto line : SplitLines(text)) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = TrimView(line.substr(0, colon));
    auto value = ParseInt(line.substr(colon + 1));
    if (key == "dl.runtime") d.runtime_ns = value;
    else if (key == "dl.deadline") d.deadline_ns = value;
  }
  return d;
}

std::string ThreadPattern(std::string_view comm) {
  size_t slash = comm.find('/');
  if (slash == std::string_view::npos) return std::string(comm);
  std::string_view tail = comm.substr(slash + 1);
  // Workqueue workers: "kworker/3:1H-kblockd" - the pool, the worker and its current
  // workqueue change all the time; only the CPU (or "u" for unbound) is a stable kind.
  // Rescuers are "kworker/R-kblockd" (6.x): one kind, whatever the workqueue.
  if (comm.substr(0, slash) == "kworker") {
    tail = tail.substr(0, tail.find(':'));
    tail = tail.substr(0, tail.find('-'));
  }
  // Only the first number after the '/' is the CPU or IRQ: "irq/45-eth0" keeps its "eth0".
  std::string out(comm.substr(0, slash + 1));
  size_t d = 0;
  while (d < tail.size() && !std::isdigit(static_cast<unsigned char>(tail[d]))) ++d;
  out += tail.substr(0, d);
  if (d == tail.size()) return out;
  out += 'N';
  while (d < tail.size() && std::isdigit(static_cast<unsigned char>(tail[d]))) ++d;
  out += tail.substr(d);
  return out;
}

bool TaskView::Kthread() const { return (flags & kPfKthread) != 0; }
bool TaskView::PerCpuKthread() const { return Kthread() && (flags & kPfNoSetaffinity) != 0; }
bool TaskView::IrqThread() const { return Kthread() && comm.rfind("irq/", 0) == 0; }

namespace {

// The directory's ids name the thread, whatever its stat line says.
TaskView ViewOf(int pid, int tid, TaskStat&& st) {
  TaskView v;
  static_cast<TaskStat&>(v) = std::move(st);
  v.pid = pid;
  v.tid = tid;
  return v;
}

// How much of a process a walk reads.
enum class Depth {
  kMain,     ///< its main thread's stat line only
  kEvery,    ///< every thread's stat line
  kUserIds,  ///< its main thread's stat line; a user process's other threads by id only
};

// The thread ids of process `pid`, from proc/PID/task; nullopt when the process has gone.
std::optional<std::vector<int>> ThreadIds(const SysRoot& root, int pid) {
  auto names = root.List(kpath::TaskDir(pid));
  if (!names) return std::nullopt;
  std::vector<int> tids;
  tids.reserve(names->size());
  for (const auto& n : *names) {
    if (auto t = ParseInt(n)) tids.push_back(static_cast<int>(*t));
  }
  return tids;
}

// Depth::kUserIds: the main thread's stat line first. A kernel thread has no other thread, and
// a user process's others are listed, not read. False, with nothing appended, when the main
// thread cannot be read (it exited before the others): the caller then reads every thread.
bool AppendByIds(const SysRoot& root, int pid, std::vector<TaskView>& out) {
  auto text = root.Read(kpath::TaskStat(pid, pid));
  auto st = text ? ParseTaskStat(*text) : std::nullopt;
  if (!st) return false;
  const size_t first = out.size();
  out.push_back(ViewOf(pid, pid, std::move(*st)));
  // The others are known by their ids alone, flags 0, which is what their stat lines would say
  // of them: a kernel thread is a process of one thread (kthreadd creates each without
  // CLONE_THREAD), so every other thread of a process whose main thread is not PF_KTHREAD is
  // a user thread.
  if (!out.back().Kthread()) {
    for (int t : ThreadIds(root, pid).value_or(std::vector<int>{})) {
      if (t != pid) out.push_back(ViewOf(pid, t, TaskStat{}));
    }
  }
  for (size_t i = first; i < out.size(); ++i) out[i].process_comm = out[first].comm;
  return true;
}

// Appends the threads of process `pid` (as `depth` says), each with its process's name and,
// when `cmdlines`, its command line. Nothing when the process has gone.
void AppendProcess(const SysRoot& root, int pid, Depth depth, bool cmdlines, std::vector<TaskView>& out) {
  if (depth == Depth::kUserIds && AppendByIds(root, pid, out)) return;
  const size_t first = out.size();
  std::string process_comm;
  std::vector<int> tids;
  if (depth == Depth::kMain) {
    tids.push_back(pid);
  } else if (auto ids = ThreadIds(root, pid)) {
    tids = std::move(*ids);
  } else {
    return;  // exited since the listing
  }
  for (int t : tids) {
    auto text = root.Read(kpath::TaskStat(pid, t));
    if (!text) continue;
    auto st = ParseTaskStat(*text);
    if (!st) continue;
    if (t == pid) process_comm = st->comm;
    out.push_back(ViewOf(pid, t, std::move(*st)));
  }
  if (out.size() == first) return;
  if (process_comm.empty()) {
    // The main thread has exited but others live on: its comm is still in proc/PID/stat.
    if (auto text = root.Read(kpath::ProcStat(pid))) {
      if (auto st = ParseTaskStat(*text)) process_comm = st->comm;
    }
  }
  std::string cmdline;
  if (cmdlines && !out[first].Kthread()) {
    if (auto raw = root.Read(kpath::ProcCmdline(pid))) {
      // Arguments end with NULs (proc(5)); a process may rewrite it with spaces itself.
      cmdline = *raw;
      std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
      cmdline = Trim(cmdline);
    }
  }
  for (size_t i = first; i < out.size(); ++i) {
    out[i].process_comm = process_comm;
    out[i].cmdline = cmdline;
  }
}

void SortByIds(std::vector<TaskView>& tasks) {
  std::sort(tasks.begin(), tasks.end(),
            [](const TaskView& a, const TaskView& b) { return a.pid != b.pid ? a.pid < b.pid : a.tid < b.tid; });
}

// Before the next of `entries` entries of proc/ (`seen` looked at so far): when the list is
// nearly full, room for the rest, projected from the threads per entry so far and a tenth
// more, so a large server's 20,000 threads are not moved through a doubling vector. 64 is
// room for the next process before the vector would double; growing by a quarter at least
// keeps the growth geometric when the projection falls short.
void MakeRoom(std::vector<TaskView>& out, size_t seen, size_t entries) {
  if (out.size() + 64 <= out.capacity()) return;
  const size_t projected = out.size() + out.size() * (entries - seen + 1) / seen + out.size() / 10;
  out.reserve(std::max(projected, out.capacity() + out.capacity() / 4 + 64));
}

std::vector<TaskView> Walk(const SysRoot& root, Depth depth, bool cmdlines) {
  std::vector<TaskView> out;
  auto pids = root.List(kpath::kProc);
  if (!pids) return out;
  out.reserve(pids->size());
  size_t seen = 0;
  for (const auto& pname : *pids) {
    ++seen;
    if (pname.empty() || !std::isdigit(static_cast<unsigned char>(pname.front()))) continue;
    if (depth != Depth::kMain) MakeRoom(out, seen, pids->size());
    if (auto pid = ParseInt(pname)) AppendProcess(root, static_cast<int>(*pid), depth, cmdlines, out);
  }
  SortByIds(out);
  return out;
}

}  // namespace

std::vector<TaskView> ListTasks(const SysRoot& root, bool cmdlines) { return Walk(root, Depth::kEvery, cmdlines); }

std::vector<TaskView> ListTasksByProcess(const SysRoot& root) { return Walk(root, Depth::kUserIds, false); }

std::vector<TaskView> ListProcesses(const SysRoot& root) { return Walk(root, Depth::kMain, false); }

std::vector<TaskView> ListProcessThreads(const SysRoot& root, int pid) {
  std::vector<TaskView> out;
  AppendProcess(root, pid, Depth::kEvery, false, out);
  SortByIds(out);
  return out;
}

namespace {

// Cpus_allowed_list of the thread's status; nullopt when it cannot be read (it exited).
std::optional<CpuSet> AffinityOfStatus(const SysRoot& root, const TaskView& t) {
  auto status = root.Read(kpath::TaskStatus(t.pid, t.tid));
  if (!status) return std::nullopt;
  auto list = FindKeyValue(*status, "Cpus_allowed_list");
  if (!list) return std::nullopt;
  auto cpus = CpuSet::ParseList(*list);
  if (!cpus) return std::nullopt;
  return *cpus;
}

}  // namespace

namespace {

// Folds thread `t` into `st`: its counts, its per-CPU kernel thread group, and, for a
// real-time thread, its entry (with what `detail` reads of it). The caller counts processes.
void Tally(const SysRoot& root, const TaskView& t, RealtimeDetail detail, ThreadState& st,
           std::map<std::string, KthreadGroup>& groups) {
  ++st.threads;
  ++st.by_policy[PolicyName(t.policy)];
  if (t.Kthread()) ++st.kthreads;
  if (t.PerCpuKthread()) {
    std::string pattern = ThreadPattern(t.comm);
    auto& g = groups[pattern];
    g.pattern = pattern;
    ++g.count;
    ++g.by_policy[PolicyName(t.policy)];
  }
  if (!IsRealtimePolicy(t.policy)) return;
  ThreadInfo info;
  info.pid = t.pid;
  info.tid = t.tid;
  info.comm = t.comm;
  info.process_comm = t.process_comm;
  info.policy = t.policy;
  info.priority = t.rt_priority;
  info.last_cpu = t.processor;
  info.kthread = t.Kthread();
  info.per_cpu_kthread = t.PerCpuKthread();
  const bool deadline = t.policy == kSchedDeadline;
  if (detail == RealtimeDetail::kAll || deadline) {
    info.affinity = AffinityOfStatus(root, t);
  }
  if (deadline) {
    if (auto sched = root.Read(kpath::TaskSched(t.pid, t.tid))) info.deadline = ParseSchedDeadline(*sched);
  }
  st.realtime.push_back(std::move(info));
}

void FinishGroups(std::map<std::string, KthreadGroup>& groups, ThreadState& st) {
  for (auto& [pattern, g] : groups) st.per_cpu_kthreads.push_back(std::move(g));
}

}  // namespace

// One process at a time, each folded in and let go: the 20,000 threads of a large server are
// never held as a list (that list was inspect's peak memory, 9.6 of its 12 MB of heap;
// docs/performance.md). The same state as ThreadsFromTasks(root, ListTasks(root, false)).
ThreadState CollectThreads(const SysRoot& root) {
  ThreadState st;
  auto pids = root.List(kpath::kProc);
  if (!pids) return st;
  std::map<std::string, KthreadGroup> groups;
  std::vector<TaskView> threads;
  for (const auto& pname : *pids) {
    if (pname.empty() || !std::isdigit(static_cast<unsigned char>(pname.front()))) continue;
    auto pid = ParseInt(pname);
    if (!pid) continue;
    threads.clear();
    AppendProcess(root, static_cast<int>(*pid), Depth::kEvery, false, threads);
    if (threads.empty()) continue;
    ++st.processes;
    for (const TaskView& t : threads) Tally(root, t, RealtimeDetail::kAll, st, groups);
  }
  std::sort(st.realtime.begin(), st.realtime.end(),
            [](const ThreadInfo& a, const ThreadInfo& b) { return a.pid != b.pid ? a.pid < b.pid : a.tid < b.tid; });
  FinishGroups(groups, st);
  return st;
}

ThreadState ThreadsFromTasks(const SysRoot& root, const std::vector<TaskView>& tasks, RealtimeDetail detail) {
  ThreadState st;
  std::map<std::string, KthreadGroup> groups;
  int last_pid = 0;
  for (const TaskView& t : tasks) {
    if (t.pid != last_pid) ++st.processes;
    last_pid = t.pid;
    Tally(root, t, detail, st, groups);
  }
  FinishGroups(groups, st);
  return st;
}

}  // namespace rtagent

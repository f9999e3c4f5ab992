#include "inspect/threads.h"

#include <algorithm>
#include <cctype>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"

namespace rtagent {

std::string PolicyName(int policy) {
  switch (policy) {
    case kSchedOther: return "other";
    case kSchedFifo: return "fifo";
    case kSchedRr: return "rr";
    case kSchedBatch: return "batch";
    case kSchedIdle: return "idle";
    case kSchedDeadline: return "deadline";
    case kSchedExt: return "ext";
    default: return "policy" + std::to_string(policy);
  }
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
  // rest[0] is field 3 (state), so field N is rest[N - 3].
  auto rest = SplitWs(text.substr(close + 1));
  if (rest.size() < 39) return std::nullopt;
  auto num = [&](int field) { return ParseInt(rest[static_cast<size_t>(field - 3)]); };
  s.state = rest[0].empty() ? '?' : rest[0].front();
  auto ppid = num(4);
  auto flags = ParseUint(rest[6]);
  auto prio = num(18);
  auto nice = num(19);
  auto cpu = num(39);
  auto rtprio = num(40);
  auto policy = num(41);
  if (!ppid || !flags || !prio || !nice || !cpu || !rtprio || !policy) return std::nullopt;
  s.ppid = static_cast<int>(*ppid);
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

ThreadState CollectThreads(const SysRoot& root) {
  ThreadState st;
  auto pids = root.List(kpath::kProc);
  if (!pids) return st;
  std::map<std::string, KthreadGroup> groups;
  for (const auto& pname : *pids) {
    if (pname.empty() || !std::isdigit(static_cast<unsigned char>(pname.front()))) continue;
    auto pid = ParseInt(pname);
    if (!pid) continue;
    int p = static_cast<int>(*pid);
    auto tids = root.List(kpath::TaskDir(p));
    if (!tids) continue;  // exited since the listing
    ++st.processes;
    size_t first_rt = st.realtime.size();
    std::string process_comm;
    for (const auto& tname : *tids) {
      auto tid = ParseInt(tname);
      if (!tid) continue;
      int t = static_cast<int>(*tid);
      auto text = root.Read(kpath::TaskStat(p, t));
      if (!text) continue;
      auto stat = ParseTaskStat(*text);
      if (!stat) continue;
      ++st.threads;
      ++st.by_policy[PolicyName(stat->policy)];
      if (t == p) process_comm = stat->comm;
      bool kthread = (stat->flags & kPfKthread) != 0;
      bool per_cpu = kthread && (stat->flags & kPfNoSetaffinity) != 0;
      if (kthread) ++st.kthreads;
      if (per_cpu) {
        std::string pattern = ThreadPattern(stat->comm);
        auto& g = groups[pattern];
        g.pattern = pattern;
        ++g.count;
        ++g.by_policy[PolicyName(stat->policy)];
      }
      if (!IsRealtimePolicy(stat->policy)) continue;
      ThreadInfo info;
      info.pid = p;
      info.tid = t;
      info.comm = std::move(stat->comm);
      info.policy = stat->policy;
      info.priority = stat->rt_priority;
      info.last_cpu = stat->processor;
      info.kthread = kthread;
      info.per_cpu_kthread = per_cpu;
      if (auto status = root.Read(kpath::TaskStatus(p, t))) {
        if (auto list = FindKeyValue(*status, "Cpus_allowed_list")) {
          if (auto s = CpuSet::ParseList(*list)) info.affinity = *s;
        }
      }
      if (stat->policy == kSchedDeadline) {
        if (auto sched = root.Read(kpath::TaskSched(p, t))) info.deadline = ParseSchedDeadline(*sched);
      }
      st.realtime.push_back(std::move(info));
    }
    for (size_t i = first_rt; i < st.realtime.size(); ++i) st.realtime[i].process_comm = process_comm;
  }
  std::sort(st.realtime.begin(), st.realtime.end(),
            [](const ThreadInfo& a, const ThreadInfo& b) { return a.pid != b.pid ? a.pid < b.pid : a.tid < b.tid; });
  for (auto& [pattern, g] : groups) st.per_cpu_kthreads.push_back(std::move(g));
  return st;
}

}  // namespace rtagent

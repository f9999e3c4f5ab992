#include "latency/load_placement.h"

#include <algorithm>
#include <cerrno>
#include <unordered_map>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"

namespace rtagent {
namespace {

// Field numbers of proc(5) /proc/PID/stat, counted from 1 as the manual does.
constexpr size_t kFieldState = 3;
constexpr size_t kFieldPpid = 4;
constexpr size_t kFieldPgrp = 5;
constexpr size_t kFieldProcessor = 39;

std::optional<int> ToInt(std::string_view s) {
  auto v = ParseInt(s);
  if (!v || *v < -1 || *v > 0x7fffffff) return std::nullopt;
  return static_cast<int>(*v);
}

}  // namespace

Result<PlacementStat> ParsePlacementStat(std::string_view text) {
  auto bad = [&](const char* why) {
    return MakeError(std::string("malformed stat line (") + why + "): \"" + std::string(text.substr(0, 80)) + "\"",
                     EINVAL);
  };
  size_t open = text.find('(');
  size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return bad("no (comm)");
  PlacementStat st;
  auto pid = ToInt(TrimView(text.substr(0, open)));
  if (!pid) return bad("pid");
  st.pid = *pid;
  st.comm = std::string(text.substr(open + 1, close - open - 1));
  // Fields after the comm start at field 3 (state).
  std::vector<std::string_view> rest = SplitWs(text.substr(close + 1));
  auto field = [&](size_t n) -> std::string_view { return n - kFieldState < rest.size() ? rest[n - kFieldState] : ""; };
  if (field(kFieldState).size() != 1) return bad("state");
  st.state = field(kFieldState)[0];
  auto ppid = ToInt(field(kFieldPpid));
  auto pgrp = ToInt(field(kFieldPgrp));
  if (!ppid || !pgrp) return bad("ppid/pgrp");
  st.ppid = *ppid;
  st.pgrp = *pgrp;
  // "processor" exists since Linux 2.2.8; a short line is an error, not CPU 0.
  auto cpu = ToInt(field(kFieldProcessor));
  if (!cpu) return bad("processor");
  st.processor = *cpu;
  return st;
}

std::vector<PlacementStat> ScanProcesses(const SysRoot& root) {
  std::vector<PlacementStat> out;
  auto names = root.List(kpath::kProc);
  if (!names) return out;
  out.reserve(names->size());
  for (const std::string& name : *names) {
    auto pid = ParseInt(name);
    if (!pid || *pid <= 0) continue;
    auto text = root.Read(kpath::ProcStat(static_cast<int>(*pid)));
    if (!text) continue;  // ended since the listing
    auto st = ParsePlacementStat(*text);
    if (st) out.push_back(std::move(*st));
  }
  return out;
}

size_t PlacementTracker::Watch(int root_pid, std::vector<int> pgids) {
  Watched w;
  w.root = root_pid;
  w.pgids = std::move(pgids);
  watched_.push_back(std::move(w));
  return watched_.size() - 1;
}

void PlacementTracker::Sample() {
  if (watched_.empty()) return;
  std::vector<PlacementStat> procs = ScanProcesses(root_);
  std::unordered_map<int, std::vector<int>> children;
  for (const PlacementStat& p : procs) children[p.ppid].push_back(p.pid);

  for (Watched& w : watched_) {
    if (w.root <= 0) continue;
    // The load's processes: its root, the root's descendants (the supervisor is a child
    // subreaper, so orphans stay in its tree), and any process of its process groups.
    std::vector<int> members;
    std::unordered_set<int> in_members;
    auto add = [&](int pid) {
      if (in_members.insert(pid).second) members.push_back(pid);
    };
    if (std::any_of(procs.begin(), procs.end(), [&](const PlacementStat& p) { return p.pid == w.root; })) add(w.root);
    for (size_t i = 0; i < members.size(); ++i) {
      auto it = children.find(members[i]);
      if (it == children.end()) continue;
      for (int child : it->second) add(child);
    }
    for (const PlacementStat& p : procs) {
      if (std::find(w.pgids.begin(), w.pgids.end(), p.pgrp) != w.pgids.end()) add(p.pid);
    }

    std::unordered_set<int> round;
    for (int pid : members) {
      auto tids = root_.List(kpath::TaskDir(pid));
      if (!tids) continue;
      for (const std::string& name : *tids) {
        auto tid = ParseInt(name);
        if (!tid) continue;
        int t = static_cast<int>(*tid);
        auto text = root_.Read(kpath::TaskStat(pid, t));
        if (!text) continue;
        auto st = ParsePlacementStat(*text);
        if (!st) continue;
        if (st->processor >= 0) w.placement.seen.Add(st->processor);
        round.insert(t);
        if (w.last_round.count(t)) continue;
        // A thread new since the last round: count it and note what it may run on.
        ++w.placement.tasks;
        if (auto status = root_.Read(kpath::TaskStatus(pid, t))) {
          if (auto list = FindKeyValue(*status, "Cpus_allowed_list")) {
            if (auto allowed = CpuSet::ParseList(*list)) w.placement.allowed = w.placement.allowed.Union(*allowed);
          }
        }
      }
    }
    if (!round.empty()) ++w.placement.samples;
    w.last_round = std::move(round);
  }
}

LoadPlacement PlacementTracker::Placement(size_t id) const {
  if (id >= watched_.size()) return {};
  return watched_[id].placement;
}

}  // namespace rtagent

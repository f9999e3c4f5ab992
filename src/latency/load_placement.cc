#include "latency/load_placement.h"

#include <algorithm>
#include <unordered_map>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"
#include "inspect/threads.h"

namespace rtagent {

size_t PlacementTracker::Watch(int root_pid, std::vector<int> pgids) {
  Watched w;
  w.root = root_pid;
  w.pgids = std::move(pgids);
  watched_.push_back(std::move(w));
  return watched_.size() - 1;
}

void PlacementTracker::Sample() {
  if (watched_.empty()) return;
  std::vector<TaskView> procs = ListProcesses(root_);
  std::unordered_map<int, std::vector<int>> children;
  for (const TaskView& p : procs) children[p.ppid].push_back(p.pid);

  for (Watched& w : watched_) {
    if (w.root <= 0) continue;
    // The load's processes: its root, the root's descendants (the supervisor is a child
    // subreaper, so orphans stay in its tree), and any process of its process groups.
    std::vector<int> members;
    std::unordered_set<int> in_members;
    auto add = [&](int pid) {
      if (in_members.insert(pid).second) members.push_back(pid);
    };
    if (std::any_of(procs.begin(), procs.end(), [&](const TaskView& p) { return p.pid == w.root; })) add(w.root);
    for (size_t i = 0; i < members.size(); ++i) {
      auto it = children.find(members[i]);
      if (it == children.end()) continue;
      for (int child : it->second) add(child);
    }
    for (const TaskView& p : procs) {
      if (std::find(w.pgids.begin(), w.pgids.end(), p.pgrp) != w.pgids.end()) add(p.pid);
    }

    std::unordered_set<int> round;
    for (int pid : members) {
      for (const TaskView& t : ListProcessThreads(root_, pid)) {
        if (t.processor >= 0) w.placement.seen.Add(t.processor);
        round.insert(t.tid);
        if (w.last_round.count(t.tid)) continue;
        // A thread new since the last round: count it and note what it may run on.
        ++w.placement.tasks;
        if (auto status = root_.Read(kpath::TaskStatus(pid, t.tid))) {
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

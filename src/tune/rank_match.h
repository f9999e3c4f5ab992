// Which threads a rank rule takes: a rule matches a thread when every matcher it has matches
// (threads, process, cmdline), and a thread belongs to the first rule in file order that
// matches it. It joins inspect's thread list with the profile's rules, so it lives in tune/,
// the lowest folder that depends on both (inspect and profile each depend on base alone).
// The ranks tuner, the ranks check and rank_order.h ask it.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "base/sysroot.h"
#include "inspect/system_state.h"
#include "inspect/threads.h"
#include "profile/model.h"

namespace rtagent {

/// True when every matcher of `rule` (threads, process, cmdline) matches `task`. A rule
/// without a matcher matches nothing; a cmdline matcher never matches a kernel thread.
bool RankRuleMatches(const profile::RankRule& rule, const TaskView& task);

/// Every thread under the root, with command lines read only when a rule matches on them.
std::vector<TaskView> ListTasksForRules(const SysRoot& root, const std::vector<profile::RankRule>& rules);
/// The same threads, from the task list `state` kept (SystemState::tasks) when it has one and
/// no rule matches on command lines (the kept list has none); else walked as above.
std::shared_ptr<const std::vector<TaskView>> TasksForRules(const SysRoot& root, const SystemState& state,
                                                           const std::vector<profile::RankRule>& rules);

/// Which rule took each thread, and each rule's threads.
struct RankMembers {
  std::vector<int> rule_of;                  ///< per task: its rule's index, -1 for none
  std::vector<std::vector<size_t>> members;  ///< per rule: the indexes of its tasks, in task order
};

/// Gives each task to the first rule (in file order) that matches it.
RankMembers MatchRanks(const std::vector<profile::RankRule>& rules, const std::vector<TaskView>& tasks);

}  // namespace rtagent

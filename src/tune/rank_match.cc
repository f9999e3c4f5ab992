#include "tune/rank_match.h"

#include <algorithm>

namespace rtagent {

bool RankRuleMatches(const profile::RankRule& rule, const TaskView& task) {
  bool any = false;
  if (rule.threads->has_value()) {
    if (!(*rule.threads)->Matches(task.comm)) return false;
    any = true;
  }
  if (rule.process->has_value()) {
    if (!(*rule.process)->Matches(task.process_comm)) return false;
    any = true;
  }
  if (rule.cmdline->has_value()) {
    if (task.cmdline.empty() || !(*rule.cmdline)->Matches(task.cmdline)) return false;
    any = true;
  }
  return any;
}

namespace {
// Whether any rule matches on command lines, which the task list must then carry.
bool NeedsCmdlines(const std::vector<profile::RankRule>& rules) {
  return std::any_of(rules.begin(), rules.end(), [](const auto& r) { return r.cmdline->has_value(); });
}
}  // namespace

std::vector<TaskView> ListTasksForRules(const SysRoot& root, const std::vector<profile::RankRule>& rules) {
  return ListTasks(root, NeedsCmdlines(rules));
}

std::shared_ptr<const std::vector<TaskView>> TasksForRules(const SysRoot& root, const SystemState& state,
                                                           const std::vector<profile::RankRule>& rules) {
  const bool cmdlines = NeedsCmdlines(rules);
  if (state.tasks && !cmdlines) return state.tasks;
  return std::make_shared<const std::vector<TaskView>>(ListTasks(root, cmdlines));
}

RankMembers MatchRanks(const std::vector<profile::RankRule>& rules, const std::vector<TaskView>& tasks) {
  RankMembers m;
  m.rule_of.assign(tasks.size(), -1);
  m.members.resize(rules.size());
  for (size_t i = 0; i < tasks.size(); ++i) {
    for (size_t r = 0; r < rules.size(); ++r) {
      if (RankRuleMatches(rules[r], tasks[i])) {
        m.rule_of[i] = static_cast<int>(r);
        m.members[r].push_back(i);
        break;
      }
    }
  }
  return m;
}

}  // namespace rtagent

// Rank rules against threads: every matcher must match, the first rule in file order takes a
// thread, command lines are read only when a rule asks for them.
#include "tune/rank_match.h"

#include <catch2/catch.hpp>

#include "base/fault_root.h"
#include "profile/loader.h"
#include "profile/test_support.h"

using namespace rtagent;

TEST_CASE("rank rules take threads by name, process and command line, the first rule first", "[tune][ranks]") {
  TempTree tree(std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/arm64-rt-8cpu");
  static const char kArgs[] = "/opt/robot/bin/robot_ctrl\0--rate\0" "1000";
  tree.Put("proc/1200/cmdline", std::string(kArgs, sizeof kArgs));
  FaultRoot root(tree.dir());
  profile::Diagnostics diags;
  auto p = profile::LoadProfileText(R"(version: 1
ranks:
  rules:
    ecat: {process: robot_ctrl, threads: ecat_rx, policy: fifo, priority: 85}
    robot: {cmdline: ".*robot_ctrl --rate 1000", policy: fifo, priority: 80}
    irqs: {threads: "irq/[0-9]+-.*", policy: fifo, priority: 50}
    by-name-only: {threads: ecat_rx, policy: fifo, priority: 10}
    any-kernel-cmdline: {cmdline: ".*", cpus: 0}
)",
                                    "board.yaml", ".", profile::testing::Cpus(8), &diags);
  INFO(diags.FormatText());
  REQUIRE(p.ok());
  const auto& rules = p->ranks.rules;

  std::vector<TaskView> tasks = ListTasksForRules(root, rules);
  RankMembers m = MatchRanks(rules, tasks);
  auto names = [&](size_t r) {
    std::vector<std::string> out;
    for (size_t i : m.members[r]) out.push_back(tasks[i].comm);
    return out;
  };
  CHECK(names(0) == std::vector<std::string>{"ecat_rx"});
  // Every other thread of the process, by its command line (NULs read as spaces).
  CHECK(m.members[1].size() == 4);
  for (size_t i : m.members[1]) CHECK(tasks[i].cmdline == "/opt/robot/bin/robot_ctrl --rate 1000");
  CHECK(names(2).size() == 15);
  CHECK(names(3).empty());  // ecat_rx went to the first rule
  // A kernel thread has no command line, so a cmdline rule never takes one (and the tree keeps
  // no other process's command line).
  CHECK(m.members[4].empty());
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (m.rule_of[i] >= 0) CHECK(RankRuleMatches(rules[static_cast<size_t>(m.rule_of[i])], tasks[i]));
  }

  // Without a cmdline matcher no command line is read; a rule without any matcher takes nothing.
  std::vector<profile::RankRule> by_name(rules.begin(), rules.begin() + 1);
  for (const TaskView& t : ListTasksForRules(root, by_name)) CHECK(t.cmdline.empty());

  // A state that kept its task list (verify's) serves rules without a cmdline matcher as it is;
  // a cmdline rule still walks the threads and reads the command lines the kept list lacks.
  FsRoot fs_root(tree.dir());
  const SystemState kept = CollectSystemState(fs_root, {Section::kThreads}, nullptr, /*keep_tasks=*/true);
  REQUIRE(kept.tasks);
  CHECK(TasksForRules(fs_root, kept, by_name) == kept.tasks);
  CHECK(TasksForRules(fs_root, CollectSystemState(fs_root, {Section::kThreads}), by_name)->size() == kept.tasks->size());
  auto with_cmdlines = TasksForRules(fs_root, kept, rules);
  CHECK(with_cmdlines != kept.tasks);
  CHECK(MatchRanks(rules, *with_cmdlines).members[1].size() == 4);

  profile::RankRule bare = rules[0];
  bare.threads.value.reset();
  bare.process.value.reset();
  CHECK_FALSE(RankRuleMatches(bare, tasks.front()));
}

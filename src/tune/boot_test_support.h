// Test support: a CommandRunner that runs nothing and answers as told (exit 0, a failure, a
// program that is not installed), remembering each command and what a watched file held when
// it ran, so a test proves the update step ran after the write and again after the file was
// put back.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "base/sysroot.h"
#include "tune/command_runner.h"

namespace rtagent::test {

class FakeRunner : public CommandRunner {
 public:
  /// Exit statuses to answer, in order; then 0. -1 answers "not installed".
  std::deque<int> statuses;
  /// Every command asked for, in order.
  std::vector<std::vector<std::string>> ran;
  /// What `watched` held (under `root`) at each run; "" when missing.
  std::vector<std::string> seen;
  const SysRoot* root = nullptr;
  std::string watched;

  CommandRun Run(const std::vector<std::string>& argv) override {
    ran.push_back(argv);
    if (root && !watched.empty()) seen.push_back(root->Read(watched).value_or(""));
    CommandRun r;
    r.argv = argv;
    r.program = "/usr/sbin/" + argv.front();
    r.exit_status = statuses.empty() ? 0 : statuses.front();
    if (!statuses.empty()) statuses.pop_front();
    if (r.exit_status < 0) {
      r.program.clear();
      r.note = argv.front() + " is not installed";
    }
    r.output = r.exit_status == 0 ? "Generating grub configuration file ...\ndone\n" : "error: out of disk space\n";
    return r;
  }
};

/// A factory that hands out `runner` for every root.
inline CommandRunnerFactory FactoryOf(std::shared_ptr<FakeRunner> runner) {
  return [runner](const SysRoot&) -> std::shared_ptr<CommandRunner> { return runner; };
}

}  // namespace rtagent::test

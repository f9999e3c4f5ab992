#include "check/runner.h"

#include <thread>

#include "base/result.h"
#include "inspect/system_state.h"

namespace rtagent::check {

std::vector<std::string> BuiltinSuiteNames() { return {"commission", "boot", "ci"}; }

// PLACEHOLDER until checks/*.yaml are compiled in: every suite runs every check.
Result<Suite> LoadSuite(const std::string& name_or_path) {
  Suite s;
  s.name = name_or_path;
  s.source = "built-in";
  for (const auto& c : AllChecks()) s.checks.push_back(c->Name());
  return s;
}

Status SuiteReport::Overall() const {
  Status s = Status::kSkip;
  for (const auto& r : results) s = Worse(s, r.status);
  return s;
}

int SuiteReport::Count(Status s) const {
  int n = 0;
  for (const auto& r : results) n += r.status == s;
  return n;
}

namespace {
bool SleepUnlessStopped(Duration d, const std::atomic<bool>* stop) {
  auto end = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < end) {
    if (stop && stop->load()) return false;
    auto left = end - std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(left, std::chrono::milliseconds(100)));
  }
  return !(stop && stop->load());
}
}  // namespace

SuiteReport RunSuite(const profile::Profile& profile, SysRoot& root, const Suite& suite, const RunOptions& options) {
  SuiteReport report;
  report.suite = suite.name;
  report.profile = profile.path;
  report.root = root.Dir();
  SystemState state = CollectSystemState(root);
  CheckEnv env{profile, root, state, suite, options.wait, options.stop};
  if (!env.wait) {
    const std::atomic<bool>* stop = options.stop;
    env.wait = [stop](Duration d) { return SleepUnlessStopped(d, stop); };
  }
  for (const std::string& name : suite.checks) {
    if (options.stop && options.stop->load()) {
      report.interrupted = true;
      break;
    }
    auto check = FindCheck(name);
    if (!check || check->DisabledByProfile(profile)) continue;
    auto results = check->Run(env);
    if (options.on_check) options.on_check(name, results);
    report.results.insert(report.results.end(), results.begin(), results.end());
  }
  if (options.stop && options.stop->load()) report.interrupted = true;
  return report;
}

}  // namespace rtagent::check

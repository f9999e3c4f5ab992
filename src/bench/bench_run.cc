#include "bench/bench_run.h"

namespace rtagent::bench {

std::string PhaseName(Phase p) {
  switch (p) {
    case Phase::kIdle: return "idle";
    case Phase::kLower: return "lower";
    case Phase::kEqual: return "equal";
  }
  return "?";
}

std::optional<Phase> ParsePhase(const std::string& name) {
  for (Phase p : AllPhases()) {
    if (PhaseName(p) == name) return p;
  }
  return std::nullopt;
}

const std::vector<Phase>& AllPhases() {
  static const std::vector<Phase> all = {Phase::kIdle, Phase::kLower, Phase::kEqual};
  return all;
}

std::string PhaseLoad::Describe() const {
  if (policy.empty()) return "none";
  return policy + (priority > 0 ? " " + std::to_string(priority) : std::string()) + " on " + cpus.Named();
}

double TestResult::AchievedHz() const {
  if (period_ns <= 0 || elapsed_ns <= 0) return 0;
  return static_cast<double>(wakeups) * 1e9 / static_cast<double>(elapsed_ns);
}

const TestResult* BenchRun::Find(const std::string& id, Phase phase) const {
  for (const TestResult& r : results) {
    if (r.id == id && r.phase == phase) return &r;
  }
  return nullptr;
}

const PhaseLoad* BenchRun::Load(Phase phase) const {
  for (const PhaseLoad& l : phases) {
    if (l.phase == phase) return &l;
  }
  return nullptr;
}

}  // namespace rtagent::bench

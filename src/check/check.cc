#include "check/check.h"

namespace rtagent::check {

std::string ToString(Status s) {
  switch (s) {
    case Status::kPass: return "PASS";
    case Status::kWarn: return "WARN";
    case Status::kFail: return "FAIL";
    case Status::kSkip: return "SKIP";
  }
  return "?";
}

namespace {
int Rank(Status s) {
  switch (s) {
    case Status::kSkip: return 0;
    case Status::kPass: return 1;
    case Status::kWarn: return 2;
    case Status::kFail: return 3;
  }
  return 0;
}
}  // namespace

Status Worse(Status a, Status b) { return Rank(a) >= Rank(b) ? a : b; }

Duration CheckEnv::InterruptsWindow() const {
  return suite.interrupts_window ? *suite.interrupts_window : profile.checks.interrupts_window.value;
}

Duration CheckEnv::HwlatDuration() const {
  return suite.hwlat_duration ? *suite.hwlat_duration : profile.checks.hwlat_duration.value;
}

bool Check::DisabledByProfile(const profile::Profile& p) const {
  const auto& c = p.checks;
  const std::string n = Name();
  if (n == "kernel") return !c.kernel.enabled.value;
  if (n == "cmdline") return !c.cmdline.enabled.value;
  if (n == "interrupts") return !c.interrupts.enabled.value;
  if (n == "hwlat") return !c.hwlat.enabled.value;
  if (n == "clock") return !c.clock.enabled.value;
  if (n == "ranks") return !c.ranks.enabled.value;
  if (n == "lint") return !c.lint.enabled.value;
  return false;
}

std::vector<std::unique_ptr<Check>> AllChecks() {
  std::vector<std::unique_ptr<Check>> all;
  all.push_back(MakeConformanceCheck());
  all.push_back(MakeKernelCheck());
  all.push_back(MakeCmdlineCheck());
  all.push_back(MakeClockCheck());
  all.push_back(MakeLintCheck());
  all.push_back(MakeRanksCheck());
  all.push_back(MakeInterruptsCheck());
  all.push_back(MakeHwlatCheck());
  all.push_back(MakePiCheck());
  return all;
}

std::unique_ptr<Check> FindCheck(const std::string& name) {
  for (auto& c : AllChecks()) {
    if (c->Name() == name) return std::move(c);
  }
  return nullptr;
}

}  // namespace rtagent::check

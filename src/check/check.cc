#include "check/check.h"

#include "profile/language.h"
#include "tune/tuner.h"

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

Duration CheckEnv::Window(const CheckInfo& check) const {
  if (auto it = suite.windows.find(check.name); it != suite.windows.end()) return it->second;
  return check.window->of(profile).value;
}

std::optional<std::string> CheckEnv::NoLiveTime() const {
  if (live_time) return std::nullopt;
  return "--root " + root.Dir() + " is a fixture tree, not a running system: no time passes in it, so nothing "
         "timed can be measured there";
}

bool Check::DisabledByProfile(const profile::Profile& p) const {
  const profile::CheckBlockBase* settings = Info().settings;
  return settings != nullptr && !settings->Enabled(p);
}

// The registry: one row per check. Its order is the order the profile's checks section lists
// the checks' blocks (and the order "unknown check" hints list them).
std::unique_ptr<Check> MakeConformanceCheck();
std::unique_ptr<Check> MakeKernelCheck();
std::unique_ptr<Check> MakeCmdlineCheck();
std::unique_ptr<Check> MakeInterruptsCheck();
std::unique_ptr<Check> MakeHwlatCheck();
std::unique_ptr<Check> MakeClockCheck();
std::unique_ptr<Check> MakeRanksCheck();
std::unique_ptr<Check> MakeLintCheck();
std::unique_ptr<Check> MakePiCheck();  // priority inheritance: the codelab's experiment (src/bench/)
std::unique_ptr<Check> MakeIrqbalanceCheck();  // a running irqbalance bans the isolated CPUs

std::vector<std::unique_ptr<Check>> AllChecks() {
  std::vector<std::unique_ptr<Check>> all;
  all.push_back(MakeConformanceCheck());
  all.push_back(MakeKernelCheck());
  all.push_back(MakeCmdlineCheck());
  all.push_back(MakeInterruptsCheck());
  all.push_back(MakeHwlatCheck());
  all.push_back(MakeClockCheck());
  all.push_back(MakeRanksCheck());
  all.push_back(MakeLintCheck());
  all.push_back(MakePiCheck());
  all.push_back(MakeIrqbalanceCheck());
  return all;
}

std::unique_ptr<Check> FindCheck(const std::string& name) {
  for (auto& c : AllChecks()) {
    if (c->Name() == name) return std::move(c);
  }
  return nullptr;
}

void DeclareProfileLanguage() {
  std::vector<const profile::CheckBlockBase*> blocks;
  for (const auto& c : AllChecks()) {
    if (c->Info().settings != nullptr) blocks.push_back(c->Info().settings);
  }
  profile::DeclareBlocks(TunerSections(), blocks);
}

}  // namespace rtagent::check

// PLACEHOLDER (being written in this session): the interrupts check answers SKIP until it is built.
#include "check/check.h"

namespace rtagent::check {
namespace {
class InterruptsCheck : public Check {
 public:
  std::string Name() const override { return "interrupts"; }
  std::string Title() const override { return "interrupts (not built yet)"; }
  std::vector<CheckResult> Run(CheckEnv&) const override {
    CheckResult r;
    r.check = r.id = "interrupts";
    r.status = Status::kSkip;
    r.summary = "not built yet";
    return {r};
  }
};
}  // namespace
std::unique_ptr<Check> MakeInterruptsCheck() { return std::make_unique<InterruptsCheck>(); }
}  // namespace rtagent::check

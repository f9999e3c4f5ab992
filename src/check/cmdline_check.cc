// PLACEHOLDER (being written in this session): the cmdline check answers SKIP until it is built.
#include "check/check.h"

namespace rtagent::check {
namespace {
class CmdlineCheck : public Check {
 public:
  std::string Name() const override { return "cmdline"; }
  std::string Title() const override { return "cmdline (not built yet)"; }
  std::vector<CheckResult> Run(CheckEnv&) const override {
    CheckResult r;
    r.check = r.id = "cmdline";
    r.status = Status::kSkip;
    r.summary = "not built yet";
    return {r};
  }
};
}  // namespace
std::unique_ptr<Check> MakeCmdlineCheck() { return std::make_unique<CmdlineCheck>(); }
}  // namespace rtagent::check

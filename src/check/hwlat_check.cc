// PLACEHOLDER (being written in this session): the hwlat check answers SKIP until it is built.
#include "check/check.h"

namespace rtagent::check {
namespace {
class HwlatCheck : public Check {
 public:
  std::string Name() const override { return "hwlat"; }
  std::string Title() const override { return "hwlat (not built yet)"; }
  std::vector<CheckResult> Run(CheckEnv&) const override {
    CheckResult r;
    r.check = r.id = "hwlat";
    r.status = Status::kSkip;
    r.summary = "not built yet";
    return {r};
  }
};
}  // namespace
std::unique_ptr<Check> MakeHwlatCheck() { return std::make_unique<HwlatCheck>(); }
}  // namespace rtagent::check

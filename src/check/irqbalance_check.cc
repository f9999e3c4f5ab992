// The irqbalance check: a running irqbalance moves IRQs every ten seconds, onto isolated CPUs
// too, unless they are in its banned list. It FAILs when irqbalance runs and the profile's
// isolated CPUs are not all banned (in the running process's environment when it can be read:
// irqbalance reads its file only at start), PASSes when it does not run or bans them all.
// What it finds is inspect's (inspect/irqbalance.h); the remedy is irqs.irqbalance.
#include "check/chapters.h"
#include "inspect/irqbalance.h"

namespace rtagent::check {
namespace {

const char* kName = "irqbalance";

class IrqbalanceCheck : public Check {
 public:
  const CheckInfo& Info() const override {
    static const profile::CheckBlock<profile::Toggle> kSettings{
        kName, "a running irqbalance leaves the isolated CPUs alone (they are in its banned list)", {}};
    static const CheckInfo kInfo{.name = kName,
                                 .title = "irqbalance does not move IRQs onto isolated CPUs",
                                 .chapters = "3, 6",
                                 .settings = &kSettings};
    return kInfo;
  }
  std::vector<CheckResult> Run(CheckEnv& env) const override {
    const CpuSet& isolated = env.profile.cores.isolated->cpus;
    IrqbalanceInfo info = DetectIrqbalance(env.root, env.state.tasks.get());
    if (!info.running) {
      return {NewResult(kName, "irqbalance", Status::kPass, "irqbalance does not run", kChapter6)};
    }
    if (isolated.Empty()) {
      return {NewResult(kName, "irqbalance", Status::kSkip,
                        "irqbalance runs (" + info.how + "), and the profile isolates no CPU", kChapter6)};
    }
    const CpuSet banned = info.banned.value_or(CpuSet{});
    const CpuSet missing = isolated.Minus(banned);
    CheckResult r;
    if (missing.Empty()) {
      r = NewResult(kName, "irqbalance", Status::kPass,
                    "irqbalance runs (" + info.how + ") with the isolated CPUs " + isolated.ToList() + " banned",
                    kChapter6);
    } else {
      r = NewResult(kName, "irqbalance", Status::kFail,
                    "irqbalance runs (" + info.how + ") and may move IRQs onto isolated CPUs " + missing.ToList() +
                        ": they are not in its banned list",
                    kChapter6);
      r.hint = "set irqs.irqbalance: ban (the default) or stop, and run `rtagent apply`";
      r.mark = env.profile.irqs.irqbalance.mark;
    }
    r.measured = "banned: " + (info.banned ? (banned.Empty() ? std::string("none") : banned.ToList()) : "none") +
                 (info.banned_from.empty() ? "" : " (" + info.banned_from + ")");
    r.limit = "banned: at least " + isolated.ToList();
    return {r};
  }
};

}  // namespace

std::unique_ptr<Check> MakeIrqbalanceCheck() { return std::make_unique<IrqbalanceCheck>(); }

}  // namespace rtagent::check

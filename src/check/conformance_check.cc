// Conformance: verify's first question, "does the runtime state still match the profile?",
// answered the way STYLE.md puts it: plan again and expect nothing to do. One result per
// profile section (FAIL naming the items that differ), and one for the boot-time items the
// running kernel's command line lacks (a reboot is required: a state, not an error).
#include "base/text_table.h"
#include "check/chapters.h"
#include "check/check.h"
#include "tune/tuner.h"

namespace rtagent::check {
namespace {

const char* kName = "conformance";

// The chapter each profile section's settings come from.
const std::string& SectionChapter(const std::string& section) {
  if (section == "irqs" || section == "cores" || section == "partitions") return kChapter6;
  if (section == "ranks") return kChapter4;
  if (section == "power") return kChapter7;
  if (section == "memory") return kChapter8;
  return kChapter11;
}

std::string Item(const Change& c) {
  return c.what + ": " + ShortValue(c.before, 32) + " (wants " + ShortValue(c.after, 32) + ")";
}

class ConformanceCheck : public Check {
 public:
  std::string Name() const override { return kName; }
  std::string Title() const override { return "the runtime state matches the profile (plan again, nothing to do)"; }
  std::vector<CheckResult> Run(CheckEnv& env) const override {
    auto plan = PlanAll(env.profile, env.root, env.state);
    if (!plan) {
      auto r = NewResult(kName, "conformance", Status::kFail, "cannot plan the profile: " + plan.error().message,
                         kChapter11);
      r.hint = "run `rtagent plan` for the details";
      return {r};
    }
    std::vector<CheckResult> out;
    std::vector<std::string> reboot;
    for (const SectionPlan& s : plan->sections) {
      std::vector<std::string> differ;
      int runtime_items = 0;
      for (const Change& c : s.items) {
        if (c.reboot) {
          if (Pending(c)) reboot.push_back(c.what);
          continue;
        }
        ++runtime_items;
        if (Pending(c)) differ.push_back(Item(c));
      }
      int warnings = 0;
      for (const Finding& f : s.findings) warnings += f.level != Finding::Level::kInfo;
      if (runtime_items == 0 && warnings == 0) continue;
      const std::string id = "conformance." + s.section;
      CheckResult r;
      if (!differ.empty()) {
        r = NewResult(kName, id, Status::kFail,
                      std::to_string(differ.size()) + " of " + std::to_string(runtime_items) + " " + s.section +
                          " settings differ from the profile",
                      SectionChapter(s.section));
        r.measured = JoinAnd(differ);
        r.hint = "`rtagent apply` sets them; if they drift back, something else on the board changes them "
                 "(`rtagent hold` re-asserts them)";
      } else {
        r = NewResult(kName, id, Status::kPass,
                      "all " + std::to_string(runtime_items) + " " + s.section + " settings match the profile",
                      SectionChapter(s.section));
        r.measured = std::to_string(runtime_items) + " in place";
      }
      for (const Finding& f : s.findings) {
        if (f.level == Finding::Level::kInfo) continue;
        if (r.status == Status::kPass) r.status = Status::kWarn;
        r.summary += "; " + f.message;
        if (r.hint.empty()) r.hint = f.why;
        if (!r.mark.Known()) r.mark = f.mark;
      }
      r.limit = "no difference";
      out.push_back(std::move(r));
    }
    CheckResult b;
    if (reboot.empty()) {
      b = NewResult(kName, "conformance.reboot", Status::kPass, "the running kernel booted with every boot-time setting",
                    kChapter6);
    } else {
      b = NewResult(kName, "conformance.reboot", Status::kWarn,
                    "reboot required: " + std::to_string(reboot.size()) + " boot-time settings wait for the next boot",
                    kChapter6);
      b.measured = JoinAnd(reboot);
      b.hint = "reboot after `rtagent apply` (and update-grub on GRUB systems); cmdline.boot_args lists them";
    }
    b.limit = "no reboot pending";
    out.push_back(std::move(b));
    return out;
  }
};

}  // namespace
std::unique_ptr<Check> MakeConformanceCheck() { return std::make_unique<ConformanceCheck>(); }
}  // namespace rtagent::check

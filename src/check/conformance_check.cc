// Conformance: verify's first question, "does the runtime state still match the profile?",
// answered the way STYLE.md puts it: plan again and expect nothing to do. One result per
// profile section (FAIL naming the items that differ, WARN for those the kernel refused to
// change), and one for the boot-time items the running kernel's command line lacks (a reboot is
// required: a state, not an error).
#include <algorithm>
#include <optional>

#include "base/count_text.h"
#include "base/text_table.h"
#include "check/chapters.h"
#include "check/check.h"
#include "tune/plan_render.h"
#include "tune/refusals.h"
#include "tune/tuner.h"

namespace rtagent::check {
namespace {

const char* kName = "conformance";

// "4, 6, 7, 8": the chapters the tuners' settings come from, which its results cite.
std::string TunerChapters() {
  std::vector<int> chapters;
  for (const auto& t : AllTuners()) chapters.push_back(t->Chapter());
  std::sort(chapters.begin(), chapters.end());
  chapters.erase(std::unique(chapters.begin(), chapters.end()), chapters.end());
  std::string out;
  for (int c : chapters) out += (out.empty() ? "" : ", ") + std::to_string(c);
  return out;
}

// An item as plan shows its values: a drop-in by its settings, a CPU mask with its CPUs.
std::string Item(const Change& c) {
  return c.what + ": " + ValueCell(c, c.before, 32) + " (wants " + ValueCell(c, c.after, 32) + ")";
}

// The refusals apply recorded (tune/refusals.h): which differing items the kernel keeps as they
// are. `note` says why there are none when the record cannot be read.
struct KernelRefusals {
  std::vector<Refusal> list;
  std::string note;
};

// One section's result: FAIL naming the runtime settings that differ, else PASS, a WARN when
// the plan found something (nullopt when the section has no runtime setting and no finding).
// A setting the kernel refused when apply wrote it, and still keeps, does not differ by
// anyone's doing: it makes a WARN with the kernel's reason, not a FAIL whose hint says apply
// would set it (a managed IRQ: apply has just said it cannot). Its boot-time items and boot
// loader files still pending go to `reboot` and `boot_files`.
std::optional<CheckResult> SectionResult(const SectionPlan& s, const KernelRefusals& refusals,
                                         std::vector<std::string>* reboot, std::vector<std::string>* boot_files) {
  std::vector<std::string> differ, kept;
  const Refusal* first_refusal = nullptr;
  int runtime_items = 0;
  for (const Change& c : s.items) {
    if (c.reboot) {
      if (Pending(c)) reboot->push_back(c.what);
      continue;
    }
    // A boot loader file is no runtime setting: it waits for apply, then a reboot.
    if (IsBootFileActuator(c.actuator)) {
      if (Pending(c)) boot_files->push_back("/" + c.key);
      continue;
    }
    ++runtime_items;
    if (!Pending(c)) continue;
    if (const Refusal* r = RefusalRecord::Explaining(refusals.list, c)) {
      kept.push_back(Item(c) + ", refused by the kernel");
      if (!first_refusal) first_refusal = r;
    } else {
      differ.push_back(Item(c));
    }
  }
  int warnings = 0;
  for (const Finding& f : s.findings) warnings += f.level != Finding::Level::kInfo;
  if (runtime_items == 0 && warnings == 0) return std::nullopt;
  const std::string id = "conformance." + s.section;
  const std::string refused_part =
      kept.empty() ? "" : "the kernel refused " + std::to_string(kept.size()) + " when `rtagent apply` wrote " +
                              (kept.size() == 1 ? "it" : "them") + " and keeps " + (kept.size() == 1 ? "its value" : "their values");
  CheckResult r;
  if (!differ.empty()) {
    r = NewResult(kName, id, Status::kFail,
                  std::to_string(differ.size()) + " of " +
                      CountOf(runtime_items, s.section + " setting", s.section + " settings") +
                      (differ.size() == 1 ? " differs" : " differ") + " from the profile" +
                      (kept.empty() ? "" : "; " + refused_part),
                  ChapterTitle(s.chapter));
    std::vector<std::string> all = differ;
    all.insert(all.end(), kept.begin(), kept.end());
    r.measured = JoinAnd(all);
    r.hint = "`rtagent apply` sets them; if they drift back, something else on the board changes them "
             "(`rtagent hold` re-asserts them)";
  } else if (!kept.empty()) {
    const size_t match = static_cast<size_t>(runtime_items) - kept.size();
    r = NewResult(kName, id, Status::kWarn,
                  std::to_string(match) + " of " + CountOf(runtime_items, s.section + " setting", s.section + " settings") +
                      " match the profile; " + refused_part,
                  ChapterTitle(s.chapter));
    r.measured = JoinAnd(kept);
    r.hint = std::string("the kernel's reason: ") + first_refusal->reason;
  } else {
    r = NewResult(kName, id, Status::kPass,
                  runtime_items == 1 ? "the 1 " + s.section + " setting matches the profile"
                                     : "all " + FormatCount(runtime_items) + " " + s.section + " settings match the profile",
                  ChapterTitle(s.chapter));
    r.measured = std::to_string(runtime_items) + " in place";
  }
  if (!differ.empty() && !refusals.note.empty()) r.hint += "; " + refusals.note;
  for (const Finding& f : s.findings) {
    if (f.level == Finding::Level::kInfo) continue;
    if (r.status == Status::kPass) r.status = Status::kWarn;
    r.summary += "; " + f.message;
    if (r.hint.empty()) r.hint = f.why;
    if (!r.mark.Known()) r.mark = f.mark;
  }
  r.limit = "no difference";
  return r;
}

// conformance.reboot: the boot-time settings the running kernel lacks (a reboot is required),
// and the boot loader files that do not carry the profile's arguments yet.
CheckResult RebootResult(const std::vector<std::string>& reboot, const std::vector<std::string>& boot_files) {
  CheckResult b;
  if (reboot.empty()) {
    b = NewResult(kName, "conformance.reboot", Status::kPass, "the running kernel booted with every boot-time setting",
                  kChapter6);
  } else {
    b = NewResult(kName, "conformance.reboot", Status::kWarn,
                  "reboot required: " + std::to_string(reboot.size()) + " boot-time settings wait for the next boot",
                  kChapter6);
    b.measured = JoinAnd(reboot);
    b.hint = "reboot after `rtagent apply` (which writes the boot loader file and runs its update command); "
             "cmdline.boot_args says which arguments are written and which are not";
  }
  if (!boot_files.empty()) {
    if (b.status == Status::kPass) {
      b = NewResult(kName, "conformance.reboot", Status::kWarn, "", kChapter6);
      b.measured = "the running kernel has every boot-time setting";
    }
    b.summary = (reboot.empty() ? "" : b.summary + "; ") + "the boot loader file " + JoinAnd(boot_files) +
                " does not carry the profile's arguments yet: not written";
    b.hint = "`rtagent apply` writes it (and runs the boot loader's update command)" +
             std::string(reboot.empty() ? "" : ", then reboot");
  }
  b.limit = "no reboot pending";
  return b;
}

class ConformanceCheck : public Check {
 public:
  const CheckInfo& Info() const override {
    static const CheckInfo kInfo{.name = kName,
                                 .title = "the runtime state matches the profile (plan again, nothing to do)",
                                 .chapters = TunerChapters()};
    return kInfo;
  }
  std::vector<CheckResult> Run(CheckEnv& env) const override {
    auto plan = PlanAll(env.profile, env.root, env.state);
    if (!plan) {
      auto r = NewResult(kName, "conformance", Status::kFail, "cannot plan the profile: " + plan.error().message,
                         kChapter11);
      r.hint = "run `rtagent plan` for the details";
      return {r};
    }
    KernelRefusals refusals;
    if (auto loaded = RefusalRecord::Load(env.root)) {
      refusals.list = std::move(*loaded);
    } else {
      refusals.note = "which of them the kernel refused is not known: " + loaded.error().message;
    }
    std::vector<CheckResult> out;
    std::vector<std::string> reboot, boot_files;
    for (const SectionPlan& s : plan->sections) {
      if (auto r = SectionResult(s, refusals, &reboot, &boot_files)) out.push_back(std::move(*r));
    }
    out.push_back(RebootResult(reboot, boot_files));
    return out;
  }
};

}  // namespace
std::unique_ptr<Check> MakeConformanceCheck() { return std::make_unique<ConformanceCheck>(); }
}  // namespace rtagent::check

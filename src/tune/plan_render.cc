#include "tune/plan_render.h"

#include "base/text_table.h"

namespace rtagent {

using nlohmann::json;

namespace {

std::string Paint(bool color, const char* code, const std::string& s) {
  return color ? std::string("\033[") + code + "m" + s + "\033[0m" : s;
}

std::string LevelName(Finding::Level l) {
  switch (l) {
    case Finding::Level::kInfo: return "note";
    case Finding::Level::kWarning: return "warning";
    case Finding::Level::kError: return "error";
  }
  return "note";
}

std::string RenderFindings(const FullPlan& plan, bool color) {
  std::string out;
  for (const auto& s : plan.sections) {
    for (const auto& f : s.findings) {
      const char* code = f.level == Finding::Level::kError ? "1;31" : f.level == Finding::Level::kWarning ? "1;33" : "1;36";
      out += "  " + Paint(color, code, LevelName(f.level)) + " [" + s.section + "] ";
      if (f.mark.Known()) out += f.mark.ToString() + ": ";
      out += f.message + "\n";
    }
  }
  return out.empty() ? "" : "\nfindings:\n" + out;
}

json ItemJson(const Change& c) {
  return {{"what", c.what},       {"actuator", c.actuator},
          {"key", c.key},         {"before", c.before},
          {"after", c.after},     {"compare", std::string(CompareName(c.compare))},
          {"pending", Pending(c)}, {"reboot", c.reboot},
          {"why", c.why}};
}

json FindingsJson(const SectionPlan& s) {
  json a = json::array();
  for (const auto& f : s.findings) {
    json j = {{"level", LevelName(f.level)}, {"message", f.message}, {"why", f.why}};
    if (f.mark.Known()) j["at"] = f.mark.ToString();
    a.push_back(std::move(j));
  }
  return a;
}

struct Counts {
  int pending = 0, reboot = 0, matching = 0;
};

Counts Count(const FullPlan& plan) {
  Counts n;
  for (const auto& s : plan.sections) {
    for (const auto& c : s.items) {
      if (!Pending(c)) ++n.matching;
      else if (c.reboot) ++n.reboot;
      else ++n.pending;
    }
  }
  return n;
}

}  // namespace

std::string RenderPlanText(const FullPlan& plan, bool color) {
  std::string out;
  for (const auto& s : plan.sections) {
    TextTable t({"change", "before", "", "after", "when"});
    for (const auto& c : s.items) {
      if (!Pending(c)) continue;
      t.Row({c.what, ShortValue(c.before), "->", ShortValue(c.after), c.reboot ? "at reboot" : "now"});
    }
    if (t.Rows() == 0) continue;
    out += Paint(color, "1", s.section) + "\n" + t.Render(2);
  }
  Counts n = Count(plan);
  if (out.empty()) out = "nothing to change: the system already matches the profile\n";
  out += "\n" + std::to_string(n.pending) + " to change now, " + std::to_string(n.reboot) + " at the next boot, " +
         std::to_string(n.matching) + " already in place\n";
  if (n.reboot > 0) {
    out += "reboot required: the kernel command line lacks " + std::to_string(n.reboot) +
           " argument(s); apply writes the boot loader file, then reboot\n";
  }
  return out + RenderFindings(plan, color);
}

json PlanJson(const FullPlan& plan) {
  json sections = json::array();
  for (const auto& s : plan.sections) {
    json items = json::array();
    for (const auto& c : s.items) {
      if (Pending(c)) items.push_back(ItemJson(c));
    }
    sections.push_back({{"section", s.section}, {"changes", items}, {"findings", FindingsJson(s)}});
  }
  Counts n = Count(plan);
  return {{"sections", sections},
          {"summary", {{"pending", n.pending}, {"reboot_required", n.reboot}, {"matching", n.matching}}}};
}

std::string RenderConformanceText(const FullPlan& plan, bool color) {
  std::string out;
  for (const auto& s : plan.sections) {
    if (s.items.empty()) continue;
    TextTable t({"", "item", "now", "profile"});
    for (const auto& c : s.items) {
      std::string state = !Pending(c) ? Paint(color, "32", "ok") : c.reboot ? Paint(color, "33", "reboot") : Paint(color, "31", "DIFFERS");
      t.Row({state, c.what, ShortValue(c.before), ShortValue(c.after)});
    }
    out += Paint(color, "1", s.section) + "\n" + t.Render(2);
  }
  Counts n = Count(plan);
  out += "\nconformance: " + std::to_string(n.matching) + " in place, " + std::to_string(n.pending) + " differ, " +
         std::to_string(n.reboot) + " wait for a reboot\n";
  return out + RenderFindings(plan, color);
}

json ConformanceJson(const FullPlan& plan) {
  json sections = json::array();
  for (const auto& s : plan.sections) {
    json items = json::array();
    for (const auto& c : s.items) {
      json j = ItemJson(c);
      j["state"] = !Pending(c) ? "match" : c.reboot ? "reboot_required" : "differs";
      items.push_back(std::move(j));
    }
    sections.push_back({{"section", s.section}, {"items", items}, {"findings", FindingsJson(s)}});
  }
  Counts n = Count(plan);
  return {{"sections", sections},
          {"summary", {{"differs", n.pending}, {"reboot_required", n.reboot}, {"matching", n.matching}}}};
}

std::string RenderApplyText(const ApplyReport& report, const FullPlan& plan, bool color) {
  std::string out;
  TextTable t({"outcome", "change", "before", "", "after", "detail"});
  for (const auto& r : report.results) {
    const char* code = r.outcome == Outcome::kApplied ? "32"
                       : r.outcome == Outcome::kFailed ? "1;31"
                       : r.outcome == Outcome::kUnchangeable || r.outcome == Outcome::kRebootRequired ? "33"
                                                                                                       : "0";
    t.Row({Paint(color, code, std::string(OutcomeName(r.outcome))), r.change.what, ShortValue(r.change.before, 32), "->",
           ShortValue(r.change.after, 32), r.detail});
  }
  if (t.Rows()) out += t.Render(2);
  out += "\n" + std::to_string(report.Count(Outcome::kApplied)) + " applied, " +
         std::to_string(report.Count(Outcome::kAlreadySet)) + " already set, " +
         std::to_string(report.Count(Outcome::kUnchangeable)) + " unchangeable, " +
         std::to_string(report.Count(Outcome::kRebootRequired)) + " at the next boot\n";
  if (report.rolled_back) {
    if (report.rollback_errors.empty()) {
      out += Paint(color, "1;31", "apply failed and was rolled back") + ": every value this run changed was put back\n";
    } else {
      out += Paint(color, "1;31", "apply failed and was rolled back, but not completely") +
             ": these could not be put back (the journal keeps them; run `rtagent revert`):\n" + report.rollback_errors;
    }
  } else if (report.Count(Outcome::kRebootRequired) > 0) {
    out += "reboot required for the kernel command line (after update-grub on GRUB systems)\n";
  }
  return out + RenderFindings(plan, color);
}

json ApplyJson(const ApplyReport& report, const FullPlan& plan) {
  json results = json::array();
  for (const auto& r : report.results) {
    json j = ItemJson(r.change);
    j["outcome"] = std::string(OutcomeName(r.outcome));
    if (!r.detail.empty()) j["detail"] = r.detail;
    results.push_back(std::move(j));
  }
  json findings = json::array();
  for (const auto& s : plan.sections) {
    for (auto& f : FindingsJson(s)) findings.push_back(f);
  }
  return {{"results", results},
          {"rolled_back", report.rolled_back},
          {"rollback_errors", report.rollback_errors},
          {"findings", findings},
          {"summary",
           {{"applied", report.Count(Outcome::kApplied)},
            {"already_set", report.Count(Outcome::kAlreadySet)},
            {"unchangeable", report.Count(Outcome::kUnchangeable)},
            {"reboot_required", report.Count(Outcome::kRebootRequired)},
            {"failed", report.Count(Outcome::kFailed)}}}};
}

std::string RenderRevertText(const RevertReport& report) {
  if (report.results.empty()) return "nothing to revert: no journal of earlier changes\n";
  TextTable t({"outcome", "item", "restored"});
  size_t kept_back = 0;  // side effects the kernel had already put back: counted, not listed
  for (const auto& r : report.results) {
    if (!r.change.side_effect_of.empty() && r.outcome == Outcome::kAlreadySet) {
      ++kept_back;
      continue;
    }
    std::string outcome = r.outcome == Outcome::kApplied     ? "restored"
                          : r.outcome == Outcome::kAlreadySet ? (r.detail == "gone" ? "gone" : "already back")
                                                              : "FAILED: " + r.detail;
    t.Row({outcome, r.change.what, ShortValue(r.change.after, 40)});
  }
  std::string kept = kept_back == 0 ? ""
                                    : "\n" + std::to_string(kept_back) +
                                          " task placement(s) journaled because a partition write could change them "
                                          "were already as before\n";
  return t.Render(2) + kept + (report.complete ? "\nevery journaled value is back; the journal is removed\n"
                                        : "\nsome values could not be put back; the journal is kept: fix the cause and run "
                                          "`rtagent revert` again\n");
}

}  // namespace rtagent

#include "tune/plan_render.h"

#include "base/ansi_style.h"
#include "base/count_text.h"
#include "base/cpuset.h"
#include "base/kernel_text.h"
#include "base/text_table.h"
#include "tune/systemd_tuner.h"

namespace rtagent {

using nlohmann::json;

namespace {


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

// The cores section's boot loader summary, when there is one.
const BootSummary* Boot(const FullPlan& plan) {
  for (const auto& s : plan.sections)
    if (s.boot) return &*s.boot;
  return nullptr;
}

// A boot file as a table cell: whole files are shown below the table, not cut in a cell.
std::string FileCell(const std::string& text) {
  if (text.empty()) return "(no file)";
  size_t lines = SplitLines(text).size();
  return "(" + std::to_string(lines) + (lines == 1 ? " line" : " lines") + ", below)";
}

// A configuration file's settings without its comments and section headers: the drop-in
// rtagent writes starts with two comment lines, which are not what a reader wants in a cell
// ("CPUAffinity=0-1", not "# Written by `rtagent apply` ...").
std::string SettingsOf(const std::string& text) {
  std::string out;
  for (std::string_view line : SplitLines(text)) {
    const std::string t = Trim(line);
    if (t.empty() || t[0] == '#' || t[0] == ';' || t[0] == '[') continue;
    out += (out.empty() ? "" : "; ") + t;
  }
  return out.empty() ? text : out;
}

}  // namespace

std::string ValueCell(const Change& c, const std::string& value, size_t width) {
  if (IsBootFileActuator(c.actuator)) return FileCell(value);
  if (c.actuator == kDropInActuator) return ShortValue(SettingsOf(value), width);
  if (c.compare == Compare::kCpuMask) return ShortValue(MaskWithCpus(value), width);
  return ShortValue(value, width);
}

namespace {

// The lines that change between two texts: the common first and last lines are left out,
// what is between is shown as removed (-) and added (+).
std::string LineDiff(const std::string& before, const std::string& after, const std::string& indent) {
  const auto a = SplitLines(before), b = SplitLines(after);
  size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head]) ++head;
  size_t tail = 0;
  while (tail < a.size() - head && tail < b.size() - head && a[a.size() - 1 - tail] == b[b.size() - 1 - tail]) ++tail;
  std::string out;
  if (head > 0) out += indent + "  (" + CountOf(head, "line", "lines") + " kept)\n";
  for (size_t i = head; i < a.size() - tail; ++i) out += indent + "- " + std::string(a[i]) + "\n";
  for (size_t i = head; i < b.size() - tail; ++i) out += indent + "+ " + std::string(b[i]) + "\n";
  if (tail > 0) out += indent + "  (" + CountOf(tail, "line", "lines") + " kept)\n";
  return out;
}

// What a command run printed, indented under its line.
std::string RunText(const CommandRun& r, const std::string& indent) {
  std::string out = indent;
  if (r.skipped) {
    out += "not run: `" + r.CommandLine() + "`: " + r.note + "\n";
  } else if (r.exit_status < 0) {
    out += "could not run `" + r.CommandLine() + "`: " + r.note + "\n";
  } else {
    out += "ran `" + r.CommandLine() + "`" + (r.program.empty() ? "" : " (" + r.program + ")") + ": " + r.Status() +
           (r.note.empty() ? "" : " (" + r.note + ")") + "\n";
  }
  for (auto l : SplitLines(r.output)) out += indent + "  | " + std::string(l) + "\n";
  return out;
}

// The boot loader block of plan and apply: which loader and why, the files whole (what
// changes in them), the update command, and the next boot's command line, whole.
std::string RenderBoot(const BootSummary& b, const std::vector<Change>& files, bool after_apply, bool color) {
  std::string out = "\n" + Paint(color, "1", "boot loader: " + b.loader) + " (" + b.why + ")\n";
  if (!b.how.empty()) out += "  " + b.how + "\n";
  for (const Change& c : files) {
    // Which file of several and why (the BLS entry the board boots, the extlinux label).
    std::string role;
    for (const BootSummary::File& f : b.files)
      if (f.path == c.key && !f.role.empty()) role = f.role;
    std::string notes = c.before.empty() ? "a new file" : "";
    if (!role.empty()) notes += (notes.empty() ? "" : ", ") + role;
    out += "  /" + c.key + (notes.empty() ? "" : " (" + notes + ")") + ":\n" + LineDiff(c.before, c.after, "    ");
  }
  if (!b.update.empty()) {
    CommandRun shown;
    shown.argv = b.update;
    out += "  then: " + shown.CommandLine() + "\n";
  }
  if (!b.missing.empty()) out += "  " + Paint(color, "1;33", "missing") + ": " + b.missing + "\n";
  if (!b.files.empty()) {
    // Apply shows the line the files now give; plan the line once applied, and today's.
    const std::string now = b.NextCmdline(false), next = b.NextCmdline(after_apply || !files.empty());
    const bool planned = !after_apply && now != next;
    out += "  the next boot's command line" + std::string(planned ? " once applied" : "") + ":\n    " + next + "\n";
    if (planned) out += "  (as the boot files are now:\n    " + now + ")\n";
    if (!b.loader_adds.empty()) {
      out += "  (" + b.loader + " puts its own BOOT_IMAGE=, root= and ro first: taken from the running kernel's line)\n";
    }
    if (b.files.size() > 1) out += "  (the same arguments in " + std::to_string(b.files.size()) + " entries)\n";
  }
  return out;
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

json BootJson(const BootSummary& b) {
  json files = json::array();
  for (const auto& f : b.files) {
    files.push_back({{"path", "/" + f.path},
                     {"exists", f.exists},
                     {"role", f.role},
                     {"cmdline_now", f.cmdline_now},
                     {"cmdline_after_apply", f.cmdline_after}});
  }
  json j = {{"loader", b.loader},
            {"chosen_because", b.why},
            {"how", b.how},
            {"update_command", b.update},
            {"files", files},
            {"next_cmdline_now", b.NextCmdline(false)},
            {"next_cmdline_after_apply", b.NextCmdline(true)}};
  if (!b.loader_adds.empty()) j["loader_adds"] = b.loader_adds;
  if (!b.missing.empty()) j["missing"] = b.missing;
  return j;
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

json RunJson(const CommandRun& r) {
  json j = CommandRunJson(r);
  j["command"] = r.CommandLine();
  j["status"] = r.Status();
  return j;
}

std::string RenderRebootNotice(const FullPlan& plan, const ApplyReport& report, const std::vector<std::string>& pending,
                               bool color) {
  if (pending.empty()) return "";
  std::string args;
  for (const auto& a : pending) args += (args.empty() ? "" : " ") + a;
  std::vector<std::string> written;
  std::string ran;
  for (const auto& r : report.results) {
    if (r.outcome != Outcome::kApplied || !IsBootFileActuator(r.change.actuator)) continue;
    written.push_back("/" + r.change.key);
    for (const CommandRun& run : r.runs) {
      ran = " (`" + run.CommandLine() + "` " + (run.skipped ? std::string("is not run under --root") : "ran: " + run.Status()) + ")";
    }
  }
  const BootSummary* b = Boot(plan);
  std::string where;
  if (!written.empty()) {
    where = "written to " + JoinBootArgs(written) + ran;
  } else if (b && !b->files.empty() && b->missing.empty()) {
    where = "already in /" + b->files.front().path + " (written by an earlier apply)";
  } else if (b && !b->missing.empty()) {
    where = "not written: " + b->missing;
  } else {
    where = "not written (boot loader: print): add them to the kernel command line yourself";
  }
  return Paint(color, "1;33", "the measured CPUs are not isolated until the reboot") + ": the boot arguments " + args +
         " are " + where + ", not in effect in the running kernel.\nThe loop goes on and measures the board as it runs "
         "now; reboot, then run `rtagent commission` again: that second run gives the verdict that counts.\n";
}

std::string RenderPlanText(const FullPlan& plan, bool color, const std::vector<Refusal>& refusals) {
  std::string out;
  int refused = 0;
  const Refusal* first = nullptr;
  for (const auto& s : plan.sections) {
    TextTable t({"change", "before", "", "after", "when"});
    for (const auto& c : s.items) {
      if (!Pending(c)) continue;
      const Refusal* r = c.reboot ? nullptr : RefusalRecord::Explaining(refusals, c);
      if (r && !first) first = r;
      refused += r != nullptr;
      t.Row({c.what, ValueCell(c, c.before, 48), "->", ValueCell(c, c.after, 48),
             c.reboot ? "at reboot" : r ? "now (refused before)" : "now"});
    }
    if (t.Rows() == 0) continue;
    out += Paint(color, "1", s.section) + "\n" + t.Render(2);
  }
  Counts n = Count(plan);
  if (out.empty()) out = "nothing to change: the system already matches the profile\n";
  out += "\n" + std::to_string(n.pending) + " to change now, " + std::to_string(n.reboot) + " at the next boot, " +
         std::to_string(n.matching) + " already in place\n";
  if (refused > 0) {
    out += CountOf(refused, "change was", "changes were") + " refused by the kernel at the last apply, which keeps " +
           (refused == 1 ? "its value" : "their values") + " (" + first->reason +
           "): apply tries again and reports what it still refuses as unchangeable\n";
  }
  if (n.reboot > 0) {
    out += "reboot required: the kernel command line lacks " + CountOf(n.reboot, "argument", "arguments") +
           "; apply writes the boot loader file, then reboot\n";
  }
  if (const BootSummary* b = Boot(plan)) {
    std::vector<Change> files;
    for (const Change& c : plan.PendingChanges())
      if (IsBootFileActuator(c.actuator)) files.push_back(c);
    out += RenderBoot(*b, files, false, color);
  }
  return out + RenderFindings(plan, color);
}

json PlanJson(const FullPlan& plan, const std::vector<Refusal>& refusals) {
  json sections = json::array();
  for (const auto& s : plan.sections) {
    json items = json::array();
    for (const auto& c : s.items) {
      if (!Pending(c)) continue;
      json item = ItemJson(c);
      if (const Refusal* r = c.reboot ? nullptr : RefusalRecord::Explaining(refusals, c)) item["refused_by_kernel"] = r->reason;
      items.push_back(std::move(item));
    }
    sections.push_back({{"section", s.section}, {"changes", items}, {"findings", FindingsJson(s)}});
  }
  Counts n = Count(plan);
  json out = {{"sections", sections},
              {"summary", {{"pending", n.pending}, {"reboot_required", n.reboot}, {"matching", n.matching}}}};
  if (const BootSummary* b = Boot(plan)) out["bootloader"] = BootJson(*b);
  return out;
}

std::string RenderApplyText(const ApplyReport& report, const FullPlan& plan, bool color) {
  std::string out;
  TextTable t({"outcome", "change", "before", "", "after", "detail"});
  for (const auto& r : report.results) {
    const char* code = r.outcome == Outcome::kApplied ? "32"
                       : r.outcome == Outcome::kFailed ? "1;31"
                       : r.outcome == Outcome::kUnchangeable || r.outcome == Outcome::kRebootRequired ? "33"
                                                                                                       : "0";
    t.Row({Paint(color, code, std::string(OutcomeName(r.outcome))), r.change.what, ValueCell(r.change, r.change.before, 32),
           "->", ValueCell(r.change, r.change.after, 32), r.detail});
  }
  if (t.Rows()) out += t.Render(2);
  // Boot files whole, and what their update command ran and printed.
  std::vector<Change> written;
  std::string runs;
  for (const auto& r : report.results) {
    if (r.outcome == Outcome::kApplied && IsBootFileActuator(r.change.actuator)) written.push_back(r.change);
    for (const CommandRun& run : r.runs) runs += RunText(run, "  ");
  }
  if (const BootSummary* b = Boot(plan)) out += RenderBoot(*b, written, !written.empty(), color);
  out += runs;
  out += "\n" + std::to_string(report.Count(Outcome::kApplied)) + " applied, " +
         std::to_string(report.Count(Outcome::kAlreadySet)) + " already set, " +
         std::to_string(report.Count(Outcome::kUnchangeable)) + " unchangeable, " +
         std::to_string(report.Count(Outcome::kRebootRequired)) + " at the next boot\n";
  if (report.rolled_back) {
    const std::string what = report.stopped ? "apply was stopped by a signal and rolled back" : "apply failed and was rolled back";
    if (report.rollback_errors.empty()) {
      out += Paint(color, "1;31", what) + ": every value this run changed was put back\n";
    } else {
      out += Paint(color, "1;31", what + ", but not completely") +
             ": these could not be put back (the journal keeps them; run `rtagent revert`):\n" + report.rollback_errors;
    }
  } else if (report.Count(Outcome::kRebootRequired) > 0) {
    const BootSummary* b = Boot(plan);
    if (written.empty() && b != nullptr && (b->loader == "print" || !b->missing.empty())) {
      // Nothing was written for the next boot to read: a reboot alone changes nothing.
      out += "reboot required, after you add the boot arguments yourself: no boot loader file was written (" +
             std::string(b->loader == "print" ? "cores.bootloader: print" : "the boot file is missing") +
             "); the findings below give the arguments\n";
    } else {
      out += "reboot required: the kernel command line above takes effect at the next boot\n";
    }
  }
  for (const std::string& w : report.warnings) out += Paint(color, "33", "WARN") + " " + w + "\n";
  return out + RenderFindings(plan, color);
}

json ApplyJson(const ApplyReport& report, const FullPlan& plan) {
  json results = json::array();
  for (const auto& r : report.results) {
    json j = ItemJson(r.change);
    j["outcome"] = std::string(OutcomeName(r.outcome));
    if (!r.detail.empty()) j["detail"] = r.detail;
    for (const CommandRun& run : r.runs) j["runs"].push_back(RunJson(run));
    results.push_back(std::move(j));
  }
  json findings = json::array();
  for (const auto& s : plan.sections) {
    for (auto& f : FindingsJson(s)) findings.push_back(f);
  }
  json out = {{"results", results},
          {"rolled_back", report.rolled_back},
          {"stopped", report.stopped},
          {"rollback_errors", report.rollback_errors},
          {"warnings", report.warnings},
          {"findings", findings},
          {"summary",
           {{"applied", report.Count(Outcome::kApplied)},
            {"already_set", report.Count(Outcome::kAlreadySet)},
            {"unchangeable", report.Count(Outcome::kUnchangeable)},
            {"reboot_required", report.Count(Outcome::kRebootRequired)},
            {"failed", report.Count(Outcome::kFailed)}}}};
  if (const BootSummary* b = Boot(plan)) {
    out["bootloader"] = BootJson(*b);
    bool written = false;
    for (const auto& r : report.results) written |= r.outcome == Outcome::kApplied && IsBootFileActuator(r.change.actuator);
    out["bootloader"]["next_cmdline"] = b->NextCmdline(written);
  }
  return out;
}

std::string RenderRevertText(const RevertReport& report) {
  if (report.results.empty()) return "nothing to revert: no journal of earlier changes\n";
  TextTable t({"outcome", "item", "restored"});
  size_t kept_back = 0;  // side effects the kernel had already put back: counted, not listed
  std::string runs;      // boot files put back (what changes in them) and what that ran
  for (const auto& r : report.results) {
    if (r.outcome == Outcome::kApplied && IsBootFileActuator(r.change.actuator)) {
      runs += "  /" + r.change.key + (r.change.after.empty() ? " (removed: rtagent made it)" : "") + ":\n" +
              LineDiff(r.change.before, r.change.after, "    ");
    }
    for (const CommandRun& run : r.runs) runs += RunText(run, "  ");
    if (!r.change.side_effect_of.empty() && r.outcome == Outcome::kAlreadySet) {
      ++kept_back;
      continue;
    }
    std::string outcome = r.outcome == Outcome::kApplied     ? "restored"
                          : r.outcome == Outcome::kAlreadySet ? (r.detail == "gone" ? "gone" : "already back")
                                                              : "FAILED: " + r.detail;
    t.Row({outcome, r.change.what, ValueCell(r.change, r.change.after, 40)});
  }
  std::string kept = kept_back == 0 ? ""
                                    : "\n" + CountOf(kept_back, "task placement", "task placements") +
                                          " journaled because a partition write could change them " +
                                          (kept_back == 1 ? "was" : "were") + " already as before\n";
  return t.Render(2) + runs + kept + (report.complete ? "\nevery journaled value is back; the journal is removed\n"
                                        : "\nsome values could not be put back; the journal is kept: fix the cause and run "
                                          "`rtagent revert` again\n");
}

}  // namespace rtagent

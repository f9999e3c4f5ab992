// `rtagent diff BEFORE AFTER` and `rtagent report VERDICT.json`: verdicts read back (or
// imported from cyclictest and rtla), compared and rendered again. Nothing here touches the system.
#include <iostream>

#include "base/exit_codes.h"
#include "cli/commands.h"
#include "cli/verdict_files.h"
#include "report/diff.h"
#include "report/import.h"

namespace rtagent {

int CmdDiff(const GlobalOptions&, const DiffOptions& o) {
  auto fail = [](const std::string& message, int code) {
    std::cerr << "rtagent diff: " << message << "\n";
    return code;
  };
  DiffRules rules;
  rules.fallback = DiffTolerance{o.tolerance_percent, o.tolerance_us};
  rules.allow_missing = o.allow_missing;
  if (auto ok = AddTolerances(rules, o.tolerance); !ok) return fail(ok.error().message, kExitBadInput);
  if (auto ok = AddRequireSame(rules, o.require_same); !ok) return fail(ok.error().message, kExitBadInput);
  if (!o.junit.empty()) {
    if (auto ok = CheckWritable(o.junit); !ok) return fail("--junit: " + ok.error().message, kExitBadInput);
  }
  auto before = ReadVerdictFile(o.before);
  if (!before) return fail(before.error().message, kExitBadInput);
  auto after = ReadVerdictFile(o.after);
  if (!after) return fail(after.error().message, kExitBadInput);
  const VerdictDiff d = DiffVerdicts(*before, *after, rules);
  if (auto bad = RequiredSameViolations(d.identity, rules); !bad.empty()) {
    for (const std::string& b : bad) std::cerr << "rtagent diff: " << b << "\n";
    return kExitBadInput;
  }
  if (!o.junit.empty()) {
    if (auto ok = WriteTextFile(o.junit, RenderDiffJUnit(d)); !ok) return fail("--junit: " + ok.error().message, kExitCannotRun);
  }
  if (o.junit != "-") std::cout << (o.json ? RenderDiffJson(d) : RenderDiffMarkdown(d));
  return d.regression ? kExitFail : kExitOk;
}

int CmdReport(const GlobalOptions&, const ReportOptions& o) {
  const int inputs = static_cast<int>(!o.verdict.empty()) + static_cast<int>(!o.from_cyclictest.empty()) +
                     static_cast<int>(!o.from_rtla.empty());
  if (inputs != 1) {
    std::cerr << "rtagent report: give one of a VERDICT.json, --from-cyclictest FILE or --from-rtla FILE\n";
    return kExitBadInput;
  }
  std::vector<VerdictOutput> outputs = {
      {o.json, "json"}, {o.junit, "junit"}, {o.md, "md"}, {o.svg, "svg"}, {o.hist, "hist"}, {o.html, "html"}};
  bool any = false;
  for (const VerdictOutput& out : outputs) any = any || !out.path.empty();
  if (!any) outputs.push_back({"-", "md"});
  if (auto ok = CheckOutputs(outputs); !ok) {
    std::cerr << "rtagent report: " << ok.error().message << "\n";
    return kExitBadInput;
  }
  Result<Verdict> v = MakeError("no input");
  if (!o.verdict.empty()) {
    v = ReadVerdictFile(o.verdict);
  } else {
    const std::string& path = o.from_cyclictest.empty() ? o.from_rtla : o.from_cyclictest;
    auto text = ReadTextFile(path);
    v = text ? ImportFile(o.from_cyclictest.empty() ? "rtla" : "cyclictest", path, *text) : Result<Verdict>(text.error());
  }
  if (!v) {
    std::cerr << "rtagent report: " << v.error().message << "\n";
    return kExitBadInput;
  }
  if (auto ok = WriteOutputs(*v, outputs); !ok) {
    std::cerr << "rtagent report: " << ok.error().message << "\n";
    return kExitCannotRun;
  }
  return kExitOk;
}

}  // namespace rtagent

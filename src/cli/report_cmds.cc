// `rtagent diff BEFORE AFTER` and `rtagent report VERDICT.json`: verdicts read back (or
// imported from cyclictest, rtla and rteval), compared and rendered again. Nothing here touches the system.
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "base/count_text.h"
#include "base/exit_codes.h"
#include "cli/commands.h"
#include "cli/verdict_files.h"
#include "report/diff.h"
#include "report/fleet.h"
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

namespace {

// Every *.json file under `dir`, recursively, in path order, each read as a verdict (or why not).
Result<std::vector<FleetFile>> ReadFleetDir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return MakeError("--fleet " + dir + ": not a directory", ec ? ec.value() : ENOTDIR);
  std::vector<std::string> paths;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
  if (ec) return MakeError("--fleet " + dir + ": cannot read it", ec.value());
  for (; it != end; it.increment(ec)) {
    if (ec) return MakeError("--fleet " + dir + ": cannot read " + it->path().string(), ec.value());
    if (it->is_regular_file(ec) && it->path().extension() == ".json") paths.push_back(it->path().string());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<FleetFile> files;
  for (const std::string& p : paths) files.push_back({p, ReadVerdictFile(p)});
  return files;
}

// report --fleet DIR: Markdown (default, or --md), JSON, JUnit; exit 1 when a host failed.
int ReportFleet(const ReportOptions& o) {
  for (const auto& [path, flag] : {std::pair{o.svg, "--svg"}, {o.hist, "--hist"}, {o.html, "--html"}, {o.cases, "--cases"}}) {
    if (!path.empty()) {
      std::cerr << "rtagent report: " << flag << " renders one verdict; with --fleet use --md, --json or --junit\n";
      return kExitBadInput;
    }
  }
  // The Markdown goes to stdout unless --md names a file or another output took stdout: a CI
  // job that fails on this exit code shows in its log which host failed and why.
  std::vector<std::pair<std::string, std::string>> outputs = {{o.md, "md"}, {o.json, "json"}, {o.junit, "junit"}};
  if (o.md.empty() && o.json != "-" && o.junit != "-") outputs[0].first = "-";
  int to_stdout = 0;
  for (const auto& [path, kind] : outputs) {
    if (path.empty()) continue;
    to_stdout += path == "-";
    if (auto ok = CheckWritable(path); !ok) {
      std::cerr << "rtagent report: --" << kind << ": " << ok.error().message << "\n";
      return kExitBadInput;
    }
  }
  if (to_stdout > 1) {
    std::cerr << "rtagent report: only one output can be \"-\" (stdout)\n";
    return kExitBadInput;
  }
  auto files = ReadFleetDir(o.fleet);
  if (!files) {
    std::cerr << "rtagent report: " << files.error().message << "\n";
    return kExitBadInput;
  }
  const FleetSummary f = SummarizeFleet(o.fleet, *files);
  if (f.hosts.empty()) {
    std::cerr << "rtagent report: --fleet " << o.fleet << ": no verdict found ("
              << CountOf(f.unread.size(), "JSON file that is not a verdict", "JSON files that are not verdicts")
              << "); accept --json writes one per host\n";
    return kExitBadInput;
  }
  for (const auto& [path, kind] : outputs) {
    if (path.empty()) continue;
    const std::string text = kind == "md" ? RenderFleetMarkdown(f) : kind == "json" ? RenderFleetJson(f) : RenderFleetJUnit(f);
    if (path == "-") {
      std::cout << text;
    } else if (auto ok = WriteTextFile(path, text); !ok) {
      std::cerr << "rtagent report: --" << kind << ": " << ok.error().message << "\n";
      return kExitCannotRun;
    }
  }
  return f.failed > 0 ? kExitFail : kExitOk;
}

}  // namespace

int CmdReport(const GlobalOptions&, const ReportOptions& o) {
  const int inputs = static_cast<int>(!o.verdict.empty()) + static_cast<int>(!o.from_cyclictest.empty()) +
                     static_cast<int>(!o.from_rtla.empty()) + static_cast<int>(!o.from_rteval.empty()) +
                     static_cast<int>(!o.fleet.empty());
  if (inputs != 1) {
    std::cerr << "rtagent report: give one of a VERDICT.json, --from-cyclictest FILE, --from-rtla FILE, --from-rteval FILE or "
                 "--fleet DIR\n";
    return kExitBadInput;
  }
  if (!o.fleet.empty()) return ReportFleet(o);
  std::vector<VerdictOutput> outputs = {
      {o.json, "json"}, {o.junit, "junit"}, {o.md, "md"}, {o.svg, "svg"}, {o.hist, "hist"}, {o.html, "html"},
      {o.cases, "cases"}};
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
    const auto& [format, path] = !o.from_cyclictest.empty() ? std::pair{"cyclictest", o.from_cyclictest}
                                 : !o.from_rtla.empty()     ? std::pair{"rtla", o.from_rtla}
                                                            : std::pair{"rteval", o.from_rteval};
    auto text = ReadTextFile(path);
    v = text ? ImportFile(format, path, *text) : Result<Verdict>(text.error());
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

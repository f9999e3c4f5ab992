// `rtagent diff BEFORE AFTER` and `rtagent report VERDICT.json`: verdicts read back, compared
// and rendered again. Nothing here touches the system.
#include <iostream>

#include "base/exit_codes.h"
#include "cli/commands.h"
#include "cli/verdict_files.h"
#include "report/cyclictest_text.h"
#include "report/diff.h"
#include "report/judge.h"

namespace rtagent {

int CmdDiff(const GlobalOptions&, const DiffOptions& o) {
  auto before = ReadVerdictFile(o.before);
  if (!before) {
    std::cerr << "rtagent diff: " << before.error().message << "\n";
    return kExitBadInput;
  }
  auto after = ReadVerdictFile(o.after);
  if (!after) {
    std::cerr << "rtagent diff: " << after.error().message << "\n";
    return kExitBadInput;
  }
  DiffTolerance tol;
  tol.percent = o.tolerance_percent;
  tol.abs_us = o.tolerance_us;
  const VerdictDiff d = DiffVerdicts(*before, *after, tol);
  std::cout << (o.json ? RenderDiffJson(d) : RenderDiffMarkdown(d));
  return d.regression ? kExitFail : kExitOk;
}

namespace {

/// A verdict holding the histograms of a cyclictest -h report, one "CPU" per thread (the
/// report does not say which CPU a thread ran on), judged only on its overflows.
Result<Verdict> VerdictFromCyclictest(const std::string& path) {
  auto text = ReadTextFile(path);
  if (!text) return text.error();
  auto rep = ParseCyclictestHistogram(*text);
  if (!rep) return MakeError(path + ": not a cyclictest -h report: " + rep.error().message);
  Verdict v;
  v.profile_name = "cyclictest report " + path;
  v.config.policy = "SCHED_FIFO";  // cyclictest does not say; keep the renderers from warning about it
  v.config.memory_locked = true;
  v.config.notes.push_back("read from a cyclictest -h report: thread N is shown as CPU N");
  if (rep->pm_qos_us) v.config.pm_qos = PmQosNote{PmQosHolder::kSampler, rep->pm_qos_us};
  int i = 0;
  for (Histogram& h : rep->threads) {
    v.config.cpus.Add(i);
    v.config.histogram_limit_us = h.limit_us();
    v.cpus.push_back(MakeCpuResult(i++, std::move(h)));
  }
  AcceptanceLimits limits;
  Judge(v, limits);
  return v;
}

}  // namespace

int CmdReport(const GlobalOptions&, const ReportOptions& o) {
  if (o.verdict.empty() == o.from_cyclictest.empty()) {
    std::cerr << "rtagent report: give either a VERDICT.json or --from-cyclictest FILE\n";
    return kExitBadInput;
  }
  std::vector<VerdictOutput> outputs = {
      {o.json, "json"}, {o.junit, "junit"}, {o.md, "md"}, {o.svg, "svg"}, {o.hist, "hist"}};
  bool any = false;
  for (const VerdictOutput& out : outputs) any = any || !out.path.empty();
  if (!any) outputs.push_back({"-", "md"});
  if (auto ok = CheckOutputs(outputs); !ok) {
    std::cerr << "rtagent report: " << ok.error().message << "\n";
    return kExitBadInput;
  }
  auto v = o.verdict.empty() ? VerdictFromCyclictest(o.from_cyclictest) : ReadVerdictFile(o.verdict);
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

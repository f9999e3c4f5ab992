#include "report/import.h"

#include <algorithm>

#include "base/kernel_text.h"
#include "report/cyclictest_json.h"
#include "report/cyclictest_text.h"
#include "report/judge.h"
#include "report/rteval_xml.h"
#include "report/rtla_text.h"

namespace rtagent {

Verdict VerdictFromImport(ImportedRun run, const std::string& path) {
  Verdict v;
  v.profile_name = run.tool + " " + path;
  ImportSource src{run.tool, path, {}};
  auto unknown = [&](bool known, const char* fact) {
    if (!known) src.unknown.push_back(fact);
  };
  const bool cpus_known = run.cpus.size() == run.threads.size();
  unknown(cpus_known, "cpus");
  unknown(run.interval_us.has_value(), "interval");
  unknown(run.duration_ns.has_value(), "duration");
  unknown(run.priority.has_value() && run.policy.has_value(), "scheduling");
  unknown(run.memory_locked.has_value(), "memory_locked");
  unknown(run.pm_qos_stated, "pm_qos");
  unknown(run.hostname.has_value(), "host");
  unknown(run.kernel_release.has_value() || run.kernel_version.has_value(), "kernel");
  src.unknown.push_back("clock");  // no tool's file says what clock it read, nor its resolution
  src.unknown.push_back("virtual_machine");
  src.unknown.push_back("skipped_periods");  // no tool's file counts the periods its thread missed
  unknown(run.overflows_counted, "overflows");
  v.imported = std::move(src);

  v.config.interval_us = run.interval_us.value_or(0);
  v.config.duration_actual_ns = v.config.duration_asked_ns = run.duration_ns.value_or(0);
  v.config.priority = run.priority.value_or(0);
  v.config.policy = run.policy.value_or("");
  v.config.memory_locked = run.memory_locked.value_or(false);
  if (run.pm_qos_us) v.config.pm_qos = PmQosNote{PmQosHolder::kSampler, run.pm_qos_us};
  v.config.notes = std::move(run.notes);
  if (!cpus_known) v.config.notes.push_back("the file does not say which CPU each thread ran on: thread N is shown as CPU N");
  v.host.hostname = run.hostname.value_or("");
  v.host.kernel_release = run.kernel_release.value_or("");
  v.host.kernel_version = run.kernel_version.value_or("");
  v.host.preempt_rt = run.preempt_rt.value_or(HasWord(v.host.kernel_version, "PREEMPT_RT"));
  for (size_t i = 0; i < run.threads.size(); ++i) {
    const int cpu = cpus_known ? run.cpus[i] : static_cast<int>(i);
    v.config.cpus.Add(cpu);
    v.config.histogram_limit_us = std::max(v.config.histogram_limit_us, run.threads[i].limit_us());
    v.cpus.push_back(MakeCpuResult(cpu, std::move(run.threads[i])));
  }
  std::sort(v.cpus.begin(), v.cpus.end(), [](const CpuResult& a, const CpuResult& b) { return a.cpu < b.cpu; });
  Judge(v, AcceptanceLimits{});
  return v;
}

namespace {

ImportedRun FromCyclictestText(CyclictestReport rep) {
  ImportedRun run;
  run.tool = "cyclictest -h";
  run.threads = std::move(rep.threads);
  run.interval_us = rep.interval_us;
  run.priority = rep.priority;
  run.policy = rep.policy;
  // cyclictest prints its note's line whenever it holds one (every run without --laptop);
  // its absence does not prove there was none: unstated.
  run.pm_qos_us = rep.pm_qos_us;
  run.pm_qos_stated = rep.pm_qos_us.has_value();
  return run;
}

}  // namespace

std::optional<int64_t> ImportedSumNs(uint64_t mean, int64_t unit_ns, uint64_t samples) {
  if (!(static_cast<double>(mean) * static_cast<double>(unit_ns) * static_cast<double>(samples) < 9.0e18)) return std::nullopt;
  return static_cast<int64_t>(mean) * unit_ns * static_cast<int64_t>(samples);
}

Result<void> TakeImportBins(uint64_t& used, uint64_t bins, const std::string& what) {
  if (bins > kMaxImportedBins - used) {
    return MakeError(what + ": a histogram of " + std::to_string(bins) + " µs would bring this file's histograms to " +
                     std::to_string(used + bins) + " bins in all, more than an import holds (" +
                     std::to_string(kMaxImportedBins) + ", 256 MiB of counts); no real run's file comes near it");
  }
  used += bins;
  return Ok();
}

std::string LooksLikeImport(std::string_view text) {
  // The first 4 KiB hold each tool's header; a verdict that only mentions the words further down
  // is not taken for one.
  const std::string_view head = text.substr(0, 4096);
  const size_t first = head.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return "";
  const std::string_view body = head.substr(first);
  if (body.front() == '{') {
    const bool rt_tests = body.find("\"rt_test_version") != std::string_view::npos;
    const bool threads = body.find("\"file_version\"") != std::string_view::npos &&
                         body.find("\"thread\"") != std::string_view::npos;
    return rt_tests || threads ? "cyclictest" : "";
  }
  if (body.front() == '<') {  // <?xml ...?> or the root element itself
    return body.find("<rteval") != std::string_view::npos ? "rteval" : "";
  }
  if (body.rfind("# RTLA timerlat histogram", 0) == 0) return "rtla";
  if (body.front() == '#' && (body.find("\n# Histogram\n") != std::string_view::npos || body.rfind("# Histogram\n", 0) == 0)) {
    return "cyclictest";
  }
  return "";
}

Result<Verdict> ImportFile(const std::string& format, const std::string& path, std::string_view text) {
  Result<ImportedRun> run = MakeError("unknown import format \"" + format + "\" (cyclictest, rtla, rteval)");
  std::string hint;
  if (format == "cyclictest") {
    const size_t first = text.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && text[first] == '{') {
      run = ParseCyclictestJson(text);
      hint = "a file written by cyclictest --json=FILE (rt-tests 2.x)";
    } else {
      auto rep = ParseCyclictestHistogram(text);
      if (rep) {
        run = FromCyclictestText(std::move(*rep));
      } else {
        run = rep.error();
      }
      hint = "the output of cyclictest -h N (with -q: the histogram and its footer)";
    }
  } else if (format == "rtla") {
    run = ParseRtlaTimerlatHist(text);
    hint = "the output of rtla timerlat hist";
  } else if (format == "rteval") {
    run = ParseRtevalSummary(text);
    hint = "the summary.xml of an rteval run (its rteval-DATE-N directory)";
  }
  if (!run) return Wrap(path + ": ", run.error(), hint.empty() ? "" : "; expected " + hint);
  return VerdictFromImport(std::move(*run), path);
}

}  // namespace rtagent

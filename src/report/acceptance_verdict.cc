#include "report/acceptance_verdict.h"

#include <signal.h>

#include <cstdio>
#include <cstring>

#include "base/count_text.h"
#include "base/hash.h"
#include "base/kernel_text.h"
#include "base/pm_qos.h"
#include "base/time_text.h"

namespace rtagent {

namespace {

/// "exited 3" -> exit code 3; "killed by SIGTERM" -> SIGTERM.
void ParseLoadExit(const std::string& exit, LoadResult& l) {
  int n = 0;
  if (std::sscanf(exit.c_str(), "exited %d", &n) == 1) {
    l.exit_code = n;
    return;
  }
  const std::string killed = "killed by ";
  if (exit.rfind(killed, 0) == 0) {
    const std::string sig = exit.substr(killed.size());
    for (int s = 1; s < NSIG; ++s) {
      const char* abbrev = sigabbrev_np(s);
      if (abbrev != nullptr && sig == std::string("SIG") + abbrev) l.signal = s;
    }
  }
}

void AddLoads(Verdict& v, const AcceptanceRecord& rec) {
  for (const LoadReport& r : rec.loads) {
    LoadResult l;
    l.name = r.name;
    l.cpus_asked = r.cpus_asked;
    l.cpus_ran = r.placement.seen;
    l.log_path = r.log_path;
    ParseLoadExit(r.exit, l);
    v.loads.push_back(std::move(l));
  }
  if (rec.load_count == 0) return;
  // The loads' own claim is a pre-flight entry: they ran throughout, where they were put.
  PreflightCheck pc;
  pc.name = "loads";
  pc.passed = rec.load_problems.empty();
  for (const std::string& s : rec.load_problems) pc.reason += (pc.reason.empty() ? "" : "; ") + s;
  if (pc.passed) pc.reason = CountOf(rec.load_count, "load", "loads") + " ran throughout, where " + (rec.load_count == 1 ? "it was" : "they were") + " put";
  pc.status = pc.passed ? "PASS" : "FAIL";
  if (!pc.passed) pc.hint = "read the load's log beside the verdict; the figures were not measured under the load asked";
  v.preflight.push_back(std::move(pc));
}

// Clock honesty needs the run's median wake-up (a coarse timer shows there): the worst
// median of the measured CPUs.
void JudgeHostClock(Verdict& v, const AcceptanceRecord& rec) {
  ClockVerdictInput ci;
  if (rec.clock) ci.clock = *rec.clock;
  ci.virtual_machine = v.host.virtual_machine;
  ci.interval_ns = int64_t{v.config.interval_us} * 1000;
  for (const CpuResult& c : v.cpus) {
    const Percentile* p50 = c.stats.Find(0.5);
    if (p50 != nullptr && p50->us) {
      const int64_t ns = int64_t{*p50->us} * 1000;
      if (!ci.median_wakeup_ns || ns > *ci.median_wakeup_ns) ci.median_wakeup_ns = ns;
    }
  }
  const ClockVerdict cv = JudgeClock(ci);
  v.host.coarse_clock = cv.coarse;
  v.host.clock_reasons = cv.reasons;
}

}  // namespace

std::string ProfileDigest(const profile::Profile& p) { return "sha256:" + Sha256Hex(p.document); }

AcceptanceLimits LimitsOf(const profile::AcceptanceConfig& a, int64_t duration_ns) {
  AcceptanceLimits l;
  if (a.max_us.value) l.max_us = *a.max_us.value;
  const std::pair<double, const profile::Marked<std::optional<int>>*> ps[] = {
      {0.5, &a.p50_us}, {0.9, &a.p90_us}, {0.99, &a.p99_us}, {0.999, &a.p99_9_us}, {0.9999, &a.p99_99_us}};
  for (const auto& [q, m] : ps) {
    if (m->value) l.percentiles.push_back({q, *m->value});
  }
  l.zero_overflows = true;
  l.min_samples = a.min_samples.value > 0 ? static_cast<uint64_t>(a.min_samples.value) : 0;
  l.min_duration_ns = duration_ns;
  l.loads_stay_placed = true;
  return l;
}

PmQosNote JudgePmQos(std::optional<int32_t> device_us, std::optional<int32_t> hold_us) {
  if (!device_us) {
    // Unreadable device: trust hold's own word, else say we cannot tell.
    if (hold_us) return {PmQosHolder::kProfile, hold_us};
    return {PmQosHolder::kUnknown, std::nullopt};
  }
  if (*device_us >= kPmQosNoLimitUs) return {PmQosHolder::kNone, std::nullopt};
  if (hold_us && *hold_us == *device_us) return {PmQosHolder::kProfile, device_us};
  // A stricter note than hold's (or a note without hold): another program holds it.
  return {PmQosHolder::kUnknown, device_us};
}

Verdict BuildVerdict(AcceptanceRecord rec, VerdictContext ctx) {
  Verdict v;
  v.tool_version = std::move(ctx.tool_version);
  v.started_at = IsoTime(rec.started_at);
  v.profile_name = std::move(ctx.profile_name);
  v.profile_digest = std::move(ctx.profile_digest);
  v.host = rec.host;
  v.host.boot_args_pending = std::move(ctx.boot_args_pending);
  // The note in force is the tuned state's (hold) or nobody's; the sampler's own, when the
  // profile asks for one, replaces it in AddSamplerResult and is warned about.
  v.config.pm_qos_device_us = rec.pm_qos_device_us;
  v.config.pm_qos_hold_us = ctx.pm_qos_hold_us;
  v.config.pm_qos = JudgePmQos(rec.pm_qos_device_us, ctx.pm_qos_hold_us);
  AddSamplerResult(v, std::move(rec.sampler));
  v.interrupted = v.interrupted || ctx.interrupted;
  v.preflight = std::move(ctx.preflight);
  AddLoads(v, rec);
  v.interrupts = std::move(rec.interrupts);
  JudgeHostClock(v, rec);
  Judge(v, ctx.limits);
  return v;
}

VerdictDiff JudgeAgainstBaseline(Verdict& v, const Verdict& baseline, const std::string& baseline_path,
                                 const DiffRules& rules) {
  VerdictDiff diff = DiffVerdicts(baseline, v, rules);
  const std::vector<std::string> regressed = RegressedItems(diff);
  Criterion k;
  k.name = "baseline";
  k.limit = 0;
  k.measured = static_cast<double>(regressed.size());
  k.measured_text = diff.regression ? "regressed" : "no regression";
  k.pass = !diff.regression;
  std::string what = JoinSome(regressed, 8);
  if (diff.before_pass && !diff.after_pass) what += std::string(what.empty() ? "" : "; ") + "PASS became FAIL";
  for (const std::string& n : diff.notes) {
    if (n.rfind("no CPU was measured in both", 0) == 0) what += std::string(what.empty() ? "" : "; ") + n;
  }
  k.evidence = "compared with " + baseline_path + ": " +
               (diff.regression ? "regressed: " + what : std::string("nothing got worse beyond the tolerance"));
  v.criteria.push_back(std::move(k));
  v.pass = v.pass && !diff.regression;
  return diff;
}

}  // namespace rtagent

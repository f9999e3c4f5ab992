#include "report/verdict.h"

#include <sched.h>

#include <algorithm>

#include "report/format.h"

namespace rtagent {

std::string PmQosHolderName(PmQosHolder h) {
  switch (h) {
    case PmQosHolder::kNone: return "none";
    case PmQosHolder::kSampler: return "sampler";
    case PmQosHolder::kProfile: return "profile";
    case PmQosHolder::kUnknown: return "unknown";
  }
  return "unknown";
}

std::optional<PmQosHolder> ParsePmQosHolder(const std::string& name) {
  for (PmQosHolder h : {PmQosHolder::kNone, PmQosHolder::kSampler, PmQosHolder::kProfile, PmQosHolder::kUnknown}) {
    if (PmQosHolderName(h) == name) return h;
  }
  return std::nullopt;
}

std::string Criterion::Role() const { return cpu ? "CPU " + std::to_string(*cpu) : "run"; }

std::string Criterion::LimitText() const {
  std::string value = FormatWholeOrTenth(limit) + (unit.empty() ? "" : " " + unit);
  if (name == "samples" || name == "duration") return "≥ " + value;
  if (name.rfind("preflight ", 0) == 0) return "passed";
  if (name.rfind("placement ", 0) == 0) return "held";
  return "≤ " + value;
}

bool Verdict::Knows(const std::string& fact) const {
  return !imported || std::find(imported->unknown.begin(), imported->unknown.end(), fact) == imported->unknown.end();
}

const CpuResult* Verdict::FindCpu(int cpu) const {
  for (const CpuResult& c : cpus) {
    if (c.cpu == cpu) return &c;
  }
  return nullptr;
}

CpuResult MakeCpuResult(int cpu, Histogram histogram, const std::vector<double>& extra_quantiles) {
  CpuResult r{cpu, std::move(histogram), {}};
  r.stats = ComputeStats(r.histogram, extra_quantiles);
  return r;
}

void AddSamplerResult(Verdict& v, SamplerResult run, const std::vector<double>& extra_quantiles) {
  RunConfig& c = v.config;
  c.cpus = CpuSet();
  for (const CpuRun& r : run.cpus) c.cpus.Add(r.cpu);
  c.interval_us = run.interval.count();
  c.priority = run.priority_asked;
  // The class the loops ran in: SCHED_FIFO, or the fallback's class when any thread fell back.
  c.policy.clear();
  for (const CpuRun& r : run.cpus) {
    if (c.policy.empty() || r.sched.policy != SCHED_FIFO) c.policy = SchedPolicyName(r.sched.policy);
  }
  c.duration_asked_ns = run.duration_asked.count();
  c.duration_actual_ns = run.duration_actual.count();
  c.histogram_limit_us = run.cpus.empty() ? 0 : run.cpus.front().histogram.limit_us();
  c.memory_locked = run.memory_locked;
  if (run.own_pm_qos_us) c.pm_qos = PmQosNote{PmQosHolder::kSampler, run.own_pm_qos_us};
  c.notes.insert(c.notes.end(), run.notes.begin(), run.notes.end());
  v.interrupted = v.interrupted || run.interrupted;
  for (CpuRun& r : run.cpus) v.cpus.push_back(MakeCpuResult(r.cpu, std::move(r.histogram), extra_quantiles));
}

}  // namespace rtagent

#include "report/diff.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "report/format.h"
#include "report/markdown.h"

namespace rtagent {
namespace {

struct Value {
  std::optional<double> us;
  bool beyond = false;
};

Value MaxOf(const CpuResult& c) {
  if (!c.stats.max_ns) return {};
  return {static_cast<double>(*c.stats.max_ns) / 1000.0, false};
}

Value PercentileOf(const CpuResult& c, double q) {
  Percentile p = c.stats.Find(q) ? *c.stats.Find(q) : ComputePercentile(c.histogram, q);
  if (p.beyond_limit) return {std::nullopt, true};
  if (!p.us) return {};
  return {static_cast<double>(*p.us), false};
}

MetricChange Compare(const std::string& metric, const Value& b, const Value& a, const DiffTolerance& tol) {
  MetricChange m;
  m.metric = metric;
  m.before_us = b.us;
  m.after_us = a.us;
  m.before_beyond = b.beyond;
  m.after_beyond = a.beyond;
  if (b.us && a.us) {
    m.delta_us = *a.us - *b.us;
    if (*b.us > 0) m.delta_percent = *m.delta_us / *b.us * 100.0;
    const bool over_abs = *m.delta_us > tol.abs_us;
    const bool over_pct = *b.us > 0 ? *m.delta_us > *b.us * tol.percent / 100.0 : *m.delta_us > 0;
    m.regression = over_abs && over_pct;
  } else if (a.beyond && !b.beyond && b.us) {
    m.regression = true;  // it left the histogram: worse by an unknown amount
  }
  return m;
}

std::string CriterionKey(const Criterion& k) { return k.name + (k.cpu ? " on CPU " + std::to_string(*k.cpu) : " (run)"); }

std::string ValueText(const std::optional<double>& us, bool beyond) {
  if (beyond) return "beyond limit";
  if (!us) return "–";
  return FormatFixed(*us, 1);
}

// CPUs, matched by number: max, p99 and p99.9, overflows and skipped periods.
void DiffCpus(const Verdict& before, const Verdict& after, const DiffTolerance& tol, VerdictDiff& d) {
  std::set<int> cpus;
  for (const CpuResult& c : before.cpus) cpus.insert(c.cpu);
  for (const CpuResult& c : after.cpus) cpus.insert(c.cpu);
  for (int cpu : cpus) {
    RoleDiff r;
    r.kind = "cpu";
    r.role = "CPU " + std::to_string(cpu);
    const CpuResult* b = before.FindCpu(cpu);
    const CpuResult* a = after.FindCpu(cpu);
    r.only_before = a == nullptr;
    r.only_after = b == nullptr;
    if (a && b) {
      r.metrics.push_back(Compare("max", MaxOf(*b), MaxOf(*a), tol));
      r.metrics.push_back(Compare("p99", PercentileOf(*b, 0.99), PercentileOf(*a, 0.99), tol));
      r.metrics.push_back(Compare("p99.9", PercentileOf(*b, 0.999), PercentileOf(*a, 0.999), tol));
      if (a->stats.overflows != b->stats.overflows) {
        r.notes.push_back("overflows " + FormatCount(b->stats.overflows) + " -> " + FormatCount(a->stats.overflows));
        if (a->stats.overflows > 0 && b->stats.overflows == 0) r.regression = true;
      }
      if (a->stats.skipped_periods != b->stats.skipped_periods) {
        r.notes.push_back("skipped periods " + FormatCount(b->stats.skipped_periods) + " -> " +
                          FormatCount(a->stats.skipped_periods));
      }
    } else {
      r.notes.push_back(a ? "measured in AFTER only" : "measured in BEFORE only");
    }
    for (const MetricChange& m : r.metrics) r.regression = r.regression || m.regression;
    d.roles.push_back(std::move(r));
  }
}

const LoadResult* FindLoad(const Verdict& v, const std::string& name) {
  for (const LoadResult& l : v.loads) {
    if (l.name == name) return &l;
  }
  return nullptr;
}

std::string Ended(const LoadResult& l) {
  return l.exit_code ? "exit " + std::to_string(*l.exit_code)
         : l.signal  ? "signal " + std::to_string(*l.signal)
                     : std::string("running");
}

// Loads, matched by name: where they ran, whether their placement held, how they ended.
void DiffLoads(const Verdict& before, const Verdict& after, VerdictDiff& d) {
  std::vector<std::string> load_names;
  for (const LoadResult& l : before.loads) load_names.push_back(l.name);
  for (const LoadResult& l : after.loads) {
    if (std::find(load_names.begin(), load_names.end(), l.name) == load_names.end()) load_names.push_back(l.name);
  }
  for (const std::string& name : load_names) {
    RoleDiff r;
    r.kind = "load";
    r.role = "load " + name;
    const LoadResult* b = FindLoad(before, name);
    const LoadResult* a = FindLoad(after, name);
    r.only_before = a == nullptr;
    r.only_after = b == nullptr;
    if (a && b) {
      if (a->cpus_ran != b->cpus_ran) {
        r.notes.push_back("ran on CPUs " + (b->cpus_ran.Empty() ? "–" : b->cpus_ran.ToList()) + " -> " +
                          (a->cpus_ran.Empty() ? "–" : a->cpus_ran.ToList()));
      }
      if (b->PlacementHeld() && !a->PlacementHeld()) {
        r.notes.push_back("placement broken: ran outside CPUs " + a->cpus_asked.ToList());
        r.regression = true;
      }
      if (a->exit_code != b->exit_code || a->signal != b->signal) r.notes.push_back("ended " + Ended(*b) + " -> " + Ended(*a));
    } else {
      r.notes.push_back(a ? "run in AFTER only" : "run in BEFORE only");
    }
    d.roles.push_back(std::move(r));
  }
}

// Criteria, matched by (name, CPU): only those whose verdict changed, appeared or went.
void DiffCriteria(const Verdict& before, const Verdict& after, VerdictDiff& d) {
  std::vector<std::string> keys;
  std::map<std::string, const Criterion*> bk, ak;
  for (const Criterion& k : before.criteria) {
    keys.push_back(CriterionKey(k));
    bk[CriterionKey(k)] = &k;
  }
  for (const Criterion& k : after.criteria) {
    if (!bk.count(CriterionKey(k))) keys.push_back(CriterionKey(k));
    ak[CriterionKey(k)] = &k;
  }
  for (const std::string& key : keys) {
    const Criterion* b = bk.count(key) ? bk[key] : nullptr;
    const Criterion* a = ak.count(key) ? ak[key] : nullptr;
    if (a && b && a->pass == b->pass) continue;  // unchanged verdicts are not news
    RoleDiff r;
    r.kind = "criterion";
    r.role = key;
    r.only_before = a == nullptr;
    r.only_after = b == nullptr;
    if (a && b) {
      r.notes.push_back(std::string(b->pass ? "pass" : "FAIL") + " -> " + (a->pass ? "pass" : "FAIL") + " (" +
                        b->measured_text + " -> " + a->measured_text + ")");
      r.regression = b->pass && !a->pass;
    } else {
      const Criterion* k = a ? a : b;
      r.notes.push_back(std::string(a ? "new in AFTER: " : "gone in AFTER: ") + (k->pass ? "pass" : "FAIL") + " (" +
                        k->measured_text + ")");
    }
    d.roles.push_back(std::move(r));
  }
}

// Trust warnings that appeared or went away (by code).
void DiffWarnings(const Verdict& before, const Verdict& after, VerdictDiff& d) {
  auto has_code = [](const Verdict& v, const std::string& code) {
    return std::any_of(v.warnings.begin(), v.warnings.end(), [&](const TrustWarning& x) { return x.code == code; });
  };
  for (const TrustWarning& w : after.warnings) {
    const bool same = std::find(before.warnings.begin(), before.warnings.end(), w) != before.warnings.end();
    if (!same && !has_code(before, w.code)) d.notes.push_back("AFTER only: " + w.text);
  }
  for (const TrustWarning& w : before.warnings) {
    if (!has_code(after, w.code)) d.notes.push_back("BEFORE only: " + w.text);
  }
}

}  // namespace

VerdictDiff DiffVerdicts(const Verdict& before, const Verdict& after, const DiffTolerance& tol) {
  VerdictDiff d;
  d.before_profile = before.profile_name;
  d.after_profile = after.profile_name;
  d.before_pass = before.pass;
  d.after_pass = after.pass;
  d.tolerance = tol;
  DiffCpus(before, after, tol, d);
  DiffLoads(before, after, d);
  DiffCriteria(before, after, d);
  DiffWarnings(before, after, d);
  const bool explained_before = before.why && before.why->attribution;
  const bool explained_after = after.why && after.why->attribution;
  if (explained_before && explained_after) {
    d.causes = DiffCauses(*before.why->attribution, *after.why->attribution, tol);
  } else if (explained_before != explained_after) {
    d.notes.push_back(std::string("only ") + (explained_before ? "BEFORE" : "AFTER") +
                      " says why its worst wake-up was late (the kernel's tracers); the causes are not compared");
  }
  d.regression = before.pass && !after.pass;
  for (const RoleDiff& r : d.roles) d.regression = d.regression || r.regression;
  return d;
}

std::string RenderDiffMarkdown(const VerdictDiff& d) {
  std::ostringstream o;
  o << "# Latency diff: " << (d.regression ? "REGRESSION" : "no regression") << "\n\n";
  o << "BEFORE " << MarkdownCell(d.before_profile) << " " << (d.before_pass ? "PASS" : "FAIL") << " -> AFTER "
    << MarkdownCell(d.after_profile) << " " << (d.after_pass ? "PASS" : "FAIL") << ". A latency regresses when it grows by more than "
    << FormatFixed(d.tolerance.abs_us, 1) << " µs and more than " << FormatFixed(d.tolerance.percent, 1) << " %.\n\n";
  for (const std::string& n : d.notes) o << "> " << n << "\n";
  if (!d.notes.empty()) o << "\n";

  bool any_cpu = false;
  for (const RoleDiff& r : d.roles) any_cpu = any_cpu || r.kind == "cpu";
  if (any_cpu) {
    o << "## Latency per CPU (µs)\n\n";
    o << "| Role | Metric | Before | After | Change | Regression |\n|---|---|---:|---:|---:|---|\n";
    for (const RoleDiff& r : d.roles) {
      if (r.kind != "cpu") continue;
      for (const MetricChange& m : r.metrics) {
        std::string change = "–";
        if (m.delta_us) {
          change = (*m.delta_us >= 0 ? "+" : "") + FormatFixed(*m.delta_us, 1);
          if (m.delta_percent) change += " (" + std::string(*m.delta_percent >= 0 ? "+" : "") + FormatFixed(*m.delta_percent, 1) + " %)";
        }
        o << "| " << r.role << " | " << m.metric << " | " << ValueText(m.before_us, m.before_beyond) << " | "
          << ValueText(m.after_us, m.after_beyond) << " | " << change << " | " << (m.regression ? "**yes**" : "no") << " |\n";
      }
      for (const std::string& n : r.notes) {
        o << "| " << r.role << " | note | | | " << MarkdownCell(n) << " | " << (r.regression && r.metrics.empty() ? "**yes**" : "") << " |\n";
      }
    }
    o << "\n";
  }
  for (const char* kind : {"load", "criterion"}) {
    bool any = false;
    for (const RoleDiff& r : d.roles) any = any || r.kind == kind;
    if (!any) continue;
    o << (std::string(kind) == "load" ? "## Loads\n\n" : "## Criteria that changed\n\n");
    o << "| Role | Change | Regression |\n|---|---|---|\n";
    for (const RoleDiff& r : d.roles) {
      if (r.kind != kind) continue;
      std::string notes;
      for (const std::string& n : r.notes) notes += (notes.empty() ? "" : "; ") + n;
      o << "| " << MarkdownCell(r.role) << " | " << MarkdownCell(notes.empty() ? "unchanged" : notes) << " | "
        << (r.regression ? "**yes**" : "no") << " |\n";
    }
    o << "\n";
  }
  if (d.causes) o << RenderCauseDiffMarkdown(*d.causes);
  return o.str();
}

std::string RenderDiffJson(const VerdictDiff& d) {
  using json = nlohmann::ordered_json;
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  json roles = json::array();
  for (const RoleDiff& r : d.roles) {
    json metrics = json::array();
    for (const MetricChange& m : r.metrics) {
      metrics.push_back(json{{"metric", m.metric},
                             {"before_us", opt(m.before_us)},
                             {"after_us", opt(m.after_us)},
                             {"before_beyond_limit", m.before_beyond},
                             {"after_beyond_limit", m.after_beyond},
                             {"delta_us", opt(m.delta_us)},
                             {"delta_percent", opt(m.delta_percent)},
                             {"regression", m.regression}});
    }
    roles.push_back(json{{"kind", r.kind},
                         {"role", r.role},
                         {"only_before", r.only_before},
                         {"only_after", r.only_after},
                         {"metrics", metrics},
                         {"notes", r.notes},
                         {"regression", r.regression}});
  }
  json out{{"schema", "rtagent-diff/1"},
           {"regression", d.regression},
           {"before", json{{"profile", d.before_profile}, {"result", d.before_pass ? "PASS" : "FAIL"}}},
           {"after", json{{"profile", d.after_profile}, {"result", d.after_pass ? "PASS" : "FAIL"}}},
           {"tolerance", json{{"percent", d.tolerance.percent}, {"abs_us", d.tolerance.abs_us}}},
           {"notes", d.notes},
           {"roles", roles}};
  if (d.causes) out["causes"] = CauseDiffJson(*d.causes);
  return out.dump(2) + "\n";
}

}  // namespace rtagent

#include "report/diff.h"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/junit_xml.h"
#include "base/kernel_text.h"
#include "report/format.h"
#include "report/markdown.h"

namespace rtagent {

double DiffTolerance::AllowedUs(double before_us) const { return std::max(abs_us, before_us * percent / 100.0); }

const std::vector<std::string>& DiffStatistics() {
  static const std::vector<std::string> kStats = {"max", "p99", "p99.9", "p99.99"};
  return kStats;
}

DiffTolerance DiffRules::For(const std::string& statistic) const {
  auto it = tolerance.find(statistic);
  return it == tolerance.end() ? fallback : it->second;
}

namespace {

std::optional<double> ParseNonNegative(std::string_view s) {
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !(v >= 0)) return std::nullopt;
  return v;
}

}  // namespace

Result<void> AddTolerances(DiffRules& rules, const std::vector<std::string>& specs) {
  const std::string hint = "; write STAT=N% or STAT=Nus with STAT one of max, p99, p99.9, p99.99 (e.g. max=10%,p99=20us)";
  // Per statistic, the parts this call names: a statistic named here replaces its tolerance.
  std::map<std::string, DiffTolerance> named;
  for (const std::string& spec : specs) {
    for (std::string_view item : SplitChar(spec, ',')) {
      item = TrimView(item);
      const size_t eq = item.find('=');
      if (item.empty() || eq == std::string_view::npos) {
        return InvalidInput("--tolerance \"" + std::string(item) + "\": not STAT=VALUE" + hint);
      }
      const std::string stat(TrimView(item.substr(0, eq)));
      std::string_view value = TrimView(item.substr(eq + 1));
      const auto& known = DiffStatistics();
      if (std::find(known.begin(), known.end(), stat) == known.end()) {
        return InvalidInput("--tolerance \"" + std::string(item) + "\": unknown statistic \"" + stat + "\"" + hint);
      }
      bool percent = false;
      if (value.size() > 1 && value.back() == '%') {
        percent = true;
        value.remove_suffix(1);
      } else if (value.size() > 2 && value.substr(value.size() - 2) == "us") {
        value.remove_suffix(2);
      } else if (value.size() > 3 && value.substr(value.size() - 3) == "µs") {
        value.remove_suffix(3);
      } else {
        return InvalidInput("--tolerance \"" + std::string(item) + "\": the value needs a unit, % or us" + hint);
      }
      auto n = ParseNonNegative(TrimView(value));
      if (!n) return InvalidInput("--tolerance \"" + std::string(item) + "\": not a number at least 0" + hint);
      auto [it, fresh] = named.try_emplace(stat, DiffTolerance{0, 0});
      (percent ? it->second.percent : it->second.abs_us) = *n;
    }
  }
  for (auto& [stat, tol] : named) rules.tolerance[stat] = tol;
  return Ok();
}

Result<void> AddRequireSame(DiffRules& rules, const std::vector<std::string>& values) {
  for (const std::string& value : values) {
    for (std::string_view item : SplitChar(value, ',')) {
      const std::string what(TrimView(item));
      if (what != "profile" && what != "host" && what != "kernel") {
        return InvalidInput("--require-same \"" + what + "\": not one of profile, host, kernel");
      }
      rules.require_same.insert(what);
    }
  }
  return Ok();
}

namespace {

std::string Said(const std::string& s) { return s.empty() ? "unknown" : s; }

std::string ProfileText(const Verdict& v) {
  if (v.profile_digest.empty()) return Said(v.profile_name) + " (digest unknown)";
  return v.profile_name + " (" + v.profile_digest + ")";
}

std::string KernelText(const Verdict& v) {
  if (v.host.kernel_release.empty() && v.host.kernel_version.empty()) return "unknown";
  return Said(v.host.kernel_release) + " " + Said(v.host.kernel_version);
}

}  // namespace

std::vector<IdentityChange> IdentityChanges(const Verdict& before, const Verdict& after) {
  std::vector<IdentityChange> out;
  // A side that does not say is not known to be the same.
  auto differs = [](const std::string& b, const std::string& a) { return b.empty() || a.empty() || b != a; };
  if (differs(before.profile_digest, after.profile_digest)) out.push_back({"profile", ProfileText(before), ProfileText(after)});
  if (differs(before.host.hostname, after.host.hostname)) {
    out.push_back({"host", Said(before.host.hostname), Said(after.host.hostname)});
  }
  const std::string bk = KernelText(before), ak = KernelText(after);
  if (bk == "unknown" || ak == "unknown" || bk != ak) out.push_back({"kernel", bk, ak});
  return out;
}

std::vector<std::string> RequiredSameViolations(const std::vector<IdentityChange>& changes, const DiffRules& rules) {
  std::vector<std::string> out;
  for (const IdentityChange& c : changes) {
    if (rules.require_same.count(c.what)) {
      out.push_back(c.what + " differs: " + c.before + " -> " + c.after + " (--require-same " + c.what + ")");
    }
  }
  return out;
}

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

Value StatisticOf(const CpuResult& c, const std::string& stat) {
  if (stat == "max") return MaxOf(c);
  if (stat == "p99") return PercentileOf(c, 0.99);
  if (stat == "p99.9") return PercentileOf(c, 0.999);
  return PercentileOf(c, 0.9999);
}

MetricChange Compare(const std::string& metric, const Value& b, const Value& a, const DiffTolerance& tol) {
  MetricChange m;
  m.metric = metric;
  m.before_us = b.us;
  m.after_us = a.us;
  m.before_beyond = b.beyond;
  m.after_beyond = a.beyond;
  if (b.us) m.allowed_us = tol.AllowedUs(*b.us);
  if (b.us && a.us) {
    m.delta_us = *a.us - *b.us;
    if (*b.us > 0) m.delta_percent = *m.delta_us / *b.us * 100.0;
    m.regression = *m.delta_us > *m.allowed_us;
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

std::string MissingNote(const DiffRules& rules, const char* what) {
  return std::string(what) + " in BEFORE only: missing now" +
         (rules.allow_missing ? " (allowed by --allow-missing)" : " (a regression; --allow-missing accepts it)");
}

// CPUs, matched by number: the statistics, overflows and skipped periods.
void DiffCpus(const Verdict& before, const Verdict& after, VerdictDiff& d) {
  std::set<int> cpus;
  for (const CpuResult& c : before.cpus) cpus.insert(c.cpu);
  for (const CpuResult& c : after.cpus) cpus.insert(c.cpu);
  bool any_common = false;
  for (int cpu : cpus) {
    RoleDiff r;
    r.kind = "cpu";
    r.role = "CPU " + std::to_string(cpu);
    const CpuResult* b = before.FindCpu(cpu);
    const CpuResult* a = after.FindCpu(cpu);
    r.only_before = a == nullptr;
    r.only_after = b == nullptr;
    if (a && b) {
      any_common = true;
      for (const std::string& stat : DiffStatistics()) {
        r.metrics.push_back(Compare(stat, StatisticOf(*b, stat), StatisticOf(*a, stat), d.rules.For(stat)));
      }
      r.overflows = CountChange{b->stats.overflows, a->stats.overflows, a->stats.overflows > 0 && b->stats.overflows == 0};
      // An import that does not count its overflows (rteval) holds 0 for them: said, not compared as a fact.
      if (!before.Knows("overflows") || !after.Knows("overflows")) {
        r.notes.push_back(std::string("overflows not counted in ") + (before.Knows("overflows") ? "AFTER" : "BEFORE") +
                          ": its file does not count them (held as 0)");
      } else if (a->stats.overflows != b->stats.overflows) {
        r.notes.push_back("overflows " + FormatCount(b->stats.overflows) + " -> " + FormatCount(a->stats.overflows));
      }
      r.regression = r.overflows->regression;
      // An import whose file does not count them (cyclictest, rtla) holds 0: not a count to compare.
      const bool before_counts = before.Knows("skipped_periods"), after_counts = after.Knows("skipped_periods");
      if (before_counts != after_counts) {
        const CpuResult& counted = before_counts ? *b : *a;
        if (counted.stats.skipped_periods > 0) {
          r.notes.push_back("skipped periods " + FormatCount(counted.stats.skipped_periods) + " in " +
                            (before_counts ? "BEFORE" : "AFTER") + ", not counted in " + (before_counts ? "AFTER" : "BEFORE") +
                            " (its file does not count them)");
        }
      } else if (before_counts && a->stats.skipped_periods != b->stats.skipped_periods) {
        r.notes.push_back("skipped periods " + FormatCount(b->stats.skipped_periods) + " -> " +
                          FormatCount(a->stats.skipped_periods));
      }
    } else if (b) {
      r.notes.push_back(MissingNote(d.rules, "measured"));
      r.regression = !d.rules.allow_missing;
    } else {
      r.notes.push_back("measured in AFTER only");
    }
    for (const MetricChange& m : r.metrics) r.regression = r.regression || m.regression;
    d.roles.push_back(std::move(r));
  }
  if (!any_common && !cpus.empty()) {
    d.notes.push_back("no CPU was measured in both runs (BEFORE " + (before.cpus.empty() ? "none" : before.config.cpus.ToList()) +
                      ", AFTER " + (after.cpus.empty() ? "none" : after.config.cpus.ToList()) +
                      "): nothing could be compared, which is never a pass");
    d.regression = true;
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
    } else if (b) {
      r.notes.push_back(MissingNote(d.rules, "run"));
      r.regression = !d.rules.allow_missing;
    } else {
      r.notes.push_back("run in AFTER only");
    }
    d.roles.push_back(std::move(r));
  }
}

// Criteria, matched by (name, CPU). The "baseline" criterion of an earlier gate is that
// gate's, not the run's: it is not compared.
void DiffCriteria(const Verdict& before, const Verdict& after, VerdictDiff& d) {
  std::vector<std::string> keys;
  std::map<std::string, const Criterion*> bk, ak;
  for (const Criterion& k : before.criteria) {
    if (k.name == "baseline") continue;
    keys.push_back(CriterionKey(k));
    bk[CriterionKey(k)] = &k;
  }
  for (const Criterion& k : after.criteria) {
    if (k.name == "baseline") continue;
    if (!bk.count(CriterionKey(k))) keys.push_back(CriterionKey(k));
    ak[CriterionKey(k)] = &k;
  }
  for (const std::string& key : keys) {
    const Criterion* b = bk.count(key) ? bk[key] : nullptr;
    const Criterion* a = ak.count(key) ? ak[key] : nullptr;
    RoleDiff r;
    r.kind = "criterion";
    r.role = key;
    r.only_before = a == nullptr;
    r.only_after = b == nullptr;
    if (a && b) {
      if (a->pass != b->pass) {
        r.notes.push_back(std::string(b->pass ? "pass" : "FAIL") + " -> " + (a->pass ? "pass" : "FAIL") + " (" +
                          b->measured_text + " -> " + a->measured_text + ")");
      }
      r.regression = b->pass && !a->pass;
    } else if (b) {
      r.notes.push_back(MissingNote(d.rules, "judged") + ": it was " + (b->pass ? "pass" : "FAIL") + " (" + b->measured_text + ")");
      r.regression = !d.rules.allow_missing;
    } else {
      r.notes.push_back(std::string("new in AFTER: ") + (a->pass ? "pass" : "FAIL") + " (" + a->measured_text + ")");
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

std::string ToleranceText(const DiffTolerance& t) {
  // --tolerance max=10% allows 10 % and nothing on top: no "or +0.0 µs, the larger" to read past.
  if (t.abs_us == 0) return "+" + FormatFixed(t.percent, 1) + " %";
  if (t.percent == 0) return "+" + FormatFixed(t.abs_us, 1) + " µs";
  return "+" + FormatFixed(t.percent, 1) + " % or +" + FormatFixed(t.abs_us, 1) + " µs, the larger";
}

std::string ChangeText(const MetricChange& m) {
  if (!m.delta_us) return "–";
  std::string change = (*m.delta_us >= 0 ? "+" : "") + FormatFixed(*m.delta_us, 1);
  if (m.delta_percent) change += " (" + std::string(*m.delta_percent >= 0 ? "+" : "") + FormatFixed(*m.delta_percent, 1) + " %)";
  return change;
}

}  // namespace

VerdictDiff DiffVerdicts(const Verdict& before, const Verdict& after, const DiffRules& rules) {
  VerdictDiff d;
  d.before_profile = before.profile_name;
  d.after_profile = after.profile_name;
  d.before_pass = before.pass;
  d.after_pass = after.pass;
  d.rules = rules;
  d.identity = IdentityChanges(before, after);
  DiffCpus(before, after, d);
  DiffLoads(before, after, d);
  DiffCriteria(before, after, d);
  DiffWarnings(before, after, d);
  const bool explained_before = before.why && before.why->attribution;
  const bool explained_after = after.why && after.why->attribution;
  if (explained_before && explained_after) {
    d.causes = DiffCauses(*before.why->attribution, *after.why->attribution, rules.fallback);
  } else if (explained_before != explained_after) {
    d.notes.push_back(std::string("only ") + (explained_before ? "BEFORE" : "AFTER") +
                      " says why its worst wake-up was late (the kernel's tracers); the causes are not compared");
  }
  if (before.Knows("kernel") && after.Knows("kernel") && before.host.preempt_rt && !after.host.preempt_rt) {
    d.preempt_rt_lost = true;
    d.notes.push_back("PREEMPT_RT lost: BEFORE ran " + before.host.kernel_release + " (PREEMPT_RT), AFTER " +
                      after.host.kernel_release + " is not a PREEMPT_RT kernel");
  }
  d.regression = d.regression || (before.pass && !after.pass) || d.preempt_rt_lost;
  for (const RoleDiff& r : d.roles) d.regression = d.regression || r.regression;
  return d;
}

std::vector<std::string> RegressedItems(const VerdictDiff& d) {
  std::vector<std::string> out;
  for (const RoleDiff& r : d.roles) {
    if (!r.regression) continue;
    std::string what;
    for (const MetricChange& m : r.metrics) {
      if (m.regression) what += (what.empty() ? " " : ", ") + m.metric;
    }
    if (r.overflows && r.overflows->regression) what += (what.empty() ? " " : ", ") + std::string("overflows");
    if (r.only_before) what = " missing";
    out.push_back(r.role + what);
  }
  if (d.preempt_rt_lost) out.push_back("PREEMPT_RT lost");
  return out;
}

std::string RenderDiffMarkdown(const VerdictDiff& d) {
  std::ostringstream o;
  o << "# Latency diff: " << (d.regression ? "REGRESSION" : "no regression") << "\n\n";
  o << "BEFORE " << MarkdownCell(d.before_profile) << " " << (d.before_pass ? "PASS" : "FAIL") << " -> AFTER "
    << MarkdownCell(d.after_profile) << " " << (d.after_pass ? "PASS" : "FAIL") << ".\n\n";
  for (const IdentityChange& c : d.identity) {
    o << "- **" << c.what << " differs**: " << MarkdownCell(c.before) << " -> " << MarkdownCell(c.after) << "\n";
  }
  if (!d.identity.empty()) o << "\n";
  o << "A statistic regresses when it grows by more than its tolerance:";
  for (const std::string& stat : DiffStatistics()) o << " " << stat << " " << ToleranceText(d.rules.For(stat)) << ";";
  o << " a role of BEFORE missing now " << (d.rules.allow_missing ? "is allowed" : "regresses") << ".\n\n";
  for (const std::string& n : d.notes) o << "> " << n << "\n";
  if (!d.notes.empty()) o << "\n";

  bool any_cpu = false;
  for (const RoleDiff& r : d.roles) any_cpu = any_cpu || r.kind == "cpu";
  if (any_cpu) {
    o << "## Latency per CPU (µs)\n\n";
    o << "| Role | Metric | Before | After | Change | Allowed | Regression |\n|---|---|---:|---:|---:|---:|---|\n";
    for (const RoleDiff& r : d.roles) {
      if (r.kind != "cpu") continue;
      for (const MetricChange& m : r.metrics) {
        o << "| " << r.role << " | " << m.metric << " | " << ValueText(m.before_us, m.before_beyond) << " | "
          << ValueText(m.after_us, m.after_beyond) << " | " << ChangeText(m) << " | "
          << (m.allowed_us ? "+" + FormatFixed(*m.allowed_us, 1) : std::string("–")) << " | "
          << (m.regression ? "**yes**" : "no") << " |\n";
      }
      const bool note_regressed = r.only_before || (r.overflows && r.overflows->regression);
      for (const std::string& n : r.notes) {
        o << "| " << r.role << " | note | | | " << MarkdownCell(n) << " | | " << (r.regression && note_regressed ? "**yes**" : "")
          << " |\n";
      }
    }
    o << "\n";
  }
  for (const char* kind : {"load", "criterion"}) {
    bool any = false;
    for (const RoleDiff& r : d.roles) any = any || (r.kind == kind && (kind == std::string("load") || !r.notes.empty()));
    if (!any) continue;
    o << (std::string(kind) == "load" ? "## Loads\n\n" : "## Criteria that changed\n\n");
    o << "| Role | Change | Regression |\n|---|---|---|\n";
    for (const RoleDiff& r : d.roles) {
      if (r.kind != kind || (r.kind == "criterion" && r.notes.empty())) continue;
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
                             {"allowed_us", opt(m.allowed_us)},
                             {"regression", m.regression}});
    }
    json role{{"kind", r.kind},     {"role", r.role},   {"only_before", r.only_before}, {"only_after", r.only_after},
              {"metrics", metrics}, {"notes", r.notes}, {"regression", r.regression}};
    if (r.overflows) {
      role["overflows"] = json{{"before", r.overflows->before}, {"after", r.overflows->after}, {"regression", r.overflows->regression}};
    }
    roles.push_back(std::move(role));
  }
  json tolerance = json::object();
  for (const std::string& stat : DiffStatistics()) {
    const DiffTolerance t = d.rules.For(stat);
    tolerance[stat] = json{{"percent", t.percent}, {"abs_us", t.abs_us}};
  }
  json identity = json::array();
  for (const IdentityChange& c : d.identity) identity.push_back(json{{"what", c.what}, {"before", c.before}, {"after", c.after}});
  json out{{"schema", "rtagent-diff/2"},
           {"regression", d.regression},
           {"preempt_rt_lost", d.preempt_rt_lost},
           {"before", json{{"profile", d.before_profile}, {"result", d.before_pass ? "PASS" : "FAIL"}}},
           {"after", json{{"profile", d.after_profile}, {"result", d.after_pass ? "PASS" : "FAIL"}}},
           {"differs", identity},
           {"tolerance", tolerance},
           {"allow_missing", d.rules.allow_missing},
           {"notes", d.notes},
           {"roles", roles}};
  if (d.causes) out["causes"] = CauseDiffJson(*d.causes);
  return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::vector<JUnitCase> DiffJUnitCases(const VerdictDiff& d) {
  std::vector<JUnitCase> cases;
  auto add = [&](std::string classname, std::string name, std::optional<JUnitFailure> failure) {
    JUnitCase c{std::move(classname), std::move(name), "0", std::move(failure), std::nullopt, std::nullopt};
    cases.push_back(std::move(c));
  };
  for (const RoleDiff& r : d.roles) {
    std::string cls = "rtagent.diff." + r.kind;
    if (r.kind == "cpu") cls = "rtagent.diff.cpu" + r.role.substr(4);
    if (r.only_after) continue;  // nothing to compare against
    if (r.only_before) {
      std::optional<JUnitFailure> f;
      if (r.regression) f = JUnitFailure{r.role + ": " + r.notes.front(), "missing", std::nullopt};
      add(cls, r.kind == "cpu" ? "present" : r.role + " present", f);
      continue;
    }
    for (const MetricChange& m : r.metrics) {
      std::optional<JUnitFailure> f;
      if (m.regression) {
        f = JUnitFailure{r.role + " " + m.metric + ": " + ValueText(m.before_us, m.before_beyond) + " -> " +
                             ValueText(m.after_us, m.after_beyond) + " µs" + (m.delta_us ? ", " + ChangeText(m) : "") +
                             (m.allowed_us ? ", allowed +" + FormatFixed(*m.allowed_us, 1) + " µs" : ""),
                         "regression", std::nullopt};
      }
      add(cls, m.metric, f);
    }
    if (r.overflows) {
      std::optional<JUnitFailure> f;
      if (r.overflows->regression) {
        f = JUnitFailure{r.role + " overflows: " + FormatCount(r.overflows->before) + " -> " + FormatCount(r.overflows->after),
                         "regression", std::nullopt};
      }
      add(cls, "overflows", f);
    }
    if (r.kind != "cpu") {
      std::optional<JUnitFailure> f;
      std::string notes;
      for (const std::string& n : r.notes) notes += (notes.empty() ? "" : "; ") + n;
      if (r.regression) f = JUnitFailure{r.role + ": " + notes, "regression", std::nullopt};
      add(cls, r.role, f);
    }
  }
  std::optional<JUnitFailure> result;
  if (d.before_pass && !d.after_pass) result = JUnitFailure{"PASS became FAIL", "regression", std::nullopt};
  add("rtagent.diff.run", "result", result);
  std::optional<JUnitFailure> common;
  for (const std::string& n : d.notes) {
    if (n.rfind("no CPU was measured in both", 0) == 0) common = JUnitFailure{n, "nothing_compared", std::nullopt};
  }
  add("rtagent.diff.run", "CPUs in common", common);
  std::optional<JUnitFailure> rt;
  for (const std::string& n : d.notes) {
    if (d.preempt_rt_lost && n.rfind("PREEMPT_RT lost", 0) == 0) rt = JUnitFailure{n, "regression", std::nullopt};
  }
  add("rtagent.diff.run", "PREEMPT_RT kept", rt);
  return cases;
}

std::string RenderDiffJUnit(const VerdictDiff& d) {
  JUnitReport rep;
  rep.name = "rtagent diff";
  rep.suite_name = "rtagent diff: " + d.before_profile + " -> " + d.after_profile;
  rep.properties = {{"result", d.regression ? "REGRESSION" : "no regression"}};
  for (const IdentityChange& c : d.identity) rep.properties.push_back({c.what + "_differs", c.before + " -> " + c.after});
  for (const std::string& stat : DiffStatistics()) rep.properties.push_back({"tolerance." + stat, ToleranceText(d.rules.For(stat))});
  rep.cases = DiffJUnitCases(d);
  std::string out;
  for (const IdentityChange& c : d.identity) out += c.what + " differs: " + c.before + " -> " + c.after + "\n";
  for (const std::string& n : d.notes) out += n + "\n";
  if (!out.empty()) rep.system_out = out;
  return RenderJUnitXml(rep);
}

}  // namespace rtagent

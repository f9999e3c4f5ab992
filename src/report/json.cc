#include "report/json.h"

#include <nlohmann/json.hpp>

#include "base/json_reason.h"
#include "report/json_get.h"
#include "report/why_section.h"

namespace rtagent {
namespace {

using json = nlohmann::ordered_json;

// An imported event may know only its sample number: a negative time or latency is unknown (null).
json EventJson(const OverflowEvent& e) {
  auto known = [](int64_t ns) { return ns >= 0 ? json(ns) : json(nullptr); };
  return json{{"sample", e.sample_index}, {"since_start_ns", known(e.since_start_ns)}, {"latency_ns", known(e.latency_ns)}};
}

// A fact an imported verdict's source does not state is written as null.
void NullUnknown(const Verdict& v, json& host, json& config) {
  const std::vector<std::pair<const char*, std::vector<std::pair<json*, const char*>>>> facts = {
      {"interval", {{&config, "interval_us"}}},
      {"duration", {{&config, "duration_asked_ns"}, {&config, "duration_actual_ns"}}},
      {"scheduling", {{&config, "priority"}, {&config, "policy"}}},
      {"memory_locked", {{&config, "memory_locked"}}},
      {"pm_qos", {{&config, "pm_qos"}}},
      {"host", {{&host, "hostname"}}},
      {"kernel", {{&host, "kernel_release"}, {&host, "kernel_version"}, {&host, "preempt_rt"}}},
      {"clock",
       {{&host, "clocksource"}, {&host, "coarse_clock"}, {&host, "clock_reasons"}, {&host, "clock_resolution_ns"},
        {&host, "clock_read_cost_ns"}}},
      {"virtual_machine", {{&host, "virtual_machine"}, {&host, "hypervisor"}}},
  };
  for (const auto& [fact, keys] : facts) {
    if (v.Knows(fact)) continue;
    for (const auto& [obj, key] : keys) (*obj)[key] = nullptr;
  }
  // An import states how long the tool ran (when it does), never what was asked of it: the
  // text and HTML say "what was asked: unknown", and so does the JSON.
  if (v.imported) config["duration_asked_ns"] = nullptr;
  // A known kernel whose file gives its release only (rteval has no uname -v): the version is null.
  if (v.imported && v.host.kernel_version.empty()) host["kernel_version"] = nullptr;
}

template <typename T>
json Optional(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

// skipped_known, overflows_known: false for an import whose file does not count skipped periods
// or overflows (null, not 0).
json HistogramJson(const Histogram& h, bool skipped_known, bool overflows_known) {
  json bins = json::array();
  for (size_t i = 0; i < h.bins().size(); ++i) {
    if (h.bins()[i] != 0) bins.push_back(json::array({i, h.bins()[i]}));
  }
  json first = json::array(), worst = json::array();
  for (const auto& e : h.first_overflows()) first.push_back(EventJson(e));
  for (const auto& e : h.worst_overflows()) worst.push_back(EventJson(e));
  return json{{"limit_us", h.limit_us()},
              {"samples", h.samples()},
              {"min_ns", h.min_ns()},
              {"max_ns", h.max_ns()},
              {"sum_ns", h.sum_ns()},
              {"overflows", overflows_known ? json(h.overflows()) : json(nullptr)},
              {"overflow_max_ns", h.overflow_max_ns()},
              {"skipped_periods", skipped_known ? json(h.skipped_periods()) : json(nullptr)},
              {"first_overflows", first},
              {"worst_overflows", worst},
              {"bins", bins}};
}

json StatsJson(const LatencyStats& s, bool skipped_known, bool overflows_known) {
  json ps = json::array();
  for (const Percentile& p : s.percentiles) {
    ps.push_back(json{{"label", PercentileLabel(p.quantile)},
                      {"quantile", p.quantile},
                      {"us", Optional(p.us)},
                      {"beyond_limit", p.beyond_limit}});
  }
  return json{{"samples", s.samples},
              {"overflows", overflows_known ? json(s.overflows) : json(nullptr)},
              {"skipped_periods", skipped_known ? json(s.skipped_periods) : json(nullptr)},
              {"min_ns", Optional(s.min_ns)},
              {"max_ns", Optional(s.max_ns)},
              {"mean_ns", Optional(s.mean_ns)},
              {"percentiles", ps}};
}

}  // namespace

json HostFactsJson(const HostFacts& h) {
  json host{{"hostname", h.hostname},
            {"kernel_release", h.kernel_release},
            {"kernel_version", h.kernel_version},
            {"preempt_rt", h.preempt_rt},
            {"clocksource", h.clocksource},
            {"virtual_machine", h.virtual_machine},
            {"hypervisor", h.hypervisor},
            {"coarse_clock", h.coarse_clock},
            {"clock_reasons", h.clock_reasons},
            {"clock_resolution_ns", h.clock_resolution_ns},
            {"clock_read_cost_ns", h.clock_read_cost_ns}};
  if (!h.boot_args_pending.empty()) host["boot_args_pending"] = h.boot_args_pending;
  return host;
}

namespace {

// A field an import's source did not state is null: it reads as the type's default, and the
// verdict's "imported.unknown" list says it is unknown. A missing field is still an error.
template <typename T>
T NullOr(const json& j, const char* key, T fallback = T{}) {
  const json& v = j.at(key);
  return v.is_null() ? fallback : JsonGet<T>(v);
}

}  // namespace

HostFacts ParseHostFactsJson(const json& h) {
  HostFacts host;
  host.hostname = h.contains("hostname") ? NullOr<std::string>(h, "hostname") : "";
  host.kernel_release = h.contains("kernel_release") ? NullOr<std::string>(h, "kernel_release") : "";
  host.kernel_version = h.contains("kernel_version") ? NullOr<std::string>(h, "kernel_version") : "";
  host.preempt_rt = NullOr<bool>(h, "preempt_rt");
  host.clocksource = h.contains("clocksource") ? NullOr<std::string>(h, "clocksource") : "";
  host.virtual_machine = NullOr<bool>(h, "virtual_machine");
  host.hypervisor = h.contains("hypervisor") ? NullOr<std::string>(h, "hypervisor") : "";
  if (h.contains("boot_args_pending") && h["boot_args_pending"].is_array()) {
    for (const json& a : h["boot_args_pending"])
      if (a.is_string()) host.boot_args_pending.push_back(a.get<std::string>());
  }
  host.coarse_clock = NullOr<bool>(h, "coarse_clock");
  host.clock_reasons = h.contains("clock_reasons") ? NullOr<std::vector<std::string>>(h, "clock_reasons") : std::vector<std::string>{};
  host.clock_resolution_ns = h.contains("clock_resolution_ns") ? NullOr<int64_t>(h, "clock_resolution_ns") : 0;
  host.clock_read_cost_ns = h.contains("clock_read_cost_ns") ? NullOr<int64_t>(h, "clock_read_cost_ns") : 0;
  return host;
}

namespace {
// The run's configuration as asked and as it ran.
json ConfigJson(const Verdict& v) {
  json config{{"cpus", v.config.cpus.ToList()},
              {"interval_us", v.config.interval_us},
              {"priority", v.config.priority},
              {"policy", v.config.policy},
              {"duration_asked_ns", v.config.duration_asked_ns},
              {"duration_actual_ns", v.config.duration_actual_ns},
              {"histogram_limit_us", v.config.histogram_limit_us},
              {"memory_locked", v.config.memory_locked},
              {"pm_qos", json{{"holder", PmQosHolderName(v.config.pm_qos.holder)},
                              {"value_us", Optional(v.config.pm_qos.value_us)}}},
              {"notes", v.config.notes}};
  // Written only when known, so verdicts from before these fields read the same.
  if (v.config.pm_qos_device_us) config["pm_qos"]["device_us"] = *v.config.pm_qos_device_us;
  if (v.config.pm_qos_hold_us) config["pm_qos"]["hold_us"] = *v.config.pm_qos_hold_us;
  return config;
}

json TuningJson(const TuningInForce& t) {
  json changes = json::array();
  for (const TuningChange& c : t.changes) {
    changes.push_back(json{{"section", c.section}, {"what", c.what}, {"before", c.before}, {"after", c.after}});
  }
  json out{{"source", t.source}, {"total", t.total}, {"listed", changes}};
  if (!t.error.empty()) out["error"] = t.error;
  return out;
}

Result<TuningInForce> ParseTuningJson(const json& j) {
  TuningInForce t;
  t.source = j.at("source").get<std::string>();
  t.total = JsonGet<size_t>(j.at("total"));
  t.error = j.value("error", "");
  for (const json& c : j.at("listed")) {
    t.changes.push_back({c.at("section").get<std::string>(), c.at("what").get<std::string>(),
                         c.at("before").get<std::string>(), c.at("after").get<std::string>()});
  }
  if (t.changes.size() > t.total) {
    return InvalidInput("tuning_in_force lists " + std::to_string(t.changes.size()) + " changes but counts " +
                            std::to_string(t.total));
  }
  return t;
}

}  // namespace

std::string RenderJson(const Verdict& v) {
  json host = HostFactsJson(v.host);
  json config = ConfigJson(v);
  NullUnknown(v, host, config);
  json cpus = json::array();
  for (const CpuResult& c : v.cpus) {
    const bool skipped_known = v.Knows("skipped_periods");
    cpus.push_back(json{{"cpu", c.cpu},
                        {"stats", StatsJson(c.stats, skipped_known, v.Knows("overflows"))},
                        {"histogram", HistogramJson(c.histogram, skipped_known, v.Knows("overflows"))}});
  }
  json loads = json::array();
  for (const LoadResult& l : v.loads) {
    loads.push_back(json{{"name", l.name},
                         {"cpus_asked", l.cpus_asked.ToList()},
                         {"cpus_ran", l.cpus_ran.ToList()},
                         {"placement_held", l.PlacementHeld()},
                         {"log_path", l.log_path},
                         {"exit_code", Optional(l.exit_code)},
                         {"signal", Optional(l.signal)}});
  }
  json irqs = json::array();
  for (const InterruptDelta& d : v.interrupts) irqs.push_back(json{{"name", d.name}, {"count", d.count}});
  json preflight = json::array();
  for (const PreflightCheck& p : v.preflight) {
    json pj{{"name", p.name}, {"passed", p.passed}, {"reason", p.reason}};
    // Written only when known, so verdicts read back from older files stay byte-identical.
    if (!p.status.empty()) pj["status"] = p.status;
    if (!p.hint.empty()) pj["hint"] = p.hint;
    preflight.push_back(pj);
  }
  json criteria = json::array();
  for (const Criterion& k : v.criteria) {
    criteria.push_back(json{{"name", k.name},
                            {"cpu", Optional(k.cpu)},
                            {"unit", k.unit},
                            {"limit", k.limit},
                            {"measured", Optional(k.measured)},
                            {"measured_text", k.measured_text},
                            {"pass", k.pass},
                            {"evidence", k.evidence}});
  }
  json warnings = json::array();
  for (const TrustWarning& w : v.warnings) warnings.push_back(json{{"code", w.code}, {"text", w.text}});

  // ordered_json keeps this reading order (plain nlohmann::json would sort the keys).
  json out;
  out["schema"] = kVerdictSchema;
  out["result"] = v.pass ? "PASS" : "FAIL";
  out["interrupted"] = v.interrupted;
  out["warnings"] = warnings;
  out["tool_version"] = v.tool_version;
  out["started_at"] = v.started_at;
  out["profile"] = json{{"name", v.profile_name}, {"digest", v.profile_digest}};
  if (v.imported) {
    out["imported"] = json{{"tool", v.imported->tool}, {"path", v.imported->path}, {"unknown", v.imported->unknown}};
  }
  out["host"] = host;
  out["config"] = config;
  out["criteria"] = criteria;
  out["cpus"] = cpus;
  out["loads"] = loads;
  out["interrupts"] = irqs;
  out["preflight"] = preflight;
  // Written only when acceptance.explain asked for it, so verdicts without it read the same.
  if (v.why) out["why"] = WhySectionJson(*v.why);
  if (v.tuning) out["tuning_in_force"] = TuningJson(*v.tuning);
  return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

namespace {

template <typename T>
std::optional<T> GetOptional(const json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return JsonGet<T>(j.at(key));
}

OverflowEvent ParseEvent(const json& j) {
  return OverflowEvent{JsonGet<uint64_t>(j.at("sample")), NullOr<int64_t>(j, "since_start_ns", -1),
                       NullOr<int64_t>(j, "latency_ns", -1)};
}

Result<CpuSet> ParseCpus(const json& j, const char* key) {
  auto r = CpuSet::ParseList(j.at(key).get<std::string>());
  if (!r) return InvalidInput(std::string(key) + ": " + r.error().message);
  return r;
}


Result<RunConfig> ParseConfig(const json& c) {
  RunConfig config;
  auto cpus = ParseCpus(c, "cpus");
  if (!cpus) return cpus.error();
  config.cpus = *cpus;
  config.interval_us = NullOr<int64_t>(c, "interval_us");
  config.priority = NullOr<int>(c, "priority");
  config.policy = c.contains("policy") ? NullOr<std::string>(c, "policy") : "";
  config.duration_asked_ns = NullOr<int64_t>(c, "duration_asked_ns");
  config.duration_actual_ns = NullOr<int64_t>(c, "duration_actual_ns");
  config.histogram_limit_us = JsonGet<uint32_t>(c.at("histogram_limit_us"));
  config.memory_locked = NullOr<bool>(c, "memory_locked");
  if (c.at("pm_qos").is_null()) {  // an import that does not say
    config.notes = c.value("notes", std::vector<std::string>{});
    return config;
  }
  const std::string holder = c.at("pm_qos").at("holder").get<std::string>();
  auto parsed_holder = ParsePmQosHolder(holder);
  if (!parsed_holder) return InvalidInput("config.pm_qos.holder: unknown holder \"" + holder + "\"");
  config.pm_qos.holder = *parsed_holder;
  config.pm_qos.value_us = GetOptional<int32_t>(c.at("pm_qos"), "value_us");
  config.pm_qos_device_us = GetOptional<int32_t>(c.at("pm_qos"), "device_us");
  config.pm_qos_hold_us = GetOptional<int32_t>(c.at("pm_qos"), "hold_us");
  config.notes = c.value("notes", std::vector<std::string>{});
  return config;
}

Criterion ParseCriterion(const json& k) {
  Criterion cr;
  cr.name = k.at("name").get<std::string>();
  cr.cpu = GetOptional<int>(k, "cpu");
  cr.unit = k.value("unit", "");
  cr.limit = k.at("limit").get<double>();
  cr.measured = GetOptional<double>(k, "measured");
  cr.measured_text = k.value("measured_text", "");
  cr.pass = k.at("pass").get<bool>();
  cr.evidence = k.value("evidence", "");
  return cr;
}

Result<CpuResult> ParseCpu(const json& cj) {
  const int cpu = JsonGet<int>(cj.at("cpu"));
  const json& hj = cj.at("histogram");
  HistogramParts p;
  p.limit_us = JsonGet<uint32_t>(hj.at("limit_us"));
  if (p.limit_us == 0 || p.limit_us > 10000000) {
    return InvalidInput("CPU " + std::to_string(cpu) + ": histogram.limit_us " + std::to_string(p.limit_us) +
                            " is out of range (1 to 10000000 µs)");
  }
  p.bins.assign(p.limit_us, 0);
  for (const json& b : hj.at("bins")) {
    const uint64_t bin = JsonGet<uint64_t>(b.at(0));
    if (bin >= p.limit_us) {
      return InvalidInput("CPU " + std::to_string(cpu) + ": bin " + std::to_string(bin) + " is past the limit of " +
                              std::to_string(p.limit_us) + " µs");
    }
    p.bins[bin] = JsonGet<uint64_t>(b.at(1));
  }
  p.samples = JsonGet<uint64_t>(hj.at("samples"));
  p.min_ns = JsonGet<int64_t>(hj.at("min_ns"));
  p.max_ns = JsonGet<int64_t>(hj.at("max_ns"));
  p.sum_ns = JsonGet<int64_t>(hj.at("sum_ns"));
  p.overflows = hj.at("overflows").is_null() ? 0 : JsonGet<uint64_t>(hj.at("overflows"));  // null: not counted (rteval)
  p.overflow_max_ns = JsonGet<int64_t>(hj.at("overflow_max_ns"));
  // null: an import that does not count them (imported.unknown says so); held as 0, shown unknown.
  p.skipped_periods = hj.at("skipped_periods").is_null() ? 0 : JsonGet<uint64_t>(hj.at("skipped_periods"));
  for (const json& e : hj.at("first_overflows")) p.first_overflows.push_back(ParseEvent(e));
  for (const json& e : hj.at("worst_overflows")) p.worst_overflows.push_back(ParseEvent(e));
  auto hist = Histogram::Restore(std::move(p));
  if (!hist) return Error{"CPU " + std::to_string(cpu) + ": " + hist.error().message, EINVAL};
  std::vector<double> extra;
  if (cj.contains("stats")) {
    for (const json& pj : cj.at("stats").at("percentiles")) extra.push_back(pj.at("quantile").get<double>());
  }
  return MakeCpuResult(cpu, std::move(*hist), extra);
}

Result<LoadResult> ParseLoad(const json& lj) {
  LoadResult l;
  l.name = lj.at("name").get<std::string>();
  auto asked = ParseCpus(lj, "cpus_asked");
  if (!asked) return asked.error();
  auto ran = ParseCpus(lj, "cpus_ran");
  if (!ran) return ran.error();
  l.cpus_asked = *asked;
  l.cpus_ran = *ran;
  l.log_path = lj.value("log_path", "");
  l.exit_code = GetOptional<int>(lj, "exit_code");
  l.signal = GetOptional<int>(lj, "signal");
  return l;
}

Result<Verdict> ParseUnchecked(const json& root) {
  if (!root.contains("schema")) {
    return InvalidInput("no \"schema\" key; a verdict (accept --json) says \"schema\": \"" + std::string(kVerdictSchema) + "\"");
  }
  const std::string schema = root.at("schema").get<std::string>();
  if (schema != kVerdictSchema) {
    return InvalidInput("not an rtagent verdict of schema " + std::string(kVerdictSchema) + " (schema \"" + schema + "\")");
  }
  Verdict v;
  const std::string result = root.at("result").get<std::string>();
  if (result != "PASS" && result != "FAIL") return InvalidInput("result must be PASS or FAIL, not \"" + result + "\"");
  v.pass = result == "PASS";
  v.interrupted = root.at("interrupted").get<bool>();
  for (const json& w : root.at("warnings")) {
    v.warnings.push_back({w.at("code").get<std::string>(), w.at("text").get<std::string>()});
  }
  v.tool_version = root.value("tool_version", "");
  v.started_at = root.value("started_at", "");
  v.profile_name = root.at("profile").at("name").get<std::string>();
  v.profile_digest = root.at("profile").value("digest", "");
  if (root.contains("imported")) {
    const json& im = root.at("imported");
    v.imported = ImportSource{im.at("tool").get<std::string>(), im.at("path").get<std::string>(),
                              im.at("unknown").get<std::vector<std::string>>()};
  }
  v.host = ParseHostFactsJson(root.at("host"));
  auto config = ParseConfig(root.at("config"));
  if (!config) return config.error();
  v.config = std::move(*config);
  for (const json& k : root.at("criteria")) v.criteria.push_back(ParseCriterion(k));
  for (const json& cj : root.at("cpus")) {
    auto cpu = ParseCpu(cj);
    if (!cpu) return cpu.error();
    v.cpus.push_back(std::move(*cpu));
  }
  for (const json& lj : root.at("loads")) {
    auto load = ParseLoad(lj);
    if (!load) return load.error();
    v.loads.push_back(std::move(*load));
  }
  for (const json& ij : root.at("interrupts")) {
    v.interrupts.push_back({ij.at("name").get<std::string>(), JsonGet<uint64_t>(ij.at("count"))});
  }
  for (const json& pj : root.at("preflight")) {
    v.preflight.push_back({pj.at("name").get<std::string>(), pj.at("passed").get<bool>(), pj.value("reason", ""),
                           pj.value("status", ""), pj.value("hint", "")});
  }
  if (root.contains("why")) {
    auto why = ParseWhySectionJson(root.at("why"));
    if (!why) return why.error();
    v.why = std::move(*why);
  }
  if (root.contains("tuning_in_force")) {
    auto tuning = ParseTuningJson(root.at("tuning_in_force"));
    if (!tuning) return tuning.error();
    v.tuning = std::move(*tuning);
  }
  return v;
}

}  // namespace

Result<Verdict> ParseVerdictJson(std::string_view text) {
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {  // where and why, in nlohmann's words
    return InvalidInput("the verdict is not valid JSON: " + JsonReason(e));
  }
  if (!root.is_object()) return InvalidInput("the verdict is not a JSON object");
  // nlohmann reports a missing or mistyped field by exception; it ends here, as an error value.
  try {
    return ParseUnchecked(root);
  } catch (const json::exception& e) {
    return InvalidInput(JsonReason(e));
  }
}

}  // namespace rtagent

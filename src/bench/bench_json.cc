#include "bench/bench_json.h"

#include <cerrno>
#include <cmath>
#include <nlohmann/json.hpp>

#include "base/json_reason.h"
#include "base/kernel_text.h"
#include "report/json.h"

namespace rtagent::bench {
namespace {

using json = nlohmann::ordered_json;

json Line(const std::string& type) { return json{{"schema", kBenchSchema}, {"type", type}}; }

json RunLine(const BenchRun& r) {
  json j = Line("run");
  json phases = json::array();
  for (const PhaseLoad& p : r.phases) {
    phases.push_back(json{{"phase", PhaseName(p.phase)},
                          {"load_policy", p.policy},
                          {"load_priority", p.priority},
                          {"load_cpus", p.cpus.ToList()}});
  }
  j["tool_version"] = r.tool_version;
  j["started_at"] = r.started_at;
  j["host"] = HostFactsJson(r.host);
  j["cpu"] = r.cpu;
  j["policy"] = r.policy;
  j["priority"] = r.priority;
  j["realtime"] = r.realtime;
  j["memory_locked"] = r.memory_locked;
  j["quick"] = r.quick;
  j["rr_timeslice_ms"] = r.rr_timeslice_ms;
  j["phases"] = phases;
  j["notes"] = r.notes;
  j["interrupted"] = r.interrupted;
  return j;
}

json ResultLine(const BenchRun& run, const TestResult& t) {
  json j = Line("result");
  j["id"] = t.id;
  j["group"] = GroupName(t.group);
  j["title"] = t.title;
  j["calls"] = t.calls;
  j["peer"] = t.peer;
  j["payload_bytes"] = t.payload;
  j["phase"] = PhaseName(t.phase);
  j["cpu"] = t.cpu;
  j["policy"] = run.policy;
  j["priority"] = run.priority;
  j["virtual_machine"] = run.host.virtual_machine;
  j["unit"] = "ns";
  j["count"] = t.summary.count;
  j["min"] = t.summary.min_ns;
  j["p50"] = t.summary.p50_ns;
  j["p99"] = t.summary.p99_ns;
  j["p99_9"] = t.summary.p999_ns;
  j["max"] = t.summary.max_ns;
  j["mean"] = std::round(t.summary.mean_ns * 10) / 10;
  j["dropped"] = t.dropped;
  j["skipped"] = t.skipped;
  j["error"] = t.error;
  if (t.period_ns > 0) {
    j["period_ns"] = t.period_ns;
    j["wakeups"] = t.wakeups;
    j["overruns"] = t.overruns;
    j["elapsed_ns"] = t.elapsed_ns;
    j["achieved_hz"] = std::round(t.AchievedHz() * 10) / 10;
  }
  return j;
}

json HealthLine(const BenchRun& r) {
  json j = Line("timer_health");
  j["verdict"] = r.health.Verdict();
  j["coarse_clock"] = r.health.coarse;
  j["virtual_machine"] = r.health.virtual_machine;
  j["reasons"] = r.health.reasons;
  return j;
}

void ReadRun(const json& j, BenchRun& r) {
  r.tool_version = j.value("tool_version", "");
  r.started_at = j.value("started_at", "");
  r.host = ParseHostFactsJson(j.at("host"));
  r.cpu = j.at("cpu").get<int>();
  r.policy = j.at("policy").get<std::string>();
  r.priority = j.at("priority").get<int>();
  r.realtime = j.at("realtime").get<bool>();
  r.memory_locked = j.at("memory_locked").get<bool>();
  r.quick = j.at("quick").get<bool>();
  r.rr_timeslice_ms = j.value("rr_timeslice_ms", 0);
  r.notes = j.value("notes", std::vector<std::string>{});
  r.interrupted = j.value("interrupted", false);
  for (const json& p : j.at("phases")) {
    PhaseLoad pl;
    const auto phase = ParsePhase(p.at("phase").get<std::string>());
    if (!phase) throw std::invalid_argument("unknown phase \"" + p.at("phase").get<std::string>() + "\"");
    pl.phase = *phase;
    pl.policy = p.value("load_policy", "");
    pl.priority = p.value("load_priority", 0);
    auto cpus = CpuSet::ParseList(p.value("load_cpus", ""));
    if (!cpus) throw std::invalid_argument("load_cpus: " + cpus.error().message);
    pl.cpus = *cpus;
    r.phases.push_back(pl);
  }
}

TestResult ReadResult(const json& j) {
  TestResult t;
  t.id = j.at("id").get<std::string>();
  const auto group = ParseGroup(j.at("group").get<std::string>());
  if (!group) throw std::invalid_argument("unknown group \"" + j.at("group").get<std::string>() + "\"");
  t.group = *group;
  const auto phase = ParsePhase(j.at("phase").get<std::string>());
  if (!phase) throw std::invalid_argument("unknown phase \"" + j.at("phase").get<std::string>() + "\"");
  t.phase = *phase;
  t.title = j.value("title", "");
  t.calls = j.value("calls", "");
  t.peer = j.value("peer", "");
  t.payload = j.value("payload_bytes", 0u);
  t.cpu = j.at("cpu").get<int>();
  t.summary.count = j.at("count").get<uint64_t>();
  t.summary.min_ns = j.at("min").get<int64_t>();
  t.summary.p50_ns = j.at("p50").get<int64_t>();
  t.summary.p99_ns = j.at("p99").get<int64_t>();
  t.summary.p999_ns = j.at("p99_9").get<int64_t>();
  t.summary.max_ns = j.at("max").get<int64_t>();
  t.summary.mean_ns = j.value("mean", 0.0);
  t.dropped = j.value("dropped", uint64_t{0});
  t.skipped = j.value("skipped", "");
  t.error = j.value("error", "");
  t.period_ns = j.value("period_ns", int64_t{0});
  t.wakeups = j.value("wakeups", uint64_t{0});
  t.overruns = j.value("overruns", uint64_t{0});
  t.elapsed_ns = j.value("elapsed_ns", int64_t{0});
  return t;
}

}  // namespace

std::string RenderJsonLines(const BenchRun& run) {
  std::string out = RunLine(run).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  for (const TestResult& t : run.results) out += ResultLine(run, t).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  out += HealthLine(run).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  return out;
}

Result<BenchRun> ParseJsonLines(std::string_view text, const std::string& source) {
  BenchRun run;
  bool have_run = false;
  int number = 0;
  for (std::string_view line : SplitLines(text)) {
    ++number;
    const std::string where = source + ":" + std::to_string(number) + ": ";
    if (TrimView(line).empty()) continue;
    json j;
    try {
      j = json::parse(line);
    } catch (const json::exception& e) {
      return InvalidInput(where + "not a JSON line (" + JsonReason(e) + ")");
    }
    try {
      if (!j.is_object() || j.value("schema", "") != kBenchSchema) {
        return InvalidInput(where + "not a line of an rtagent bench run (schema " + kBenchSchema + ")");
      }
      const std::string type = j.value("type", "");
      if (type == "run") {
        ReadRun(j, run);
        have_run = true;
      } else if (type == "result") {
        run.results.push_back(ReadResult(j));
      } else if (type == "timer_health") {
        run.health.coarse = j.at("coarse_clock").get<bool>();
        run.health.virtual_machine = j.at("virtual_machine").get<bool>();
        run.health.reasons = j.value("reasons", std::vector<std::string>{});
      } else {
        return InvalidInput(where + "unknown line type \"" + type + "\"");
      }
    } catch (const std::exception& e) {
      return InvalidInput(where + JsonReason(e));
    }
  }
  if (!have_run) return InvalidInput(source + ": no \"run\" line: not the JSON lines of `rtagent bench --json`");
  return run;
}

}  // namespace rtagent::bench

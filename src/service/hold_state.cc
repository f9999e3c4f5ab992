#include "service/hold_state.h"

#include <sys/stat.h>

#include <cerrno>
#include <map>
#include <sstream>

#include "base/count_text.h"
#include "base/cpuset.h"
#include "base/json_reason.h"
#include "base/kernel_paths.h"
#include "base/pm_qos.h"
#include "base/time_text.h"

namespace rtagent::service {

using nlohmann::json;

void HoldState::AddDrift(DriftEvent e) {
  drift.push_back(std::move(e));
  while (drift.size() > kMaxDriftEvents) drift.pop_front();
  ++drift_total;
}

std::string StatePath() { return kpath::kRunDir + "/state.json"; }

std::string StateFileOnHost(const SysRoot& root) {
  return root.HostPath(StatePath());
}

std::string TextfileOnHost(const SysRoot& root, const std::string& path) {
  return root.HostPath(path);
}

namespace {

// A time stamp of the state file, "never" for one that has not happened (0).
std::string At(int64_t t) { return t <= 0 ? "never" : IsoTime(t); }

template <typename T>
json Opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

std::string Ago(int64_t now, int64_t then) {
  if (then <= 0) return "never";
  int64_t d = now - then;
  if (d < 0) d = 0;
  std::ostringstream o;
  if (d >= 86400) o << d / 86400 << "d " << (d % 86400) / 3600 << "h";
  else if (d >= 3600) o << d / 3600 << "h " << (d % 3600) / 60 << "m";
  else if (d >= 60) o << d / 60 << "m " << d % 60 << "s";
  else o << d << "s";
  return At(then) + " (" + o.str() + " ago)";
}

// Label values escape \, " and newline (exposition format).
std::string Label(const std::string& v) {
  std::string o;
  for (char c : v) {
    if (c == '\\' || c == '"') o += '\\';
    if (c == '\n') {
      o += "\\n";
      continue;
    }
    o += c;
  }
  return o;
}

}  // namespace

json ToJson(const HoldState& s) {
  json drift = json::array();
  for (const auto& e : s.drift) {
    drift.push_back({{"time", e.time},
                     {"at", At(e.time)},
                     {"section", e.section},
                     {"what", e.what},
                     {"key", e.key},
                     {"old", e.old_value},
                     {"new", e.new_value},
                     {"outcome", e.outcome}});
    if (!e.cause.empty()) drift.back()["cause"] = e.cause;
    if (e.cpu_mask) drift.back()["cpu_mask"] = true;
  }
  const VerifyResult& v = s.last_verify;
  json j = {
      {"pid", s.pid},
      {"state", s.state},
      {"profile", s.profile},
      {"root", s.root},
      {"since", s.since},
      {"since_at", At(s.since)},
      {"updated", s.updated},
      {"on_stop", s.on_stop},
      {"watch_interval", s.watch_interval},
      {"cpus", s.cpus},
      {"pm_qos_us", Opt(s.pm_qos_us)},
      {"applied", s.applied},
      {"unchangeable", s.unchangeable},
      {"reboot_required", s.reboot_required},
      {"ticks", s.ticks},
      {"replans", s.replans},
      {"last_replan", s.last_replan},
      {"replan_interval", s.replan_interval},
      {"last_tick_us", s.last_tick_us},
      {"drift_total", s.drift_total},
      {"drift", drift},
      {"last_verify",
       {{"time", v.time},
        {"result", v.result},
        {"differs", v.differs},
        {"pass", v.pass},
        {"warn", v.warn},
        {"fail", v.fail},
        {"skip", v.skip},
        {"suite", v.suite},
        {"summary", v.summary}}},
      {"last_reload", s.last_reload},
      {"last_reload_time", s.last_reload_time},
      {"stop_reason", s.stop_reason},
      {"prometheus_textfile", s.prometheus_textfile},
  };
  if (s.verdict) {
    j["verdict"] = {{"path", s.verdict->path},
                    {"pass", s.verdict->pass},
                    {"started_at", s.verdict->started_at},
                    {"ended_at", Opt(s.verdict->ended_at)},
                    {"worst_us", Opt(s.verdict->worst_us)},
                    {"cpus", json::array()}};
    for (const VerdictCpuSummary& c : s.verdict->cpus) {
      j["verdict"]["cpus"].push_back({{"cpu", c.cpu},
                                      {"worst_us", Opt(c.worst_us)},
                                      {"p99_us", Opt(c.p99_us)},
                                      {"overflows", c.overflows},
                                      {"samples", c.samples}});
    }
  } else {
    j["verdict"] = nullptr;
  }
  auto put_back = [](const std::optional<RevertedSince>& r) -> json {
    if (!r) return nullptr;
    return {{"time", r->time}, {"at", At(r->time)}, {"restored", r->restored}, {"failed", r->failed}};
  };
  j["reverted_since"] = put_back(s.reverted);
  j["put_back_at_stop"] = put_back(s.put_back_at_stop);
  return j;
}

Result<HoldState> ParseHoldState(const std::string& text) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return MakeError("not a JSON object");
  try {
    HoldState s;
    s.pid = j.at("pid").get<int>();
    s.state = j.at("state").get<std::string>();
    s.profile = j.value("profile", "");
    s.root = j.value("root", "");
    s.since = j.value("since", int64_t{0});
    s.updated = j.value("updated", int64_t{0});
    s.on_stop = j.value("on_stop", "");
    s.watch_interval = j.value("watch_interval", "");
    s.cpus = j.value("cpus", "");
    if (j.contains("pm_qos_us") && j["pm_qos_us"].is_number()) s.pm_qos_us = j["pm_qos_us"].get<int>();
    s.applied = j.value("applied", 0);
    s.unchangeable = j.value("unchangeable", 0);
    s.reboot_required = j.value("reboot_required", 0);
    s.ticks = j.value("ticks", uint64_t{0});
    s.replans = j.value("replans", uint64_t{0});
    s.last_replan = j.value("last_replan", "");
    s.replan_interval = j.value("replan_interval", "");
    s.last_tick_us = j.value("last_tick_us", int64_t{0});
    if (j.contains("drift")) {
      for (const auto& e : j.at("drift")) {
        s.drift.push_back({e.value("time", int64_t{0}), e.value("section", ""), e.value("what", ""), e.value("key", ""),
                           e.value("old", ""), e.value("new", ""), e.value("outcome", ""), e.value("cause", ""),
                           e.value("cpu_mask", false)});
      }
    }
    s.drift_total = j.value("drift_total", uint64_t{s.drift.size()});
    if (j.contains("last_verify") && j["last_verify"].is_object()) {
      const json& v = j["last_verify"];
      s.last_verify = {v.value("time", int64_t{0}), v.value("result", ""), v.value("differs", 0), v.value("pass", 0),
                       v.value("warn", 0), v.value("fail", 0), v.value("skip", 0), v.value("suite", ""),
                       v.value("summary", "")};
    }
    s.last_reload = j.value("last_reload", "");
    s.last_reload_time = j.value("last_reload_time", int64_t{0});
    s.stop_reason = j.value("stop_reason", "");
    s.prometheus_textfile = j.value("prometheus_textfile", "");
    if (j.contains("verdict") && j["verdict"].is_object()) {
      const json& v = j["verdict"];
      VerdictSummary vs;
      vs.path = v.value("path", "");
      vs.pass = v.value("pass", false);
      vs.started_at = v.value("started_at", "");
      if (v.contains("worst_us") && v["worst_us"].is_number()) vs.worst_us = v["worst_us"].get<double>();
      if (v.contains("ended_at") && v["ended_at"].is_number_integer()) vs.ended_at = v["ended_at"].get<int64_t>();
      if (v.contains("cpus") && v["cpus"].is_array()) {
        for (const json& c : v["cpus"]) {
          if (!c.is_object() || !c.contains("cpu") || !c["cpu"].is_number_integer()) continue;
          VerdictCpuSummary cs;
          cs.cpu = c["cpu"].get<int>();
          if (c.contains("worst_us") && c["worst_us"].is_number()) cs.worst_us = c["worst_us"].get<double>();
          if (c.contains("p99_us") && c["p99_us"].is_number()) cs.p99_us = c["p99_us"].get<double>();
          if (c.contains("overflows") && c["overflows"].is_number_unsigned()) cs.overflows = c["overflows"].get<uint64_t>();
          if (c.contains("samples") && c["samples"].is_number_unsigned()) cs.samples = c["samples"].get<uint64_t>();
          vs.cpus.push_back(cs);
        }
      }
      s.verdict = vs;
    }
    for (auto [key, field] : {std::pair{"reverted_since", &s.reverted}, std::pair{"put_back_at_stop", &s.put_back_at_stop}}) {
      if (j.contains(key) && j[key].is_object()) {
        const json& r = j[key];
        *field = RevertedSince{r.value("time", int64_t{0}), r.value("restored", 0), r.value("failed", 0)};
      }
    }
    return s;
  } catch (const json::exception& e) {
    return MakeError("unexpected content: " + JsonReason(e));
  }
}

Result<std::optional<HoldState>> ReadHoldState(const SysRoot& root) {
  auto text = root.Read(StatePath());
  if (!text) {
    if (text.error().err == ENOENT) return std::optional<HoldState>();
    return text.error();
  }
  auto state = ParseHoldState(*text);
  if (!state) return Wrap(StateFileOnHost(root) + ": ", state.error());
  return std::optional<HoldState>(std::move(*state));
}

Result<void> NoteRevertSince(SysRoot& root, const RevertedSince& what) {
  auto read = ReadHoldState(root);
  if (!read) return read.error();
  if (!*read) return {};
  HoldState s = std::move(**read);
  s.reverted = what;  // `updated` stays the hold's own last word: "stopped at" and "last seen" read it
  if (auto w = root.WriteDurable(StatePath(), ToJson(s).dump(2, ' ', false, json::error_handler_t::replace) + "\n"); !w) {
    return Wrap(StateFileOnHost(root) + ": ", w.error());
  }
  // The textfile is the hold's, at the path its profile named; one taken away since
  // (node_exporter's directory cleaned) is not made again.
  const std::string textfile = s.prometheus_textfile.empty() ? "" : TextfileOnHost(root, s.prometheus_textfile);
  struct stat st {};
  if (!textfile.empty() && ::stat(textfile.c_str(), &st) == 0) {
    if (auto w = WriteFileAtomic(textfile, RenderPrometheus(s, false)); !w) {
      return Wrap("the Prometheus textfile: ", w.error());
    }
  }
  return {};
}

std::optional<int32_t> HeldPmQosNote(const SysRoot& root) {
  auto state = ReadHoldState(root);
  if (!state || !*state || !(*state)->pm_qos_us) return std::nullopt;
  const int us = *(*state)->pm_qos_us;
  if (us < 0 || us > kPmQosNoLimitUs) return std::nullopt;
  return us;
}

namespace {

// Everything status prints below its first line, which says whether the hold runs.
void StatusBody(std::ostream& o, const HoldState& s, bool running, int64_t now);

}  // namespace

std::string RenderStatusText(const HoldState& s, bool running, int64_t now) {
  std::ostringstream o;
  if (running) {
    o << "rtagent hold: running (pid " << s.pid << "), " << s.state << " " << s.profile << "\n";
  } else if (s.state == "stopped" || s.state == "failed") {
    o << "rtagent hold: not running (" << s.state << " at " << At(s.updated)
      << (s.stop_reason.empty() ? "" : ": " + s.stop_reason) << ")\n";
  } else {
    o << "rtagent hold: not running (pid " << s.pid << " is gone; it was " << s.state << " " << s.profile
      << ", last seen " << At(s.updated) << ")\n";
  }
  if (s.reverted && !running) {
    o << "  since then:     `rtagent revert` put back " << CountOf(s.reverted->restored, "value", "values") << " at "
      << At(s.reverted->time);
    if (s.reverted->failed) o << "; " << CountOf(s.reverted->failed, "value", "values") << " could not be";
    o << "\n";
  }
  StatusBody(o, s, running, now);
  return o.str();
}

std::string RenderOnceText(const HoldState& s, int64_t now) {
  std::ostringstream o;
  // The reason starts with what stopped it ("--once: state kept ..."), which the line has said.
  std::string how = s.stop_reason;
  if (how.rfind("--once: ", 0) == 0) how.erase(0, 8);
  o << "rtagent hold --once: one pass (pid " << s.pid << ") applied and verified " << s.profile << ", then stopped"
    << (how.empty() ? "" : ": " + how) << "\n";
  StatusBody(o, s, false, now);
  return o.str();
}

namespace {

void StatusBody(std::ostream& o, const HoldState& s, bool running, int64_t now) {
  o << "  profile:        " << s.profile << (s.root.empty() || s.root == "/" ? "" : " on root " + s.root) << "\n";
  o << "  since:          " << Ago(now, s.since) << "\n";
  o << "  runs on CPUs:   " << s.cpus << ", SCHED_OTHER\n";
  o << "  PM QoS note:    "
    << (s.pm_qos_us ? std::to_string(*s.pm_qos_us) + " us on /" + kpath::kCpuDmaLatency + (running ? " (held)" : " (released)")
                    : std::string("none asked"))
    << "\n";
  o << "  held values:    " << s.applied << " written";
  if (s.unchangeable) o << ", " << s.unchangeable << " the kernel refuses to change";
  if (s.reboot_required) o << ", " << s.reboot_required << " waiting for a reboot";
  o << "\n";
  o << "  watch:          every " << s.watch_interval << ", " << s.ticks << " ticks, " << s.drift_total
    << " drift events\n";
  if (!s.replan_interval.empty()) {
    o << "  full re-plans:  " << s.replans << " (when a cheap signal moves, at least every " << s.replan_interval
      << ")";
    if (!s.last_replan.empty()) o << ", last: " << s.last_replan;
    o << "\n";
  }
  o << "  on stop:        " << s.on_stop << "\n";
  const VerifyResult& v = s.last_verify;
  if (v.time > 0) {
    o << "  last verify:    " << v.result << " at " << At(v.time) << ": " << v.summary << "\n";
  } else {
    o << "  last verify:    never\n";
  }
  if (!s.last_reload.empty()) o << "  last reload:    " << s.last_reload << " at " << At(s.last_reload_time) << "\n";
  if (s.verdict) {
    o << "  latency verdict: " << (s.verdict->pass ? "PASS" : "FAIL") << " (" << s.verdict->started_at;
    if (s.verdict->worst_us) o << ", worst " << *s.verdict->worst_us << " us";
    o << ") " << s.verdict->path << "\n";
  }
  if (!s.drift.empty()) {
    o << "\nrecent drift (newest last, " << s.drift.size() << " of " << s.drift_total << "):\n";
    for (const auto& e : s.drift) {
      auto shown = [&e](const std::string& v) { return e.cpu_mask ? MaskWithCpus(v) : v; };
      o << "  " << At(e.time) << "  " << e.what << ": " << shown(e.old_value) << " -> " << shown(e.new_value) << "  "
        << e.outcome << (e.cause.empty() ? "" : "; moved by " + e.cause) << "\n";
    }
  }
}

// One metric's HELP and TYPE lines (text exposition format 0.0.4).
void Metric(std::ostream& o, const std::string& name, const std::string& type, const std::string& help) {
  o << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n";
}

// The last latency verdict's figures, for the whole run and per measured CPU.
void VerdictMetrics(std::ostream& o, const VerdictSummary& verdict) {
  Metric(o, "rtagent_latency_verdict_pass", "gauge", "1 when the last loaded latency acceptance test passed.");
  o << "rtagent_latency_verdict_pass{verdict=\"" << Label(verdict.path) << "\"} " << (verdict.pass ? 1 : 0) << "\n";
  if (verdict.worst_us) {
    Metric(o, "rtagent_latency_worst_us", "gauge", "Worst wake-up latency of the last acceptance test, in microseconds.");
    o << "rtagent_latency_worst_us " << *verdict.worst_us << "\n";
  }
  if (verdict.ended_at) {
    Metric(o, "rtagent_latency_run_end_time_seconds", "gauge", "When the last acceptance test's measuring ended (unix time).");
    o << "rtagent_latency_run_end_time_seconds " << *verdict.ended_at << "\n";
  }
  // Per CPU: a figure the verdict does not know (no sample; a p99 beyond the histogram's
  // limit) is left out, not written as 0, which a dashboard would read as a perfect CPU.
  auto per_cpu = [&](const std::string& name, const std::string& type, const std::string& help, auto value) {
    bool any = false;
    for (const VerdictCpuSummary& c : verdict.cpus) {
      const std::optional<double> v = value(c);
      if (!v) continue;
      if (!any) Metric(o, name, type, help);
      any = true;
      o << name << "{cpu=\"" << c.cpu << "\"} " << *v << "\n";
    }
  };
  per_cpu("rtagent_latency_cpu_worst_us", "gauge", "Worst wake-up latency of the last acceptance test on this CPU, in microseconds.",
          [](const VerdictCpuSummary& c) { return c.worst_us; });
  per_cpu("rtagent_latency_cpu_p99_us", "gauge", "99th percentile of the wake-up latency of the last acceptance test on this CPU, in microseconds.",
          [](const VerdictCpuSummary& c) { return c.p99_us; });
  per_cpu("rtagent_latency_cpu_overflows", "gauge", "Wake-ups of the last acceptance test on this CPU beyond the histogram's limit.",
          [](const VerdictCpuSummary& c) { return std::optional<double>(static_cast<double>(c.overflows)); });
  per_cpu("rtagent_latency_cpu_samples", "gauge", "Wake-ups measured by the last acceptance test on this CPU.",
          [](const VerdictCpuSummary& c) { return std::optional<double>(static_cast<double>(c.samples)); });
}

}  // namespace

std::string RenderPrometheus(const HoldState& s, bool up) {
  std::ostringstream o;
  // 15 significant digits: a count of 10^7 wake-ups or a 10 s latency in µs stays a plain
  // number (the default 6 would write 1e+07), and 7.8 stays 7.8.
  o.precision(15);
  const std::string prof = "{profile=\"" + Label(s.profile) + "\"}";
  Metric(o, "rtagent_hold_up", "gauge", "1 while rtagent hold holds the tuned state.");
  o << "rtagent_hold_up" << prof << " " << (up ? 1 : 0) << "\n";
  Metric(o, "rtagent_hold_start_time_seconds", "gauge", "When rtagent hold first held the state (unix time).");
  o << "rtagent_hold_start_time_seconds " << s.since << "\n";
  Metric(o, "rtagent_pm_qos_held_us", "gauge", "The PM QoS note held on /dev/cpu_dma_latency (-1: none).");
  o << "rtagent_pm_qos_held_us " << (up && s.pm_qos_us ? *s.pm_qos_us : -1) << "\n";
  // Put back by the hold as it stopped (on_stop: revert) or by `rtagent revert` after it.
  const std::optional<RevertedSince>& put_back = s.reverted ? s.reverted : s.put_back_at_stop;
  Metric(o, "rtagent_held_values", "gauge",
         "Values written to hold the profile (start, reloads and re-asserts); 0 once they were put back.");
  o << "rtagent_held_values " << (put_back ? 0 : s.applied) << "\n";
  if (put_back) {
    Metric(o, "rtagent_revert_time_seconds", "gauge",
           "When the held values were put back: by the hold as it stopped (on_stop: revert), or by rtagent revert (unix time).");
    o << "rtagent_revert_time_seconds " << put_back->time << "\n";
    Metric(o, "rtagent_revert_failed_values", "gauge", "Values that could not be put back (the log or revert's output names them).");
    o << "rtagent_revert_failed_values " << put_back->failed << "\n";
  }
  Metric(o, "rtagent_unchangeable_values", "gauge", "Profile items the kernel refuses to change (per-CPU or managed IRQs).");
  o << "rtagent_unchangeable_values " << s.unchangeable << "\n";
  Metric(o, "rtagent_reboot_required_values", "gauge", "Boot-time items that wait for a reboot.");
  o << "rtagent_reboot_required_values " << s.reboot_required << "\n";
  Metric(o, "rtagent_watch_ticks_total", "counter", "Drift watch ticks run.");
  o << "rtagent_watch_ticks_total " << s.ticks << "\n";
  Metric(o, "rtagent_watch_replans_total", "counter", "Watch ticks that planned the whole profile again.");
  o << "rtagent_watch_replans_total " << s.replans << "\n";
  // Counts by section over the ring would lose old events; the total is exact, the
  // per-section split covers the events still in the ring.
  Metric(o, "rtagent_drift_events_total", "counter", "Values found changed under rtagent hold and re-asserted or refused.");
  o << "rtagent_drift_events_total " << s.drift_total << "\n";
  std::map<std::string, int> by_section;
  for (const auto& e : s.drift) ++by_section[e.section];
  Metric(o, "rtagent_recent_drift_events", "gauge", "Drift events still in the state file's ring, by profile section.");
  for (const auto& [sec, n] : by_section) o << "rtagent_recent_drift_events{section=\"" << Label(sec) << "\"} " << n << "\n";
  const VerifyResult& v = s.last_verify;
  Metric(o, "rtagent_last_verify_status", "gauge", "1 for the status of the last verification (boot suite and conformance).");
  for (const char* st : {"PASS", "WARN", "FAIL", "SKIP"}) {
    o << "rtagent_last_verify_status{status=\"" << st << "\"} " << (v.result == st ? 1 : 0) << "\n";
  }
  Metric(o, "rtagent_last_verify_timestamp_seconds", "gauge", "When the last verification ran (unix time; 0 never).");
  o << "rtagent_last_verify_timestamp_seconds " << v.time << "\n";
  Metric(o, "rtagent_last_verify_differs", "gauge", "Profile items that did not match at the last verification.");
  o << "rtagent_last_verify_differs " << v.differs << "\n";
  if (s.verdict) VerdictMetrics(o, *s.verdict);
  return o.str();
}

}  // namespace rtagent::service

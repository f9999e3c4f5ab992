#include "cli/acceptance_run.h"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <thread>

#include "base/exit_codes.h"
#include "base/kernel_paths.h"
#include "check/runner.h"
#include "cli/host_facts.h"
#include "cli/preflight.h"
#include "cli/stop_signal.h"
#include "inspect/irqs.h"
#include "latency/clock_info.h"
#include "latency/load.h"
#include "latency/load_set.h"
#include "latency/sampler.h"
#include "latency/sampler_process.h"
#include "profile/duration.h"
#include "report/diff.h"
#include "report/format.h"
#include "report/judge.h"

namespace rtagent {

namespace {

// ------------------------------------------------------------------------------ sha256

/// SHA-256 (FIPS 180-4) of `data`, as lowercase hex: the profile digest in the verdict.
std::string Sha256Hex(const std::string& data) {
  static const uint32_t k[64] = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
      0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
      0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
      0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
      0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
      0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
      0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
      0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
  uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::string m = data;
  const uint64_t bits = static_cast<uint64_t>(data.size()) * 8;
  m.push_back(static_cast<char>(0x80));
  while (m.size() % 64 != 56) m.push_back('\0');
  for (int i = 7; i >= 0; --i) m.push_back(static_cast<char>((bits >> (i * 8)) & 0xff));
  auto rotr = [](uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };
  for (size_t off = 0; off < m.size(); off += 64) {
    uint32_t w[64];
    for (int i = 0; i < 16; ++i) {
      const auto* p = reinterpret_cast<const unsigned char*>(m.data() + off + i * 4);
      w[i] = (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
    }
    for (int i = 16; i < 64; ++i) {
      const uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; ++i) {
      const uint32_t t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
      const uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      hh = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
  }
  char out[65];
  for (int i = 0; i < 8; ++i) std::snprintf(out + i * 8, 9, "%08x", h[i]);
  return std::string(out, 64);
}

// ------------------------------------------------------------------------------ helpers

std::string NowIso8601Utc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

/// Interrupt counts per row summed over `cpus` (the measured CPUs), keyed by a readable name.
std::map<std::string, uint64_t> InterruptCounts(const SysRoot& root, const CpuSet& cpus) {
  std::map<std::string, uint64_t> out;
  auto text = root.Read(kpath::kInterrupts);
  if (!text) return out;
  const InterruptTable t = ParseInterrupts(*text);
  for (const InterruptRow& row : t.rows) {
    if (row.counts.size() != t.cpus.size()) continue;  // ERR / MIS: one total, not per CPU
    uint64_t sum = 0;
    for (size_t i = 0; i < t.cpus.size(); ++i) {
      if (cpus.Has(t.cpus[i])) sum += row.counts[i];
    }
    std::string name = row.id;
    if (row.irq >= 0) {
      std::string actions;
      for (const std::string& a : row.actions) actions += (actions.empty() ? "" : ",") + a;
      if (!actions.empty()) name += " " + actions;
    } else if (!row.description.empty()) {
      name += " (" + row.description + ")";
    }
    out[name] += sum;
  }
  return out;
}

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

/// The live progress line: elapsed, remaining and the worst wake-up so far on each CPU.
std::string ProgressLine(const SamplerProcess& s, std::chrono::steady_clock::time_point start, int64_t duration_ns) {
  const int64_t elapsed =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
  std::string line = "accept: " + FormatDuration(std::min(elapsed, duration_ns)) + " elapsed, " +
                     FormatDuration(std::max<int64_t>(0, duration_ns - elapsed)) + " left; worst";
  for (const CpuProgress& p : s.Progress()) {
    line += " CPU" + std::to_string(p.cpu) + " " + (p.worst_ns ? FormatNsAsUs(*p.worst_ns) + " µs" : std::string("-"));
  }
  return line;
}

std::string Pad(const std::string& s, size_t w) {
  // µs is two bytes but one column: count UTF-8 continuation bytes out.
  size_t cols = 0;
  for (unsigned char c : s) cols += (c & 0xc0) != 0x80;
  return cols >= w ? s : std::string(w - cols, ' ') + s;
}

std::string PercentileText(const LatencyStats& st, double q) {
  const Percentile* p = st.Find(q);
  if (p == nullptr || (!p->us && !p->beyond_limit)) return "-";
  return p->beyond_limit ? "beyond" : std::to_string(*p->us);
}

void PrintSummary(const Verdict& v, bool color) {
  auto bold = [&](const std::string& s) { return color ? "\033[1m" + s + "\033[0m" : s; };
  std::cout << bold(std::string("accept: ") + (v.pass ? "PASS" : "FAIL")) << " — " << v.profile_name << ", "
            << FormatDuration(v.config.duration_actual_ns) << " on CPUs " << v.config.cpus.ToList() << " ("
            << v.config.policy << " " << v.config.priority << ", every " << v.config.interval_us << " µs)"
            << (v.interrupted ? ", INTERRUPTED" : "") << "\n";
  std::cout << "host: " << v.host.hostname << ", kernel " << v.host.kernel_release
            << (v.host.preempt_rt ? " (PREEMPT_RT)" : " (not PREEMPT_RT)") << ", clocksource "
            << (v.host.clocksource.empty() ? "unknown" : v.host.clocksource) << ", virtual machine "
            << (v.host.virtual_machine ? "yes" + (v.host.hypervisor.empty() ? "" : " (" + v.host.hypervisor + ")")
                                       : std::string("no"))
            << "\n";
  for (const TrustWarning& w : v.warnings) std::cout << "warning: " << w.text << "\n";
  std::cout << "\n"
            << Pad("CPU", 5) << Pad("samples", 12) << Pad("min µs", 9) << Pad("p99 µs", 9) << Pad("p99.9 µs", 10)
            << Pad("max µs", 10) << Pad("overflows", 11) << "\n";
  for (const CpuResult& c : v.cpus) {
    const LatencyStats& st = c.stats;
    std::cout << Pad(std::to_string(c.cpu), 5) << Pad(FormatCount(st.samples), 12)
              << Pad(st.min_ns ? FormatNsAsUs(*st.min_ns) : "-", 9) << Pad(PercentileText(st, 0.99), 9)
              << Pad(PercentileText(st, 0.999), 10) << Pad(st.max_ns ? FormatNsAsUs(*st.max_ns) : "-", 10)
              << Pad(FormatCount(st.overflows), 11) << "\n";
  }
  std::cout << "\n";
  for (const Criterion& k : v.criteria) {
    std::cout << (k.pass ? "PASS " : "FAIL ") << k.name << " (" << k.Role() << "): " << k.evidence << "\n";
  }
}

}  // namespace

class PreparedAcceptance {
 public:
  PreparedAcceptance(LoadedProfile& lp) : lp(lp), loads(*lp.root) {}
  LoadedProfile& lp;
  std::chrono::nanoseconds duration{0};
  SamplerConfig sampler;
  CpuSet load_cpus;
  LoadSet loads;
  std::optional<Verdict> baseline;
  bool used = false;
};

std::string AcceptanceCannotRunReason(const SysRoot& root, int priority) {
  // A latency test measures the machine it runs on; a fixture tree has no clock to measure.
  if (!root.IsLive()) {
    return "a latency test measures the live machine only; --root " + root.Dir() +
           " is a fixture tree (run it without --root)";
  }
  if (::geteuid() != 0) {
    return "the sampler needs root (SCHED_FIFO priority " + std::to_string(priority) +
           " and locked memory); run it with sudo";
  }
  return "";
}

Result<std::shared_ptr<PreparedAcceptance>> PrepareAcceptance(LoadedProfile& lp, const AcceptanceRequest& request) {
  const profile::Profile& p = lp.profile;
  const profile::AcceptanceConfig& a = p.acceptance;
  auto prep = std::make_shared<PreparedAcceptance>(lp);

  prep->duration = a.duration.value;
  if (!request.duration.empty()) {
    auto d = profile::ParseDuration(request.duration);
    if (!d) return MakeError("--duration " + request.duration + ": " + d.error().message);
    prep->duration = *d;
  }
  if (prep->duration.count() <= 0) return MakeError("--duration must be longer than 0");
  // What the checks judge (lint.acceptance_short, commission's verify) is the run that will
  // happen: the --duration given, not the one the profile writes.
  lp.profile.acceptance.duration.value = prep->duration;
  if (auto ok = CheckOutputs(request.outputs); !ok) return ok.error();
  if (!request.baseline.empty()) {
    auto b = ReadVerdictFile(request.baseline);
    if (!b) return MakeError("--baseline: " + b.error().message);
    prep->baseline = std::move(*b);
  }
  if (request.preflight_suite != "none") {
    if (auto s = check::LoadSuite(request.preflight_suite); !s) {
      return MakeError("pre-flight suite " + request.preflight_suite + ": " + s.error().message);
    }
  }

  SamplerConfig& sc = prep->sampler;
  sc.cpus = a.cpus.value.cpus;
  sc.interval = std::chrono::microseconds(a.interval_us.value);
  sc.duration = prep->duration;
  sc.priority = a.priority.value;
  sc.histogram_limit_us = static_cast<uint32_t>(a.histogram_limit_us.value);
  if (a.pm_qos_us.value) sc.hold_pm_qos_us = *a.pm_qos_us.value;
  if (auto ok = Sampler::Validate(sc); !ok) return ok.error();

  // Loads are made now: a missing external program is bad input, found before anything runs.
  prep->load_cpus = a.load_cpus.value.cpus;
  std::string log_dir = request.log_dir;
  if (log_dir.empty()) {
    std::string json_path;
    for (const VerdictOutput& o : request.outputs) {
      if (o.format == "json" && !o.path.empty() && o.path != "-") json_path = o.path;
    }
    log_dir = json_path.empty() ? std::filesystem::temp_directory_path().string()
                                : (std::filesystem::path(json_path).parent_path().empty()
                                       ? std::string(".")
                                       : std::filesystem::path(json_path).parent_path().string());
  }
  SysRoot& root = *lp.root;
  for (const profile::Load& l : a.loads) {
    Result<std::unique_ptr<Load>> made = MakeError("no load");
    if (l.builtin) {
      BuiltinLoadOptions bo;
      if (l.workers.IsSet()) bo.workers = l.workers.value;
      made = MakeBuiltinLoad(profile::ToString(l.kind), bo, root);
    } else {
      ExternalLoadSpec es;
      es.name = l.name;
      es.argv = l.argv;
      es.log_path = log_dir + "/rtagent-load-" + (l.name.empty() ? "external" : l.name) + "-" +
                    std::to_string(::getpid()) + ".log";
      made = MakeExternalLoad(es, root);
    }
    if (!made) return MakeError("load " + l.name + ": " + made.error().message);
    prep->loads.Add(std::move(*made), l.cpus.IsSet() ? l.cpus.value.cpus : CpuSet());
  }
  if (prep->loads.Size() > 0 && prep->load_cpus.Intersects(sc.cpus)) {
    return MakeError("the loads' CPUs " + prep->load_cpus.ToList() + " overlap the measured CPUs " + sc.cpus.ToList() +
                     " (set acceptance.loads.cpus or acceptance.cpus apart)");
  }
  return prep;
}

AcceptanceOutcome RunAcceptance(PreparedAcceptance& prep, const AcceptanceRequest& request,
                                std::optional<std::vector<PreflightCheck>> preflight) {
  const std::string prefix = "rtagent " + request.command + ": ";
  auto cannot_run = [&](const std::string& why) {
    std::cerr << prefix << why << "\n";
    return AcceptanceOutcome{kExitCannotRun, std::nullopt};
  };
  if (prep.used) return cannot_run("internal: an acceptance run was prepared once and run twice");
  prep.used = true;
  SysRoot& root = *prep.lp.root;
  const profile::Profile& p = prep.lp.profile;
  const SamplerConfig& sc = prep.sampler;
  LoadSet& loads = prep.loads;
  if (std::string why = AcceptanceCannotRunReason(root, sc.priority); !why.empty()) {
    return cannot_run(why + ". Nothing was run");
  }
  StopSignals signals;  // nested inside commission's: Ctrl-C stops the sampler, then the caller

  // ---- pre-flight: the caller's answers (commission's verify), else a fast suite
  if (!preflight) {
    preflight.emplace();
    if (request.preflight_suite != "none") {
      auto suite = check::LoadSuite(request.preflight_suite);
      if (!suite) return cannot_run("pre-flight suite " + request.preflight_suite + ": " + suite.error().message);
      check::RunOptions ro;
      ro.stop = &StopFlag();
      std::cout << request.command << ": pre-flight checks (" << suite->name << " suite)\n" << std::flush;
      *preflight = PreflightFromSuite(check::RunSuite(p, root, *suite, ro));
    }
  }

  // ---- host facts, before the run
  Verdict v;
  v.tool_version = request.version;
  v.started_at = NowIso8601Utc();
  v.profile_name = p.name.IsSet() && !p.name.value.empty() ? p.name.value : p.path;
  {
    std::string all;
    for (const std::string& f : p.files) {
      auto t = ReadTextFile(f);
      if (t) all += *t;
    }
    if (!request.duration.empty()) all += "\n# --duration " + request.duration + "\n";
    v.profile_digest = "sha256:" + Sha256Hex(all.empty() ? p.path : all);
  }
  v.host = CollectHostFacts(root);
  ClockVerdictInput ci;
  if (auto clock = MeasureClock(); clock) {
    ci.clock = *clock;
    ci.clock.clocksource = v.host.clocksource;
    v.host.clock_resolution_ns = clock->resolution_ns;
    v.host.clock_read_cost_ns = clock->read_cost_ns;
  }
  ci.virtual_machine = v.host.virtual_machine;
  ci.interval_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(sc.interval).count();
  // The note in force is the tuned state's (hold) or nobody's; the sampler's own, when the
  // profile asks for one, replaces it in AddSamplerResult and is warned about.
  v.config.pm_qos_device_us = ReadPmQosDevice(root);
  v.config.pm_qos_hold_us = ReadHoldPmQos(root);
  v.config.pm_qos = JudgePmQos(v.config.pm_qos_device_us, v.config.pm_qos_hold_us);
  const auto irq_before = InterruptCounts(root, sc.cpus);

  // ---- the run: loads first, then the sampler; Ctrl-C stops early and still judges
  if (loads.Size() > 0) {
    if (auto ok = loads.Start(prep.load_cpus, sc.cpus); !ok) {
      return cannot_run("cannot start the loads: " + ok.error().message);
    }
  }
  // The measuring loop runs in rtagent-sampler, a process of its own: its mlockall() then
  // locks that small program's pages, not all of rtagent's (docs/performance.md).
  SamplerProcess sampler(sc, root);
  if (auto ok = sampler.Start(); !ok) {
    loads.Stop();
    return cannot_run("cannot start the sampler: " + ok.error().message);
  }
  SetStopTarget(&sampler);
  if (StopFlag().load()) sampler.RequestStop();

  const char* ci_env = std::getenv("CI");
  const bool live_line = ::isatty(STDOUT_FILENO) && !(ci_env != nullptr && std::string(ci_env) == "true");
  const auto start = std::chrono::steady_clock::now();
  size_t last_len = 0;
  while (!sampler.Finished()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    if (live_line) {
      std::string line = ProgressLine(sampler, start, prep.duration.count());
      std::cout << "\r" << line << std::string(last_len > line.size() ? last_len - line.size() : 0, ' ') << std::flush;
      last_len = line.size();
    }
  }
  if (live_line) std::cout << "\r" << std::string(last_len, ' ') << "\r" << std::flush;
  auto run = sampler.Wait();
  SetStopTarget(nullptr);
  loads.Stop();
  if (!run) return cannot_run("the sampler failed: " + run.error().message);
  const auto irq_after = InterruptCounts(root, sc.cpus);

  // ---- the verdict
  AddSamplerResult(v, std::move(*run));
  v.interrupted = v.interrupted || StopFlag().load();
  v.preflight = std::move(*preflight);
  for (const LoadReport& r : loads.Reports()) {
    LoadResult l;
    l.name = r.name;
    l.cpus_asked = r.cpus_asked;
    l.cpus_ran = r.placement.seen;
    l.log_path = r.log_path;
    ParseLoadExit(r.exit, l);
    v.loads.push_back(std::move(l));
  }
  if (loads.Size() > 0) {
    PreflightCheck pc;
    pc.name = "loads";
    const std::vector<std::string> problems = loads.Problems();
    pc.passed = problems.empty();
    for (const std::string& s : problems) pc.reason += (pc.reason.empty() ? "" : "; ") + s;
    if (pc.passed) pc.reason = std::to_string(loads.Size()) + " load(s) ran throughout, where they were put";
    v.preflight.push_back(std::move(pc));
  }
  for (const auto& [name, after] : irq_after) {
    auto it = irq_before.find(name);
    const uint64_t before = it == irq_before.end() ? 0 : it->second;
    if (after > before) v.interrupts.push_back({name, after - before});
  }
  // Clock honesty needs the run's median wake-up (a coarse timer shows there).
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
  Judge(v, LimitsOf(p.acceptance, prep.duration.count()));

  std::optional<VerdictDiff> diff;
  if (prep.baseline) {
    diff = DiffVerdicts(*prep.baseline, v);
    Criterion k;
    k.name = "baseline";
    k.limit = 0;
    int regressions = 0;
    for (const RoleDiff& r : diff->roles) regressions += r.regression;
    k.measured = regressions;
    k.measured_text = diff->regression ? "regressed" : "no regression";
    k.pass = !diff->regression;
    k.evidence = "compared with " + request.baseline + ": " +
                 (diff->regression ? std::to_string(regressions) + " role(s) regressed" +
                                         (diff->before_pass && !diff->after_pass ? ", PASS became FAIL" : "")
                                   : std::string("nothing got worse beyond the tolerance"));
    v.criteria.push_back(std::move(k));
    v.pass = v.pass && !diff->regression;
  }

  AcceptanceOutcome out;
  if (auto ok = WriteOutputs(v, request.outputs); !ok) {
    PrintSummary(v, request.color);
    std::cerr << prefix << ok.error().message << "\n";
    out.exit_code = kExitCannotRun;
    out.verdict = std::move(v);
    return out;
  }
  PrintSummary(v, request.color);
  if (diff) std::cout << "\n" << RenderDiffMarkdown(*diff);
  out.exit_code = v.pass ? kExitOk : kExitFail;
  out.verdict = std::move(v);
  return out;
}

}  // namespace rtagent

// `rtagent accept`, `diff` and `report` as a user runs them: the built binary, exit codes and
// the files it writes. The accept runs measure this live machine for 1-2 s and need root
// (SCHED_FIFO, mlockall) and two CPUs (one housekeeping for the load, one measured); they are
// skipped with the reason otherwise.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "base/shell_test_support.h"
#include "base/kernel_paths.h"
#include "base/sysroot.h"
#include "profile/test_support.h"
#include "base/skip_test_support.h"
#include "report/html.h"
#include "report/json.h"
#include "report/test_verdict.h"

using rtagent::profile::testing::TempDir;

namespace {

struct Run {
  int code = -1;
  std::string out;  // stdout and stderr together
};

Run RtAgent(const std::string& args, const std::string& env = "") {
  // CI=true: no live progress line (the output is a pipe anyway).
  std::string cmd = "CI=true " + env + " " + std::string(RTAGENT_BINARY) + " " + args + " 2>&1";
  Run r;
  rtagent::test::ShellResult s = rtagent::test::RunShell(cmd);
  r.code = s.code;
  r.out = s.out;
  return r;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A small profile for this machine: CPU 0 takes the load, CPU 1 is measured.
std::string Profile(const std::string& limits, const std::string& loads = "    builtin: [cache]\n",
                    int histogram_limit_us = 20000) {
  return "name: tiny\ncores:\n  housekeeping: 0\n  isolated: 1\nacceptance:\n  duration: 2s\n"
         "  histogram_limit_us: " + std::to_string(histogram_limit_us) + "\n" +
         limits + "  loads:\n" + loads;
}

/// Why the live accept runs cannot run here, or "" when they can.
std::string LiveSkipReason() {
  if (::geteuid() != 0) return "needs root (SCHED_FIFO, mlockall)";
  if (std::thread::hardware_concurrency() < 2) return "needs 2 CPUs (one for the load, one measured)";
  return "";
}

/// Writes a lenient verdict with a 1 s run into `dir`; returns its path. `limit_us` is both its
/// histogram's last bin and its max limit.
std::string MakeVerdict(const TempDir& dir, int limit_us = 20000) {
  std::string p = dir.Write("lenient.yaml",
                            Profile("  max_us: " + std::to_string(limit_us) + "\n", "    builtin: []\n", limit_us));
  Run r = RtAgent("accept " + p + " --duration 1s --json " + dir.path() + "/v.json");
  INFO(r.out);
  REQUIRE((r.code == 0 || r.code == 1));
  return dir.path() + "/v.json";
}

// Starts `rtagent accept PROFILE --duration 60s --json JSON` with its output in LOG (no pre-flight).
pid_t StartAccept(const std::string& profile, const std::string& json, const std::string& log) {
  pid_t pid = ::fork();
  if (pid == 0) {
    FILE* out = std::freopen(log.c_str(), "w", stdout);
    if (out == nullptr || ::dup2(STDOUT_FILENO, STDERR_FILENO) < 0) ::_exit(127);
    ::setenv("CI", "true", 1);
    ::execl(RTAGENT_BINARY, RTAGENT_BINARY, "accept", profile.c_str(), "--duration", "60s", "--preflight", "none",
            "--json", json.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

}  // namespace

TEST_CASE("accept measures this VM and writes every output, labelled as virtual-machine figures", "[cli][accept][host]") {
  if (std::string why = LiveSkipReason(); !why.empty()) {
    RTAGENT_SKIP(why);
  }
  TempDir dir;
  std::string p = dir.Write("tiny.yaml", Profile("  max_us: 20000\n"));
  const std::string d = dir.path();
  Run r = RtAgent("accept " + p + " --json " + d + "/v.json --junit " + d + "/v.xml --md " + d + "/v.md --svg " + d +
                  "/v.svg --hist " + d + "/v.hist --html " + d + "/v.html");
  INFO(r.out);
  REQUIRE((r.code == 0 || r.code == 1));

  auto j = nlohmann::json::parse(Slurp(d + "/v.json"));
  CHECK(j["result"] == (r.code == 0 ? "PASS" : "FAIL"));
  CHECK(j["host"]["virtual_machine"] == true);
  bool vm_warning = false;
  for (const auto& w : j["warnings"]) vm_warning = vm_warning || w["code"] == "virtual_machine";
  CHECK(vm_warning);
  CHECK(j["config"]["cpus"] == "1");
  // Every 1 ms period of the 2 s run is either a sample or a counted skip; a busy shared
  // machine skips some, so only the sum is checked, and loosely.
  CHECK(j["cpus"][0]["histogram"]["samples"].get<uint64_t>() + j["cpus"][0]["histogram"]["skipped_periods"].get<uint64_t>() >= 1000);
  CHECK(j["loads"][0]["name"] == "cache");
  CHECK(j["loads"][0]["cpus_ran"] == "0");
  // The terminal summary says it too, with the per-CPU table and the criteria.
  CHECK(r.out.find("virtual-machine figures") != std::string::npos);
  CHECK(r.out.find("overflows") != std::string::npos);
  CHECK(r.out.find("max (CPU 1)") != std::string::npos);  // PASS or FAIL: never a latency figure
  // No progress line when stdout is not a terminal.
  CHECK(r.out.find("elapsed") == std::string::npos);

  const std::string xml = Slurp(d + "/v.xml");
  CHECK(xml.rfind("<?xml", 0) == 0);
  CHECK(xml.find("<testsuite") != std::string::npos);
  CHECK(xml.find("</testsuite>") != std::string::npos);
  const std::string md = Slurp(d + "/v.md");
  CHECK(md.find("virtual-machine figures") != std::string::npos);
  const std::string svg = Slurp(d + "/v.svg");
  CHECK(svg.find("<svg") != std::string::npos);
  CHECK(svg.find("</svg>") != std::string::npos);
  CHECK(Slurp(d + "/v.hist").find("# Max Latencies:") != std::string::npos);
  const std::string html = Slurp(d + "/v.html");
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK_THAT(html, Catch::Contains("VIRTUAL MACHINE") && Catch::Contains(r.code == 0 ? "✓ PASS" : "✗ FAIL"));
}

TEST_CASE("accept fails on an impossible limit, with the failing criterion in JUnit", "[cli][accept][host]") {
  if (std::string why = LiveSkipReason(); !why.empty()) {
    RTAGENT_SKIP(why);
  }
  TempDir dir;
  // max_us: 0 is refused by the profile validator (1..); 1 µs is impossible on any machine.
  std::string p = dir.Write("strict.yaml", Profile("  max_us: 1\n", "    builtin: []\n"));
  Run r = RtAgent("accept " + p + " --duration 1s --junit " + dir.path() + "/v.xml");
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK(r.out.find("accept: FAIL") != std::string::npos);
  CHECK(r.out.find("FAIL max (CPU 1)") != std::string::npos);
  const std::string xml = Slurp(dir.path() + "/v.xml");
  CHECK(xml.find("<failure") != std::string::npos);
  CHECK(xml.find("max") != std::string::npos);
}

TEST_CASE("a --duration too short for acceptance.min_samples is said before the run, not only as its FAIL",
          "[cli][accept][host]") {
  if (std::string why = LiveSkipReason(); !why.empty()) {
    RTAGENT_SKIP(why);
  }
  TempDir dir;
  // The profile's 2 s reach its 1,500 samples; the --duration 1s of a quick try cannot.
  std::string p = dir.Write("count.yaml", Profile("  max_us: 20000\n  min_samples: 1500\n", "    builtin: []\n"));
  Run r = RtAgent("accept " + p + " --duration 1s --preflight none");
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::StartsWith("rtagent accept: warning: --duration 1.0 s at one wake-up every 1000 µs gives at most "
                                      "1,000 wake-ups per CPU, fewer than the 1,500 acceptance.min_samples asks (" +
                                      p + ":9:16): the samples criterion will fail; --duration 1.5 s or longer can pass"));
  CHECK_THAT(r.out, Catch::Contains("FAIL samples (CPU 1)"));
  // The profile's own duration: nothing to say.
  Run own = RtAgent("accept " + p + " --preflight none");
  INFO(own.out);
  CHECK_THAT(own.out, !Catch::Contains("warning: --duration"));
  Run long_enough = RtAgent("accept " + p + " --duration 1600ms --preflight none");
  INFO(long_enough.out);
  CHECK_THAT(long_enough.out, !Catch::Contains("warning: --duration"));
}

TEST_CASE("accept with acceptance.explain says why the worst wake-up was late, or why it cannot",
          "[cli][accept][host][why]") {
  if (std::string why = LiveSkipReason(); !why.empty()) {
    RTAGENT_SKIP(why);
  }
  TempDir dir;
  // 1 µs cannot hold: the run breaches, and on-breach (the default) explains it.
  std::string p = dir.Write("why.yaml", Profile("  max_us: 1\n  explain: on-breach\n", "    builtin: []\n"));
  Run r = RtAgent("accept " + p + " --duration 1s --preflight none --json " + dir.path() + "/v.json --md " +
                  dir.path() + "/v.md");
  INFO(r.out);
  REQUIRE(r.code == 1);
  auto j = nlohmann::json::parse(Slurp(dir.path() + "/v.json"));
  REQUIRE(j.contains("why"));
  const auto& why = j["why"];
  const std::string status = why["status"];
  INFO(why.dump(2));
  if (status == "explained") {
    // The kernel's tracers: a cause with a name, and the trace saved beside the verdict.
    REQUIRE_FALSE(why["attribution"]["causes"].empty());
    CHECK_FALSE(why["attribution"]["causes"][0]["name"].get<std::string>().empty());
    CHECK(why["trace"]["path"] == dir.path() + "/v.trace.txt");
    Run again = RtAgent("explain --from " + dir.path() + "/v.trace.txt");
    CHECK(again.code == 0);
  } else if (status == "coarse") {
    // No tracer here: the reason, and the counters that moved on the measured CPU (at least
    // its timer tick in the reading that holds the worst wake-up).
    CHECK_FALSE(why["reason"].get<std::string>().empty());
    CHECK(why["coarse"]["cpu"] == 1);
    REQUIRE_FALSE(why["coarse"]["counts"].empty());
    CHECK_FALSE(why["coarse"]["counts"][0]["name"].get<std::string>().empty());
    CHECK(r.out.find("Why (coarse: counters, not a trace; ") != std::string::npos);
  } else {
    CHECK(status == "skip");
    CHECK_FALSE(why["reason"].get<std::string>().empty());
    CHECK(r.out.find("why: SKIP — ") != std::string::npos);
  }
  CHECK(Slurp(dir.path() + "/v.md").find("## Why the worst wake-up was late") != std::string::npos);
}

TEST_CASE("accept with acceptance.explain off has no why section", "[cli][accept][host][why]") {
  if (std::string why = LiveSkipReason(); !why.empty()) {
    RTAGENT_SKIP(why);
  }
  TempDir dir;
  std::string p = dir.Write("off.yaml", Profile("  max_us: 1\n  explain: off\n", "    builtin: []\n"));
  Run r = RtAgent("accept " + p + " --duration 1s --preflight none --json " + dir.path() + "/v.json");
  INFO(r.out);
  REQUIRE(r.code == 1);
  CHECK_FALSE(nlohmann::json::parse(Slurp(dir.path() + "/v.json")).contains("why"));
  CHECK(r.out.find("Why") == std::string::npos);
  CHECK(r.out.find("why: SKIP") == std::string::npos);
}

TEST_CASE("accept refuses bad input with exit 2 before running anything", "[cli][accept]") {
  TempDir dir;
  std::string bad = dir.Write("bad.yaml", "acceptance:\n  max_us: 0\n  durration: 2s\n");
  Run r1 = RtAgent("accept " + bad);
  CHECK(r1.code == 2);
  CHECK(r1.out.find("bad.yaml:") != std::string::npos);

  std::string ok = dir.Write("ok.yaml", Profile("  max_us: 20000\n"));
  Run r2 = RtAgent("accept " + ok + " --duration 0s");
  CHECK(r2.code == 2);
  Run r3 = RtAgent("accept " + ok + " --duration ten");
  CHECK(r3.code == 2);
  Run r4 = RtAgent("accept " + ok + " --json " + dir.path() + "/no/such/dir/v.json");
  CHECK(r4.code == 2);
  CHECK(r4.out.find("--json") != std::string::npos);
  Run r5 = RtAgent("accept " + ok + " --baseline " + dir.path() + "/missing.json");
  CHECK(r5.code == 2);
  // A load that does not exist is named before anything runs.
  std::string ext = dir.Write("ext.yaml", Profile("  max_us: 20000\n", "    external:\n      - argv: [rtagent-no-such-program]\n"));
  Run r6 = RtAgent("accept " + ext);
  CHECK(r6.code == 2);
  CHECK(r6.out.find("rtagent-no-such-program") != std::string::npos);
  Run r7 = RtAgent("accept " + ok + " --preflight no-such-suite");
  CHECK(r7.code == 2);
  CHECK(r7.out.find("no-such-suite") != std::string::npos);
}

TEST_CASE("accept's pre-flight checks are criteria: each check of the boot suite, a failed one fails the run",
          "[cli][accept][host]") {
  if (std::string why = LiveSkipReason(); !why.empty()) {
    RTAGENT_SKIP(why);
  }
  TempDir dir;
  std::string p = dir.Write("tiny.yaml", Profile("  max_us: 20000\n", "    builtin: []\n"));
  Run r = RtAgent("accept " + p + " --duration 1s --json " + dir.path() + "/v.json");
  INFO(r.out);
  REQUIRE((r.code == 0 || r.code == 1));
  auto j = nlohmann::json::parse(Slurp(dir.path() + "/v.json"));
  std::vector<std::string> names;
  bool any_failed = false;
  for (const auto& c : j["preflight"]) {
    names.push_back(c["name"]);
    any_failed = any_failed || !c["passed"].get<bool>();
  }
  for (const char* check : {"conformance", "kernel", "clock", "interrupts"}) {
    CHECK(std::find(names.begin(), names.end(), check) != names.end());
  }
  if (any_failed) CHECK(r.code == 1);
  CHECK(r.out.find("preflight kernel (run)") != std::string::npos);

  // --preflight none: no check is a criterion.
  Run none = RtAgent("accept " + p + " --duration 1s --preflight none --json " + dir.path() + "/n.json");
  INFO(none.out);
  REQUIRE((none.code == 0 || none.code == 1));
  CHECK(nlohmann::json::parse(Slurp(dir.path() + "/n.json"))["preflight"].empty());

  // A profile that requires PREEMPT_RT on a kernel without it: the kernel check fails, so the
  // verdict fails whatever the latency figures are.
  auto live = rtagent::OpenRoot("/");
  REQUIRE(live.ok());
  const std::string version = (*live)->Read(rtagent::kpath::kVersion).value_or("");
  const std::string realtime = (*live)->Read(rtagent::kpath::kRealtime).value_or("");
  if (realtime.rfind("1", 0) == 0 || version.find("PREEMPT_RT") != std::string::npos) {
    WARN("the PREEMPT_RT half is skipped: this kernel is PREEMPT_RT");
    return;
  }
  std::string rt = dir.Write("rt.yaml", Profile("  max_us: 20000\n", "    builtin: []\n") + "kernel:\n  preempt_rt: required\n");
  Run f = RtAgent("accept " + rt + " --duration 1s --json " + dir.path() + "/f.json");
  INFO(f.out);
  CHECK(f.code == 1);
  CHECK(f.out.find("FAIL preflight kernel (run)") != std::string::npos);
  CHECK(nlohmann::json::parse(Slurp(dir.path() + "/f.json"))["result"] == "FAIL");
}

TEST_CASE("accept runs the suite the profile names first, boot when it names none, --preflight over both",
          "[cli][accept][host]") {
  if (std::string why = LiveSkipReason(); !why.empty()) {
    RTAGENT_SKIP(why);
  }
  TempDir dir;
  const std::string checks = "checks:\n  suite: ci\n  hwlat: false\n  interrupts: {window: 1s}\n";
  std::string p = dir.Write("gate.yaml", Profile("  max_us: 20000\n", "    builtin: []\n") + checks);
  auto names = [&](const std::string& json) {
    std::vector<std::string> n;
    const nlohmann::json verdict = nlohmann::json::parse(Slurp(json));
    for (const auto& c : verdict["preflight"]) n.push_back(c["name"]);
    return n;
  };
  auto has = [](const std::vector<std::string>& n, const std::string& check) {
    return std::find(n.begin(), n.end(), check) != n.end();
  };
  // A gate's profile names ci: its PI check is one of the verdict's criteria.
  Run ci = RtAgent("accept " + p + " --duration 1s --json " + dir.path() + "/ci.json");
  INFO(ci.out);
  REQUIRE((ci.code == 0 || ci.code == 1));
  CHECK_THAT(ci.out, Catch::StartsWith("accept: pre-flight checks (ci suite)"));
  CHECK(has(names(dir.path() + "/ci.json"), "pi"));

  Run boot = RtAgent("accept " + p + " --duration 1s --preflight boot --json " + dir.path() + "/boot.json");
  INFO(boot.out);
  REQUIRE((boot.code == 0 || boot.code == 1));
  CHECK_THAT(boot.out, Catch::StartsWith("accept: pre-flight checks (boot suite)"));
  CHECK_FALSE(has(names(dir.path() + "/boot.json"), "pi"));

  std::string plain = dir.Write("plain.yaml", Profile("  max_us: 20000\n", "    builtin: []\n"));
  Run none_named = RtAgent("accept " + plain + " --duration 1s --json " + dir.path() + "/plain.json");
  INFO(none_named.out);
  REQUIRE((none_named.code == 0 || none_named.code == 1));
  CHECK_THAT(none_named.out, Catch::StartsWith("accept: pre-flight checks (boot suite)"));
}

TEST_CASE("accept under a fixture root refuses with exit 3: it measures the live machine only", "[cli][accept]") {
  TempDir dir;
  dir.MakeSysroot("0-3", "0-3");
  std::string p = dir.Write("tiny.yaml", "name: tiny\n");
  Run r = RtAgent("accept --root " + dir.path() + " " + p + " --json " + dir.path() + "/v.json");
  CHECK(r.code == 3);
  CHECK(r.out.find("live machine") != std::string::npos);
  CHECK(Slurp(dir.path() + "/v.json").empty());
}

TEST_CASE("accept without its measuring program refuses with exit 3, stops its loads and writes nothing",
          "[cli][accept][host]") {
  if (std::string why = LiveSkipReason(); !why.empty()) {
    RTAGENT_SKIP(why);
  }
  TempDir dir;
  std::string p = dir.Write("tiny.yaml", Profile("  max_us: 20000\n"));
  // As a broken install would be: the program is not where it is looked for.
  Run r = RtAgent("accept " + p + " --preflight none --json " + dir.path() + "/v.json --md " + dir.path() +
                  "/v.md", "RTAGENT_SAMPLER=" + dir.path() + "/gone/rtagent-sampler");
  INFO(r.out);
  CHECK(r.code == 3);
  CHECK_THAT(r.out, Catch::Contains("cannot start the sampler: RTAGENT_SAMPLER=" + dir.path() +
                                    "/gone/rtagent-sampler is not an executable program"));
  CHECK(Slurp(dir.path() + "/v.json").empty());
  CHECK(Slurp(dir.path() + "/v.md").empty());
  // The cache load started before the sampler was looked for: it is stopped, not left running.
  // "[r]tagent" matches rtagent but not the shell running pgrep, nor a fork of that shell
  // that has not become the next command of its pipeline yet.
  CHECK(rtagent::test::RunShell("pgrep -a -f '[r]tagent accept " + p + "'").out.empty());
}

TEST_CASE("diff passes a verdict against itself and gates a doctored regression", "[cli][accept][host]") {
  if (std::string why = LiveSkipReason(); !why.empty()) {
    RTAGENT_SKIP(why);
  }
  TempDir dir;
  // Bins up to 1 s, so that the doctored wake-up below stays in one unless this VM stalled for
  // half a second of the run.
  const std::string v = MakeVerdict(dir, 1000000);
  Run same = RtAgent("diff " + v + " " + v);
  INFO(same.out);
  CHECK(same.code == 0);

  // Move one wake-up past the measured max by 15 ms or by the max itself, whichever is more: a
  // much higher max than the default tolerance (10 %, 5 us) allows, whatever this VM measured
  // (a stall of tens of ms under a loaded CI machine included).
  auto j = nlohmann::json::parse(Slurp(v));
  auto& h = j["cpus"][0]["histogram"];
  auto& bins = h["bins"];
  const int64_t measured_max_ns = h["max_ns"].get<int64_t>();
  const int64_t late_ns = measured_max_ns + std::max<int64_t>(15000000, measured_max_ns);
  const bool had_overflows = h["overflows"].get<uint64_t>() > 0;
  const bool late_overflows = late_ns / 1000 >= h["limit_us"].get<int64_t>();
  INFO("measured max " << measured_max_ns << " ns, doctored " << late_ns << " ns");
  bins[0][1] = bins[0][1].get<uint64_t>() - 1;
  if (bins[0][1].get<uint64_t>() == 0) bins.erase(bins.begin());
  if (late_overflows) {
    h["overflows"] = h["overflows"].get<uint64_t>() + 1;
    h["overflow_max_ns"] = late_ns;
  } else {
    bins.push_back({late_ns / 1000, 1});
  }
  h["max_ns"] = late_ns;
  h["sum_ns"] = h["sum_ns"].get<int64_t>() + late_ns;
  const std::string worse = dir.Write("worse.json", j.dump(2));

  Run reg = RtAgent("diff " + v + " " + worse);
  INFO(reg.out);
  CHECK(reg.code == 1);
  Run reg_json = RtAgent("diff --json " + v + " " + worse);
  CHECK(reg_json.code == 1);
  CHECK(nlohmann::json::parse(reg_json.out)["regression"] == true);
  // Generous enough tolerances let the larger max through; a first overflow regresses whatever
  // the tolerance (only a VM that stalled for half the histogram's range gets one here).
  Run tolerated = RtAgent("diff " + v + " " + worse + " --tolerance-percent 100000 --tolerance-us 100000");
  INFO(tolerated.out);
  CHECK(tolerated.code == (late_overflows && !had_overflows ? 1 : 0));

  Run bad = RtAgent("diff " + v + " " + dir.Write("junk.json", "{\"schema\": 3}"));
  CHECK(bad.code == 2);
}

TEST_CASE("diff as a gate: missing roles, --require-same, --tolerance and JUnit", "[cli][accept]") {
  TempDir dir;
  const std::string before = dir.Write("before.json", rtagent::RenderJson(rtagent::testing::ExampleVerdict()));
  rtagent::Verdict now = rtagent::testing::ExampleVerdict();
  now.host.kernel_release = "6.12.9-amd64";
  now.cpus.pop_back();  // CPU 3 not measured now
  rtagent::Judge(now, rtagent::testing::ExampleLimits());
  const std::string after = dir.Write("after.json", rtagent::RenderJson(now));

  Run gate = RtAgent("diff " + before + " " + after + " --junit " + dir.path() + "/d.xml");
  INFO(gate.out);
  CHECK(gate.code == 1);
  CHECK_THAT(gate.out, Catch::Contains("- **kernel differs**: 6.12.9-rt-amd64") &&
                           Catch::Contains("measured in BEFORE only: missing now (a regression"));
  const std::string junit = Slurp(dir.path() + "/d.xml");
  CHECK_THAT(junit, Catch::Contains("<testcase classname=\"rtagent.diff.cpu2\" name=\"p99.99\"") &&
                        Catch::Contains("<testcase classname=\"rtagent.diff.cpu3\" name=\"present\""));
  CHECK(RtAgent("diff " + before + " " + after + " --allow-missing").code == 0);
  CHECK(RtAgent("diff " + before + " " + after + " --allow-missing --require-same profile,host").code == 0);

  Run same = RtAgent("diff " + before + " " + after + " --allow-missing --require-same host --require-same kernel");
  CHECK(same.code == 2);
  CHECK_THAT(same.out, Catch::Contains("rtagent diff: kernel differs: 6.12.9-rt-amd64") &&
                           Catch::Contains("(--require-same kernel)"));
  Run tol = RtAgent("diff " + before + " " + after + " --tolerance p95=10%");
  CHECK(tol.code == 2);
  CHECK_THAT(tol.out, Catch::Contains("--tolerance \"p95=10%\": unknown statistic"));
  Run what = RtAgent("diff " + before + " " + after + " --require-same board");
  CHECK(what.code == 2);
  CHECK_THAT(what.out, Catch::Contains("not one of profile, host, kernel"));
  Run nowhere = RtAgent("diff " + before + " " + after + " --junit " + dir.path() + "/no/such/d.xml");
  CHECK(nowhere.code == 2);
  CHECK_THAT(nowhere.out, Catch::Contains("--junit: cannot write"));
}

TEST_CASE("accept refuses gate options without a baseline and a baseline of another host before running", "[cli][accept]") {
  TempDir dir;
  const std::string p = dir.Write("tiny.yaml", Profile("  max_us: 20000\n", "    builtin: []\n"));
  Run lonely = RtAgent("accept " + p + " --preflight none --tolerance max=10%");
  CHECK(lonely.code == 2);
  CHECK_THAT(lonely.out, Catch::Contains("compare with a --baseline FILE; none was given; nothing was run"));
  Run bad_tol = RtAgent("accept " + p + " --preflight none --baseline x.json --tolerance max=ten%");
  CHECK(bad_tol.code == 2);
  CHECK_THAT(bad_tol.out, Catch::Contains("--tolerance \"max=ten%\": not a number"));
  Run every = RtAgent("accept " + p + " --preflight none --progress-every often");
  CHECK(every.code == 2);
  CHECK_THAT(every.out, Catch::Contains("--progress-every often:"));
  // The example verdict was measured on ci-runner-7, not here.
  const std::string other = dir.Write("other.json", rtagent::RenderJson(rtagent::testing::ExampleVerdict()));
  Run host = RtAgent("accept " + p + " --preflight none --baseline " + other + " --require-same host --json " + dir.path() +
                     "/v.json");
  CHECK(host.code == 2);
  CHECK_THAT(host.out, Catch::Contains("host differs: ci-runner-7 -> ") && Catch::Contains("nothing was run"));
  CHECK(Slurp(dir.path() + "/v.json").empty());
}

TEST_CASE("accept without a terminal prints plain progress lines and nothing else while it measures",
          "[cli][accept][host]") {
  if (std::string why = LiveSkipReason(); !why.empty()) {
    RTAGENT_SKIP(why);
  }
  TempDir dir;
  const std::string p = dir.Write("tiny.yaml", Profile("  max_us: 20000\n", "    builtin: []\n"));
  Run r = RtAgent("accept " + p + " --preflight none --duration 3s --progress-every 1s");
  INFO(r.out);
  REQUIRE((r.code == 0 || r.code == 1));
  std::vector<std::string> lines;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  size_t first = lines.size(), last = 0, count = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("accept progress: ", 0) != 0) continue;
    first = std::min(first, i);
    last = i;
    ++count;
    // "0 overflows", "1 overflow": a stall of the virtual machine can put one past the limit.
    CHECK_THAT(lines[i], Catch::Contains(" of 3.0 s; CPU 1: ") && Catch::Contains(" samples, worst ") &&
                             (Catch::EndsWith(" overflows") || Catch::EndsWith(" 1 overflow")));
  }
  CHECK(count >= 1);  // one a second over 3 s; how many exactly depends on the machine's timing
  for (size_t i = first; i <= last && i < lines.size(); ++i) CHECK_THAT(lines[i], Catch::StartsWith("accept progress: "));
  CHECK(r.out.find('\r') == std::string::npos);
}

TEST_CASE("report renders a stored verdict again", "[cli][accept][host]") {
  if (std::string why = LiveSkipReason(); !why.empty()) {
    RTAGENT_SKIP(why);
  }
  TempDir dir;
  const std::string v = MakeVerdict(dir);
  Run md = RtAgent("report " + v);
  CHECK(md.code == 0);
  CHECK(md.out.rfind("# Latency acceptance:", 0) == 0);
  CHECK(md.out.find("virtual-machine figures") != std::string::npos);

  Run files = RtAgent("report " + v + " --md " + dir.path() + "/r.md --junit " + dir.path() + "/r.xml --hist " +
                      dir.path() + "/r.hist");
  CHECK(files.code == 0);
  CHECK(Slurp(dir.path() + "/r.md") == md.out);
  CHECK(Slurp(dir.path() + "/r.xml").find("<testsuite") != std::string::npos);
  Run html = RtAgent("report " + v + " --html " + dir.path() + "/r.html");
  CHECK(html.code == 0);
  CHECK_THAT(Slurp(dir.path() + "/r.html"), Catch::Contains("<h2>Criteria</h2>"));

  // Its cyclictest histogram reads back.
  Run cyc = RtAgent("report --from-cyclictest " + dir.path() + "/r.hist");
  CHECK(cyc.code == 0);
  // Read back honestly: the -h text says nothing of the interval, host or kernel.
  CHECK_THAT(cyc.out, Catch::Contains("# Latency acceptance: ") && Catch::Contains("cyclictest -h") &&
                          Catch::Contains("interval unknown") && Catch::Contains("host unknown (kernel unknown)"));

  CHECK(RtAgent("report " + dir.path() + "/missing.json").code == 2);
}

TEST_CASE("a directory given where a verdict belongs is named as one, not as a file that is not JSON", "[cli][report]") {
  TempDir dir;
  Run r = RtAgent("report " + dir.path());
  CHECK(r.code == 2);
  CHECK(r.out == "rtagent report: cannot read " + dir.path() + ": Is a directory\n");
  Run d = RtAgent("diff " + dir.path() + " " + dir.path());
  CHECK(d.code == 2);
  CHECK_THAT(d.out, Catch::Contains("cannot read " + dir.path() + ": Is a directory\n"));
}

TEST_CASE("another tool's result given where a verdict belongs names the --from-* that reads it", "[cli][report]") {
  const std::string imports = std::string(RTAGENT_SOURCE_DIR) + "/tests/imports/";
  struct Case {
    std::string file, tool;
  };
  for (const Case& c : {Case{"cyclictest-h20.json", "cyclictest"}, Case{"cyclictest-h20-q.txt", "cyclictest"},
                        Case{"rtla-6.1-timerlat-hist-qemu.txt", "rtla"}, Case{"rteval-2-cyclictest.xml", "rteval"}}) {
    INFO(c.file);
    const std::string path = imports + c.file;
    const std::string says = path + ": not a verdict but " + c.tool + "'s output; rtagent report --from-" + c.tool + " " +
                             path + " reads it (add --json FILE for a verdict that diff and --baseline take)\n";
    Run r = RtAgent("report " + path);
    CHECK(r.code == 2);
    CHECK(r.out == "rtagent report: " + says);
    Run d = RtAgent("diff " + path + " " + path);
    CHECK(d.code == 2);
    CHECK_THAT(d.out, Catch::Contains(says));
    // What it suggests works.
    CHECK(RtAgent("report --from-" + c.tool + " " + path).code == 0);
  }
}

TEST_CASE("a profile given where a verdict belongs is named as one, with the accept that makes a verdict", "[cli][report]") {
  const std::string profile = std::string(RTAGENT_SOURCE_DIR) + "/profiles/ci-vm.yaml";
  const std::string says = profile + ": not a verdict but a profile; rtagent accept " + profile +
                           " --json FILE runs it and writes the verdict that report, diff and --baseline read\n";
  Run r = RtAgent("report " + profile);
  CHECK(r.code == 2);
  CHECK(r.out == "rtagent report: " + says);
  Run d = RtAgent("diff " + profile + " " + profile);
  CHECK(d.code == 2);
  CHECK_THAT(d.out, Catch::Contains(says));
  // Other YAML, and JSON holding a profile's keys, are still files that are not verdicts.
  TempDir dir;
  dir.Write("other.yaml", "version: 1\nfleet: [a, b]\n");
  dir.Write("flow.json", "{\"version\": 1, \"cores\": {}}\n");
  for (const std::string name : {"other.yaml", "flow.json"}) {
    Run o = RtAgent("report " + dir.path() + "/" + name);
    INFO(o.out);
    CHECK(o.code == 2);
    CHECK_THAT(o.out, Catch::Contains(name + ": not a verdict: "));
    CHECK_THAT(o.out, !Catch::Contains("a profile"));
  }
}

TEST_CASE("report --from-rteval reads an rteval summary.xml into a verdict diff takes as its baseline", "[cli][report]") {
  TempDir dir;
  const std::string imports = std::string(RTAGENT_SOURCE_DIR) + "/tests/imports/";
  Run r = RtAgent("report --from-rteval " + imports + "rteval-3-cyclictest.xml --json " + dir.path() + "/base.json");
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK_THAT(Slurp(dir.path() + "/base.json"), Catch::Contains("\"tool\": \"rteval 3.9\""));
  // The file against itself: the gate passes (its unknown overflows are unknown on both sides).
  Run same = RtAgent("diff " + dir.path() + "/base.json " + dir.path() + "/base.json");
  INFO(same.out);
  CHECK(same.code == 0);
  Run timerlat = RtAgent("report --from-rteval " + imports + "rteval-3-timerlat.xml");
  CHECK(timerlat.code == 2);
  CHECK_THAT(timerlat.out, Catch::Contains("rteval-3-timerlat.xml: line 29, <timerlat>") && Catch::Contains("--from-rtla"));
  Run two = RtAgent("report --from-rteval " + imports + "rteval-3-cyclictest.xml --from-rtla x.txt");
  CHECK(two.code == 2);
  CHECK_THAT(two.out, Catch::Contains("--from-rteval FILE"));
}

TEST_CASE("report --html renders a saved verdict as the page the renderer makes, and refuses a bad path", "[cli][report]") {
  TempDir dir;
  const std::string src = std::string(RTAGENT_SOURCE_DIR) + "/tests/expected/verdict.json";
  Run r = RtAgent("report " + src + " --html " + dir.path() + "/v.html");
  INFO(r.out);
  REQUIRE(r.code == 0);
  auto v = rtagent::ParseVerdictJson(Slurp(src));
  REQUIRE(v);
  CHECK(Slurp(dir.path() + "/v.html") == rtagent::RenderHtml(*v));
  // Only --html asked: no Markdown on stdout.
  CHECK(r.out.empty());
  Run out = RtAgent("report " + src + " --html -");
  CHECK(out.code == 0);
  CHECK(out.out.rfind("<!DOCTYPE html>", 0) == 0);

  Run bad = RtAgent("report " + src + " --html " + dir.path() + "/no/such/dir/v.html");
  CHECK(bad.code == 2);
  CHECK_THAT(bad.out, Catch::Contains("--html") && Catch::Contains("no/such/dir"));
}

// ---- accept and its measuring process (rtagent-sampler) under signals: Ctrl-C still gives a
// verdict, and no measuring process (SCHED_FIFO threads on the measured CPUs) ever outlives
// the rtagent that started it.

TEST_CASE("accept stopped by Ctrl-C writes its verdict marked interrupted and leaves no measuring process",
          "[cli][accept][host]") {
  if (std::string why = LiveSkipReason(); !why.empty()) {
    RTAGENT_SKIP(why);
  }
  TempDir dir;
  const std::string profile = dir.Write("signals.yaml", Profile("  max_us: 20000\n", "    builtin: []\n"));
  const std::string json = dir.path() + "/v.json", log = dir.path() + "/accept.log";
  const pid_t pid = StartAccept(profile, json, log);
  REQUIRE(pid > 0);
  const pid_t child = rtagent::test::WaitForChildNamed(pid, "rtagent-sampler");
  INFO(Slurp(log));
  REQUIRE(child > 0);
  ::kill(pid, SIGINT);  // to rtagent only, as a supervisor would send it: rtagent must pass it on
  int st = 0;
  REQUIRE(::waitpid(pid, &st, 0) == pid);
  const std::string out = Slurp(log);
  INFO(out);
  REQUIRE(WIFEXITED(st));
  CHECK(WEXITSTATUS(st) == 1);  // far fewer samples than 60 s asks: FAIL, never a PASS
  // The measuring process was reaped by rtagent: it is gone, not a zombie, not an orphan.
  CHECK(::kill(child, 0) != 0);
  CHECK(rtagent::test::ChildNamed(pid, "rtagent-sampler") == 0);
  auto j = nlohmann::json::parse(Slurp(json));
  CHECK(j["interrupted"] == true);
  CHECK(j["result"] == "FAIL");
  CHECK(j["cpus"][0]["histogram"]["samples"].get<uint64_t>() > 0);  // what it measured is kept
}

TEST_CASE("the measuring process ends when the rtagent that started it is killed", "[cli][accept][host]") {
  if (std::string why = LiveSkipReason(); !why.empty()) {
    RTAGENT_SKIP(why);
  }
  // Adopt the orphan ourselves (PID 1 of a container or VM may never reap it), so its end is
  // seen as an exit, not as a zombie that still answers kill(pid, 0).
  REQUIRE(::prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
  struct ResetSubreaper {
    ~ResetSubreaper() { ::prctl(PR_SET_CHILD_SUBREAPER, 0); }
  } reset;
  TempDir dir;
  const std::string profile = dir.Write("signals.yaml", Profile("  max_us: 20000\n", "    builtin: []\n"));
  const pid_t pid = StartAccept(profile, dir.path() + "/v.json", dir.path() + "/accept.log");
  REQUIRE(pid > 0);
  const pid_t child = rtagent::test::WaitForChildNamed(pid, "rtagent-sampler");
  INFO(Slurp(dir.path() + "/accept.log"));
  REQUIRE(child > 0);
  ::kill(pid, SIGKILL);  // no handler runs: only the kernel's parent-death signal is left
  int st = 0;
  REQUIRE(::waitpid(pid, &st, 0) == pid);
  // Bounded wait for the orphan's exit (it stops at its next wake-up and exits).
  bool ended = false;
  for (int i = 0; i < 200 && !ended; ++i) {
    ended = ::waitpid(child, &st, WNOHANG) == child;
    if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!ended) {
    ::kill(child, SIGKILL);
    (void)::waitpid(child, &st, 0);
  }
  CHECK(ended);
}

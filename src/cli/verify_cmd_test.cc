// `rtagent verify` as a user runs it on copies of the fixtures: the table, --json, --junit,
// --suite by name and by file, and the exit codes 0 (nothing failed), 1 (a check failed) and
// 2 (bad input: an unknown suite, a bad suite file or profile).
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "base/shell_test_support.h"
#include "base/fault_root.h"
#include "base/skip_test_support.h"

using namespace rtagent;

namespace {

const std::string kTrees = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/";
const std::string kProfiles = std::string(RTAGENT_SOURCE_DIR) + "/profiles";

struct Run {
  int code = -1;
  std::string out;
};

// Runs a shell command line, stdout and stderr together.
Run Sh(const std::string& line) {
  std::string cmd = "(" + line + ") 2>&1";
  Run r;
  rtagent::test::ShellResult s = rtagent::test::RunShell(cmd);
  r.code = s.code;
  r.out = s.out;
  return r;
}

Run Rt(const std::string& args) { return Sh(std::string(RTAGENT_BINARY) + " " + args); }

// The checks that read only (no interrupt window, no tracer): quick and fixture-determined.
const char* kReadOnlySuite = "name: read-only\nchecks: [conformance, kernel, cmdline, clock, lint]\n";

}  // namespace

TEST_CASE("verify passes the tuned RT board and fails it once a setting drifts", "[cli][verify]") {
  TempTree t(kTrees + "arm64-rt-8cpu");
  t.Put("suite.yaml", kReadOnlySuite);
  // The board's own tuning, written as a profile.
  t.Put("board.yaml",
        "cores:\n  housekeeping: 0-3\n  isolated: 4-7\n  runtime:\n    timer_migration: false\n"
        "irqs:\n  default: keep\n"
        "kernel:\n  preempt_rt: required\n  rt_safety_net: isolated_only\n"
        "acceptance:\n  duration: 2h\n");
  const std::string args = t.dir() + "/board.yaml --root " + t.dir() + " --suite " + t.dir() + "/suite.yaml";
  Run ok = Rt("verify " + args);
  INFO(ok.out);
  CHECK(ok.code == 0);
  CHECK_THAT(ok.out, Catch::Contains("suite read-only from " + t.dir() + "/suite.yaml"));
  CHECK_THAT(ok.out, Catch::Contains("PASS    kernel.preempt_rt") && Catch::Contains("PASS    cmdline.nohz_full"));
  CHECK_THAT(ok.out, Catch::Contains("PASS: every check passed"));

  // Unbound workqueues allowed back onto the isolated CPUs: conformance names it.
  t.Put("sys/devices/virtual/workqueue/cpumask", "ff\n");
  Run drift = Rt("verify " + args);
  INFO(drift.out);
  CHECK(drift.code == 1);
  CHECK_THAT(drift.out, Catch::Contains("FAIL conformance.cores") && Catch::Contains("workqueue"));
  CHECK_THAT(drift.out, Catch::Contains("hint: `rtagent apply` sets them"));
  CHECK_THAT(drift.out, Catch::EndsWith("FAIL: at least one check failed\n"));
}

TEST_CASE("verify fails a stock kernel the profile requires RT of, in the table, JSON and JUnit", "[cli][verify]") {
  TempTree t(kTrees + "x86-ipc-4cpu");
  t.Put("rt.yaml", "kernel:\n  preempt_rt: required\n");
  t.Put("suite.yaml", "checks: [kernel, clock]\n");
  const std::string args = t.dir() + "/rt.yaml --root " + t.dir() + " --suite " + t.dir() + "/suite.yaml";
  Run table = Rt("verify " + args);
  INFO(table.out);
  CHECK(table.code == 1);
  CHECK_THAT(table.out, Catch::Contains("FAIL kernel.preempt_rt (" + t.dir() + "/rt.yaml:2:15)"));
  CHECK_THAT(table.out, Catch::Contains("hint: boot a PREEMPT_RT kernel"));

  Run json = Rt("verify " + args + " --json --junit " + t.dir() + "/out.xml");
  INFO(json.out);
  CHECK(json.code == 1);
  auto doc = nlohmann::json::parse(json.out.substr(json.out.find('{')));
  CHECK(doc["result"] == "FAIL");
  CHECK(doc["suite"] == "suite");
  CHECK(doc["counts"]["fail"].get<int>() == 1);
  bool found = false;
  for (const auto& r : doc["results"]) found |= r["id"] == "kernel.preempt_rt" && r["status"] == "FAIL";
  CHECK(found);
  std::string xml = t.Get("out.xml");
  CHECK_THAT(xml, Catch::Contains("<testcase classname=\"rtagent.verify.kernel\" name=\"kernel.preempt_rt\""));
  CHECK_THAT(xml, Catch::Contains("<failure message=\"the kernel is not PREEMPT_RT and the profile requires it\""));
}

TEST_CASE("verify says virtual machine on the captured VM with the ci suite's read-only checks", "[cli][verify]") {
  TempTree t(kTrees + "vm-x86-captured");
  t.Put("suite.yaml", "checks: [clock]\n");
  Run r = Rt("verify " + kProfiles + "/ci-vm.yaml --root " + t.dir() + " --suite " + t.dir() + "/suite.yaml");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("WARN clock.hypervisor") && Catch::Contains("virtual machine"));
}

TEST_CASE("verify refuses an unknown suite or a bad suite file with exit 2", "[cli][verify]") {
  TempTree t(kTrees + "x86-ipc-4cpu");
  Run unknown = Rt("verify --root " + t.dir() + " --suite nightly");
  CHECK(unknown.code == 2);
  CHECK_THAT(unknown.out, Catch::Contains("unknown suite \"nightly\"") && Catch::Contains("nothing was checked"));

  t.Put("bad.yaml", "checks: [kernel, clocks]\n");
  Run bad = Rt("verify --root " + t.dir() + " --suite " + t.dir() + "/bad.yaml");
  CHECK(bad.code == 2);
  CHECK_THAT(bad.out, Catch::Contains("bad.yaml:1:18: error: unknown check \"clocks\""));

  Run junit = Rt("verify --root " + t.dir() + " --suite boot --junit " + t.dir() + "/no/such/dir/out.xml");
  CHECK(junit.code == 2);
  CHECK_THAT(junit.out, Catch::Contains("--junit"));
}

TEST_CASE("verify refuses a profile whose checks.suite names nothing, with its line", "[cli][verify]") {
  TempTree t(kTrees + "x86-ipc-4cpu");
  t.Put("p.yaml", "checks:\n  suite: nightly.yaml\n");
  Run r = Rt("verify " + t.dir() + "/p.yaml --root " + t.dir());
  CHECK(r.code == 2);
  CHECK_THAT(r.out, Catch::Contains("p.yaml:2:10: error: the suite file 'nightly.yaml' in 'checks.suite' does not exist"));

  // A suite file beside the profile, named relative to it, is the default suite.
  t.Put("nightly.yaml", "checks: [kernel]\n");
  Run ok = Rt("verify " + t.dir() + "/p.yaml --root " + t.dir() + " --json");
  INFO(ok.out);
  CHECK(ok.code == 0);
  auto doc = nlohmann::json::parse(ok.out.substr(ok.out.find('{')));
  CHECK(doc["suite"] == "nightly");
  CHECK(doc["results"].size() == 3);
}

TEST_CASE("verify on this machine: hwlat without root exits 3, pi without root is a SKIP, Ctrl-C marks the report interrupted", "[cli][verify][host]") {
  if (::geteuid() != 0 || ::access("/usr/bin/setpriv", X_OK) != 0) {
    RTAGENT_SKIP("needs root and setpriv(1) to run verify as another user");
  }
  Run r = Sh("/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups " + std::string(RTAGENT_BINARY) +
             " verify --suite commission");
  CHECK(r.code == 3);
  CHECK_THAT(r.out, Catch::Contains("the hwlat check drives the kernel's tracer and needs root"));

  // hwlat off, the commission suite runs for another user and lists pi as a SKIP with the reason.
  TempTree other;
  other.Put("p.yaml", "checks:\n  hwlat: false\n  interrupts:\n    window: 100ms\n");
  REQUIRE(::chmod(other.dir().c_str(), 0755) == 0);
  Run nobody = Sh("/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups " + std::string(RTAGENT_BINARY) +
                  " verify " + other.dir() + "/p.yaml --suite commission --json");
  INFO(nobody.out);
  REQUIRE(nobody.out.find('{') != std::string::npos);
  auto as_nobody = nlohmann::json::parse(nobody.out.substr(nobody.out.find('{'), nobody.out.rfind('}') - nobody.out.find('{') + 1));
  bool pi_skipped = false;
  for (const auto& res : as_nobody["results"]) {
    if (res["id"] == "pi") pi_skipped = res["status"] == "SKIP" && res["summary"].get<std::string>().find("not root") != std::string::npos;
  }
  CHECK(pi_skipped);

  // A 60 s interrupt window on the live system, stopped by SIGINT. The signal is sent once
  // rtagent catches it (SIGINT's bit in SigCgt): a background job of this shell starts with
  // SIGINT ignored, so one sent before the handler is in place would be lost on a slow machine.
  TempTree t;
  t.Put("long.yaml", "checks: [kernel, interrupts, clock]\nwindows:\n  interrupts: 60s\n");
  Run cut = Sh(std::string(RTAGENT_BINARY) + " verify --suite " + t.dir() +
               "/long.yaml --json & pid=$!; i=0; while [ $i -lt 400 ]; do "
               "c=$(sed -n 's/^SigCgt:[[:space:]]*//p' /proc/$pid/status); "
               "[ -n \"$c\" ] && [ $(( 0x${c#${c%??}} & 2 )) -ne 0 ] && break; sleep 0.05; i=$((i+1)); done; "
               "sleep 0.5; kill -INT $pid; wait $pid");
  INFO(cut.out);
  CHECK(cut.code == 1);
  auto doc = nlohmann::json::parse(cut.out.substr(cut.out.find('{'), cut.out.rfind('}') - cut.out.find('{') + 1));
  CHECK(doc["interrupted"] == true);
  CHECK(doc["result"] == "FAIL");
  CHECK_THAT(cut.out, Catch::Contains("rtagent verify: interrupted"));
  bool clock = false;
  for (const auto& res : doc["results"]) clock |= res["check"] == "clock";
  CHECK_FALSE(clock);  // the check after the interrupted one never ran
}

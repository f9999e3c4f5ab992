// `rtagent commission` as a user runs it: on copies of the fixtures (what it does and what it
// refuses, with exit codes), with bad input (nothing changed, no files left), and on this
// machine ([host]) with --revert-after, which must put every value back, also after a FAIL
// and after Ctrl-C. No test asserts a latency figure.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "base/tree_test_support.h"
#include "base/shell_test_support.h"
#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "base/sysroot.h"
#include "tune/journal.h"
#include "base/skip_test_support.h"
#include "tune/refusals.h"

using namespace rtagent;
namespace fs = std::filesystem;

namespace {

const std::string kSysroots = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/";
const std::string kProfiles = std::string(RTAGENT_SOURCE_DIR) + "/profiles";

struct Run {
  int code = -1;
  std::string out;
};

/// Runs rtagent in `cwd` (where the default output directory lands).
Run Rt(const std::string& args, const std::string& cwd = "") {
  std::string cmd = (cwd.empty() ? "" : "cd '" + cwd + "' && ") + "CI=true " + std::string(RTAGENT_BINARY) + " " +
                    args + " 2>&1";
  Run r;
  rtagent::test::ShellResult s = rtagent::test::RunShell(cmd);
  r.code = s.code;
  r.out = s.out;
  return r;
}

std::map<std::string, std::string> Snapshot(const std::string& dir) { return rtagent::test::SnapshotTree(dir); }

std::vector<std::string> Entries(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  return out;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("commission on a fixture: plans, applies into the tree, verifies, refuses the latency test (exit 3)",
          "[cli][commission]") {
  TempTree t(kSysroots + "arm64-rt-8cpu");
  TempTree cwd;
  auto before = Snapshot(t.dir());
  Run r = Rt("commission " + kProfiles + "/generic-4core.yaml --root " + t.dir(), cwd.dir());
  INFO(r.out);
  CHECK(r.code == 3);
  for (const char* step : {"step 1: validate", "step 2: inspect", "step 3: plan", "step 4: apply", "step 5: verify",
                           "step 6: the loaded latency acceptance test"}) {
    CHECK_THAT(r.out, Catch::Contains(step));
  }
  CHECK_THAT(r.out, Catch::Contains("PREEMPT_RT"));
  CHECK_THAT(r.out, Catch::Contains("reboot required"));      // boot arguments: reported, the loop goes on
  CHECK_THAT(r.out, Catch::Contains("verify: "));             // the suite's overall answer
  CHECK_THAT(r.out, Catch::Contains("acceptance test refused: a latency test measures the live machine only"));
  CHECK_THAT(r.out, Catch::Contains("rtagent revert"));       // the changes stay, and how to undo them
  // apply wrote into the tree and journaled it; no verdict directory was made.
  CHECK(Snapshot(t.dir()) != before);
  CHECK(fs::exists(t.dir() + "/" + Journal::Path()));
  CHECK(Entries(cwd.dir()).empty());
  // `revert` puts the tree back byte for byte.
  Run rv = Rt("revert --root " + t.dir());
  CHECK(rv.code == 0);
  CHECK(Snapshot(t.dir()) == before);
}

TEST_CASE("commission over a record of refusals it cannot read says so, and its apply replaces the record",
          "[cli][commission]") {
  TempTree t(kSysroots + "arm64-rt-8cpu");
  TempTree cwd;
  t.Put(RefusalRecord::Path(), "{\"refused\": [");
  Run r = Rt("commission " + kProfiles + "/generic-4core.yaml --root " + t.dir(), cwd.dir());
  INFO(r.out);
  CHECK(r.code == 3);  // the latency test refuses a fixture root, as above
  const std::string file = t.dir() + "/" + RefusalRecord::Path();
  CHECK_THAT(r.out, Catch::Contains("rtagent commission: " + file + ": not the record of refusals rtagent writes") &&
                        Catch::Contains("the kernel's refusals are not shown"));
  CHECK_THAT(r.out, Catch::Contains("the earlier record of the kernel's refusals is replaced: " + file));
  // Nothing was refused on the fixture: the replaced record is no record at all.
  CHECK_FALSE(fs::exists(file));
}

TEST_CASE("commission --revert-after on a fixture leaves the tree as it was", "[cli][commission]") {
  TempTree t(kSysroots + "x86-ipc-4cpu");
  TempTree cwd;
  auto before = Snapshot(t.dir());
  // The profile runs the test for 1h; --duration 20s is what verify's lint must judge.
  Run r = Rt("commission " + kProfiles + "/x86-ipc.yaml --duration 20s --revert-after --root " + t.dir(), cwd.dir());
  INFO(r.out);
  CHECK(r.code == 3);
  CHECK_THAT(r.out, Catch::Contains("the acceptance test runs 20s: the worst case keeps growing"));
  CHECK_THAT(r.out, Catch::Contains("applied"));
  CHECK_THAT(r.out, Catch::Contains("--revert-after: putting back"));
  auto after = Snapshot(t.dir());
  for (const auto& [path, text] : before) {
    INFO(path);
    CHECK(after[path] == text);
  }
  CHECK(after.size() == before.size());
  CHECK(Entries(cwd.dir()).empty());
}

TEST_CASE("commission --revert-after refuses to run over an earlier apply's journal (exit 3, nothing changed)",
          "[cli][commission]") {
  TempTree t(kSysroots + "arm64-rt-8cpu");
  Run a = Rt("apply " + kProfiles + "/generic-4core.yaml --root " + t.dir());
  REQUIRE(a.code == 0);
  auto before = Snapshot(t.dir());
  Run r = Rt("commission " + kProfiles + "/generic-4core.yaml --revert-after --root " + t.dir());
  INFO(r.out);
  CHECK(r.code == 3);
  CHECK_THAT(r.out, Catch::Contains("a journal of an earlier apply"));
  CHECK_THAT(r.out, Catch::Contains("Nothing was changed"));
  CHECK(Snapshot(t.dir()) == before);
}

TEST_CASE("commission refuses bad input with exit 2, before changing anything or writing a file", "[cli][commission]") {
  TempTree t(kSysroots + "arm64-rt-8cpu");
  TempTree cwd;
  cwd.Put("a-file", "x");
  auto before = Snapshot(t.dir());
  const std::string p = kProfiles + "/generic-4core.yaml --root " + t.dir();
  struct Case {
    std::string args, says;
  };
  for (const Case& c : {Case{"--duration 0s", "--duration must be longer than 0"},
                        Case{"--duration 0", "the number needs a unit"},
                        Case{"--duration soon", "--duration soon"},
                        Case{"--out /nonexistent-rtagent/dir", "its parent /nonexistent-rtagent is missing"},
                        Case{"--out a-file", "exists and is not a directory"},
                        Case{"--out a-file/sub", "is not a directory"},
                        // A directory nobody may write into, root included (proc_sys_permission).
                        Case{"--out /" + kpath::kProcSys, "--out /" + kpath::kProcSys + ": cannot write into it: "},
                        Case{"--json /nonexistent-rtagent/v.json", "--json"},
                        Case{"--md " + cwd.dir(), "is a directory"}}) {
    INFO(c.args);
    Run r = Rt("commission " + p + " " + c.args, cwd.dir());
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK_THAT(r.out, Catch::Contains(c.says));
    CHECK_THAT(r.out, Catch::Contains("nothing was changed"));
    CHECK_THAT(r.out, !Catch::Contains("step 2"));
  }
  CHECK(Snapshot(t.dir()) == before);
  CHECK(Entries(cwd.dir()) == std::vector<std::string>{"a-file"});
  Run missing = Rt("commission /nonexistent.yaml --root " + t.dir());
  CHECK(missing.code == 2);
}

TEST_CASE("commission without root stops after the plan with exit 3 and changes nothing", "[cli][commission]") {
  std::string prefix;
  if (::geteuid() == 0) {
    if (std::system("command -v setpriv >/dev/null 2>&1") != 0) {
      RTAGENT_SKIP("running as root and setpriv is missing to drop privileges");
    }
    prefix = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
  }
  TempTree cwd;
  ::chmod(cwd.dir().c_str(), 0777);
  const std::string cmd = "cd '" + cwd.dir() + "' && CI=true " + prefix + RTAGENT_BINARY + " commission --duration 1s 2>&1";
  FILE* f = ::popen(cmd.c_str(), "r");
  REQUIRE(f);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  const int st = ::pclose(f);
  INFO(out);
  CHECK(WIFEXITED(st));
  CHECK(WEXITSTATUS(st) == 3);
  CHECK_THAT(out, Catch::Contains("step 3: plan"));
  CHECK_THAT(out, Catch::Contains("needs root"));
  CHECK_THAT(out, !Catch::Contains("step 5"));
  CHECK(Entries(cwd.dir()).empty());
}

// ---------------------------------------------------------------------------- [host]

namespace {

/// Why the live commission runs cannot run here, or "" when they can.
std::string HostSkipReason(SysRoot& live) {
  if (::geteuid() != 0) return "needs root (apply, SCHED_FIFO, mlockall)";
  if (std::thread::hardware_concurrency() < 2) return "needs 2 CPUs (one housekeeping, one measured)";
  if (live.Exists(Journal::Path())) return "a journal of an earlier apply is on this machine; not touching it";
  return "";
}

/// A short profile for this machine: CPU 0 housekeeping, CPU 1 measured; runtime changes that
/// every Linux has (workqueue mask, default IRQ affinity, timer migration, THP defrag).
std::string HostProfile(const std::string& limits) {
  return "name: host-commission\n"
         "cores:\n  housekeeping: 0\n  isolated: 1\n"
         "  runtime:\n    workqueue_cpumask: housekeeping\n    default_smp_affinity: housekeeping\n"
         "    timer_migration: false\n"
         "irqs:\n  default: keep\n"
         "memory:\n  thp:\n    defrag: never\n"
         "checks:\n  suite: boot\n  interrupts:\n    window: 1s\n  hwlat:\n    enabled: false\n"
         "acceptance:\n  duration: 2s\n  histogram_limit_us: 20000\n" +
         limits + "  loads:\n    cpus: housekeeping\n    builtin: [cache]\n";
}

/// Every runtime item the plan would change, as "key = current value": the machine's state as
/// rtagent sees it. A value left changed would drop out of it (no longer pending).
std::map<std::string, std::string> RuntimeState(const std::string& profile) {
  Run r = Rt("plan " + profile + " --json");
  REQUIRE(r.code == 0);
  auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
  std::map<std::string, std::string> m;
  for (const auto& s : j["sections"]) {
    for (const auto& i : s["changes"]) {  // the items that differ from the profile, with their current value
      if (!i["reboot"].get<bool>()) m[i["actuator"].get<std::string>() + ":" + i["key"].get<std::string>()] = i["before"];
    }
  }
  return m;
}

/// What every [host] test starts with: the profile written into a scratch folder, and
/// `rtagent revert` run at the end whatever happens, in case commission left a journal.
struct HostCase {
  explicit HostCase(const std::string& limits) : profile(t.dir() + "/host.yaml") { t.Put("host.yaml", HostProfile(limits)); }
  ~HostCase() { (void)std::system((std::string(RTAGENT_BINARY) + " revert >/dev/null 2>&1").c_str()); }
  HostCase(const HostCase&) = delete;
  HostCase& operator=(const HostCase&) = delete;
  TempTree t;
  const std::string profile;
};

}  // namespace

TEST_CASE("commission --revert-after on this machine runs the whole loop and puts everything back", "[cli][host][commission]") {
  auto live = OpenRoot("/");
  REQUIRE(live.ok());
  if (std::string why = HostSkipReason(**live); !why.empty()) {
    RTAGENT_SKIP(why);
  }
  HostCase host("  max_us: 20000\n");
  const TempTree& t = host.t;
  const std::string& profile = host.profile;
  const auto before = RuntimeState(profile);
  REQUIRE_FALSE(before.empty());  // the profile changes something here, or the test proves nothing

  Run r = Rt("commission " + profile + " --duration 2s --revert-after --out " + t.dir() + "/out", t.dir());
  INFO(r.out);
  REQUIRE((r.code == 0 || r.code == 1));  // PASS or FAIL is the machine's; never a latency figure
  CHECK_THAT(r.out, Catch::Contains("step 7: the verdict"));
  CHECK_THAT(r.out, Catch::Contains("every journaled value is back"));
  CHECK(RuntimeState(profile) == before);
  CHECK_FALSE((*live)->Exists(Journal::Path()));

  auto j = nlohmann::json::parse(Slurp(t.dir() + "/out/verdict.json"));
  CHECK(j["result"] == (r.code == 0 ? "PASS" : "FAIL"));
  // verify's checks are the verdict's pre-flight criteria, one per check of the suite.
  std::vector<std::string> names;
  for (const auto& p : j["preflight"]) names.push_back(p["name"]);
  CHECK(std::find(names.begin(), names.end(), "conformance") != names.end());
  CHECK(std::find(names.begin(), names.end(), "loads") != names.end());
  bool preflight_failed = false;
  for (const auto& p : j["preflight"]) preflight_failed = preflight_failed || !p["passed"].get<bool>();
  if (preflight_failed) CHECK(r.code == 1);
  // The PM QoS note in force is recorded, read from the device.
  CHECK(j["config"]["pm_qos"].contains("device_us"));
  if (j["host"]["virtual_machine"].get<bool>()) {
    CHECK_THAT(Slurp(t.dir() + "/out/verdict.md"), Catch::Contains("virtual-machine figures"));
    CHECK_THAT(r.out, Catch::Contains("virtual-machine figures"));
  }
  for (const char* f : {"verdict.junit.xml", "verdict.svg", "verdict.hist", "verdict.html"}) CHECK(fs::exists(t.dir() + "/out/" + f));
}

TEST_CASE("commission --revert-after puts everything back after a FAIL", "[cli][host][commission]") {
  auto live = OpenRoot("/");
  REQUIRE(live.ok());
  if (std::string why = HostSkipReason(**live); !why.empty()) {
    RTAGENT_SKIP(why);
  }
  // No machine wakes a loaded thread within 1 µs a thousand times in a row: max fails.
  HostCase host("  max_us: 1\n");
  const TempTree& t = host.t;
  const std::string& profile = host.profile;
  const auto before = RuntimeState(profile);
  Run r = Rt("commission " + profile + " --duration 1s --revert-after --out " + t.dir() + "/out", t.dir());
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("FAIL max (CPU 1)"));
  CHECK_THAT(r.out, Catch::Contains("every journaled value is back"));
  CHECK(RuntimeState(profile) == before);
  CHECK_FALSE((*live)->Exists(Journal::Path()));
  CHECK(nlohmann::json::parse(Slurp(t.dir() + "/out/verdict.json"))["result"] == "FAIL");
}

TEST_CASE("commission --revert-after puts everything back after Ctrl-C and marks the verdict interrupted",
          "[cli][host][commission]") {
  auto live = OpenRoot("/");
  REQUIRE(live.ok());
  if (std::string why = HostSkipReason(**live); !why.empty()) {
    RTAGENT_SKIP(why);
  }
  HostCase host("  max_us: 20000\n");
  const TempTree& t = host.t;
  const std::string& profile = host.profile;
  const auto before = RuntimeState(profile);
  const std::string log = t.dir() + "/commission.log";

  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    FILE* out = std::freopen(log.c_str(), "w", stdout);
    if (out == nullptr || ::dup2(STDOUT_FILENO, STDERR_FILENO) < 0) ::_exit(127);
    ::setenv("CI", "true", 1);
    ::execl(RTAGENT_BINARY, RTAGENT_BINARY, "commission", profile.c_str(), "--duration", "60s", "--revert-after",
            "--out", (t.dir() + "/out").c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Ctrl-C once the measuring process runs: the latency test is under way.
  const bool started = rtagent::test::WaitForChildNamed(pid, "rtagent-sampler") > 0;
  ::kill(pid, SIGINT);
  int st = 0;
  REQUIRE(::waitpid(pid, &st, 0) == pid);
  const std::string out = Slurp(log);
  INFO(out);
  REQUIRE(started);
  CHECK(WIFEXITED(st));
  CHECK(WEXITSTATUS(st) == 1);
  CHECK_THAT(out, Catch::Contains("every journaled value is back"));
  CHECK(RuntimeState(profile) == before);
  CHECK_FALSE((*live)->Exists(Journal::Path()));
  auto j = nlohmann::json::parse(Slurp(t.dir() + "/out/verdict.json"));
  CHECK(j["interrupted"] == true);
  CHECK(j["result"] == "FAIL");
}

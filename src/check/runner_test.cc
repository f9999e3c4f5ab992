// Suites as data: the built-in ones, suite files and their errors, and the runner's order,
// profile switches, windows and Ctrl-C.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <catch2/catch.hpp>

#include "base/fault_root.h"
#include "base/skip_test_support.h"
#include "base/trust_test_support.h"
#include "check/check_test_support.h"
#include "check/runner.h"
#include "profile/builtin_suites.h"

using namespace rtagent;
using namespace rtagent::check;
using namespace rtagent::check::testing;

TEST_CASE("the built-in suites: commission has everything, boot is fast, ci is moderate", "[check][suite]") {
  auto commission = LoadSuite("commission");
  REQUIRE(commission);
  // Every registered check, each once: commission.yaml is where a new check joins the suites.
  std::vector<std::string> registered;
  for (const auto& c : AllChecks()) registered.push_back(c->Name());
  std::vector<std::string> listed = commission->checks;
  std::sort(registered.begin(), registered.end());
  std::sort(listed.begin(), listed.end());
  CHECK(listed == registered);
  CHECK(commission->checks.front() == "conformance");  // cheap ones first, the long windows last
  CHECK(commission->checks.back() == "hwlat");
  CHECK(commission->windows.empty());  // the profile's windows
  CHECK(commission->source == "checks/commission.yaml (built-in)");

  auto boot = LoadSuite("boot");
  REQUIRE(boot);
  CHECK(boot->name == "boot");
  CHECK(std::find(boot->checks.begin(), boot->checks.end(), "hwlat") == boot->checks.end());
  CHECK(boot->windows == std::map<std::string, Duration>{{"interrupts", std::chrono::seconds(2)}});

  auto ci = LoadSuite("ci");
  REQUIRE(ci);
  CHECK(ci->extends == "commission");
  CHECK(ci->checks == commission->checks);
  CHECK(ci->windows ==
        std::map<std::string, Duration>{{"interrupts", std::chrono::seconds(5)}, {"hwlat", std::chrono::seconds(10)}});
  CHECK_FALSE(ci->description.empty());
  CHECK(profile::BuiltinSuiteNames() == std::vector<std::string>{"commission", "boot", "ci"});
}

TEST_CASE("an unknown suite name lists the built-in ones", "[check][suite]") {
  auto s = LoadSuite("bot");
  REQUIRE_FALSE(s);
  CHECK_THAT(s.error().message, Catch::Contains("unknown suite \"bot\"") && Catch::Contains("did you mean \"boot\"") &&
                                    Catch::Contains("commission"));
}

TEST_CASE("a suite file is read from its path", "[check][suite]") {
  TempTree t;
  t.Put("quick.yaml", "name: quick\nchecks: [kernel, clock]\nwindows:\n  interrupts: 1s\n");
  auto s = LoadSuite(t.dir() + "/quick.yaml");
  REQUIRE(s);
  CHECK(s->name == "quick");
  CHECK(s->checks == std::vector<std::string>{"kernel", "clock"});
  CHECK(s->windows.at("interrupts") == std::chrono::seconds(1));
  CHECK(s->source == t.dir() + "/quick.yaml");
  // Without a name, the file's stem names it.
  t.Put("nightly.yaml", "checks: [lint]\n");
  CHECK(LoadSuite(t.dir() + "/nightly.yaml")->name == "nightly");
}

// Issue 17: a suite decides which checks root runs and how long it drives the tracer.
TEST_CASE("a suite file another user can write is refused as root, naming the file and the fix", "[check][suite]") {
  TempTree t;
  test::EnforcedFileTrust enforced;
  t.Put("quick.yaml", "name: quick\nchecks: [kernel]\n");
  const std::string path = t.dir() + "/quick.yaml";
  REQUIRE(::chmod(path.c_str(), 0644) == 0);
  CHECK(LoadSuite(path));
  REQUIRE(::chmod(path.c_str(), 0662) == 0);
  auto s = LoadSuite(path);
  REQUIRE_FALSE(s);
  CHECK(s.error().message == "refusing suite file " + path + " as root: " + path +
                                 " is writable by every user (mode 0662) (fix: chmod o-w " + path + ")");
  CHECK(s.error().err == EACCES);
}

TEST_CASE("suite file errors name the file, the line and the column", "[check][suite]") {
  TempTree t;
  SECTION("an unknown check, with the nearest name") {
    t.Put("s.yaml", "name: s\nchecks:\n  - kernel\n  - kernal\n");
    auto s = LoadSuite(t.dir() + "/s.yaml");
    REQUIRE_FALSE(s);
    CHECK_THAT(s.error().message, Catch::Contains("s.yaml:4:5: error: unknown check \"kernal\"") &&
                                      Catch::Contains("did you mean \"kernel\""));
  }
  SECTION("a syntax error") {
    t.Put("s.yaml", "name: s\nchecks: [kernel\nwindows: {\n");
    auto s = LoadSuite(t.dir() + "/s.yaml");
    REQUIRE_FALSE(s);
    CHECK_THAT(s.error().message, Catch::Contains("s.yaml:"));
  }
  SECTION("an unknown key and a bad window") {
    t.Put("s.yaml", "name: s\nchecks: [kernel]\nwindow:\n  interrupts: 2s\n");
    auto s = LoadSuite(t.dir() + "/s.yaml");
    REQUIRE_FALSE(s);
    CHECK_THAT(s.error().message, Catch::Contains("s.yaml:3:1") && Catch::Contains("window"));
    t.Put("s2.yaml", "checks: [kernel]\nwindows:\n  interrupts: -2s\n  hwlat: 10ms\n");
    auto s2 = LoadSuite(t.dir() + "/s2.yaml");
    REQUIRE_FALSE(s2);
    CHECK_THAT(s2.error().message, Catch::Contains("s2.yaml:3:15") && Catch::Contains("s2.yaml:4:10"));
  }
  SECTION("a check twice, no checks, an empty file") {
    t.Put("twice.yaml", "checks: [kernel, kernel]\n");
    CHECK_THAT(LoadSuite(t.dir() + "/twice.yaml").error().message, Catch::Contains("listed twice"));
    t.Put("none.yaml", "name: none\n");
    CHECK_THAT(LoadSuite(t.dir() + "/none.yaml").error().message, Catch::Contains("names no checks"));
    t.Put("empty.yaml", "# nothing\n");
    CHECK_THAT(LoadSuite(t.dir() + "/empty.yaml").error().message, Catch::Contains("empty.yaml:1:1: error: the suite file is empty"));
  }
  SECTION("extends: a built-in suite's checks and windows, its own windows over them") {
    t.Put("fast.yaml", "extends: boot\nwindows:\n  interrupts: 1s\n");
    auto s = LoadSuite(t.dir() + "/fast.yaml");
    REQUIRE(s);
    CHECK(s->name == "fast");
    CHECK(s->checks == LoadSuite("boot")->checks);
    CHECK(s->windows == std::map<std::string, Duration>{{"interrupts", std::chrono::seconds(1)}});
    t.Put("ci2.yaml", "extends: commission\n");
    CHECK(LoadSuite(t.dir() + "/ci2.yaml")->windows.empty());
  }
  SECTION("extends: an unknown suite, beside checks, or a suite that extends another") {
    t.Put("typo.yaml", "extends: comission\n");
    CHECK_THAT(LoadSuite(t.dir() + "/typo.yaml").error().message,
               Catch::Contains("typo.yaml:1:10") && Catch::Contains("not a built-in suite") &&
                   Catch::Contains("did you mean \"commission\""));
    t.Put("both.yaml", "extends: boot\nchecks: [kernel]\n");
    CHECK_THAT(LoadSuite(t.dir() + "/both.yaml").error().message,
               Catch::Contains("both.yaml:2:9") && Catch::Contains("both 'extends' and 'checks'"));
    t.Put("chain.yaml", "extends: ci\n");
    CHECK_THAT(LoadSuite(t.dir() + "/chain.yaml").error().message,
               Catch::Contains("the built-in suite \"ci\" cannot be extended"));
  }
  SECTION("a file that is not there") {
    auto s = LoadSuite(t.dir() + "/missing.yaml");
    REQUIRE_FALSE(s);
    CHECK_THAT(s.error().message, Catch::Contains("cannot read suite file") && Catch::Contains("missing.yaml"));
  }
}

TEST_CASE("RunSuite runs the suite's checks in order and says which the profile turned off", "[check][suite]") {
  Bench b = LoadBench(Tree("x86-ipc-4cpu"), "checks:\n  clock: false\n");
  Suite s;
  s.name = "mine";
  s.checks = {"kernel", "clock", "cmdline"};
  SuiteReport report = RunSuite(b.profile, *b.root, s);
  REQUIRE(report.results.size() == 3 + 1 + 3);
  CHECK(report.results[0].check == "kernel");
  const auto& off = report.results[3];
  CHECK(off.id == "clock");
  CHECK(off.status == Status::kSkip);
  CHECK_THAT(off.summary, Catch::Contains("checks.clock.enabled: false"));
  CHECK(report.results[4].check == "cmdline");
  CHECK_FALSE(report.interrupted);
  CHECK(report.Overall() == Status::kWarn);  // stock kernel preferred, reboot pending
  CHECK(report.root == b.root->Dir());
}

// Issue 15: a verify result fetched from a fleet names the machine that answered, read from
// the root (so a fixture answers for itself and never with this machine's name).
TEST_CASE("RunSuite names the root's host and kernel, and leaves the host unknown when the root has no hostname", "[check][suite]") {
  Suite s;
  s.name = "host";
  s.checks = {"kernel"};
  SECTION("a fixture without proc/sys/kernel/hostname") {
    Bench b = LoadBench(Tree("x86-ipc-4cpu"), "");
    SuiteReport report = RunSuite(b.profile, *b.root, s);
    CHECK_FALSE(report.hostname);
    REQUIRE(report.kernel_release);
    CHECK(*report.kernel_release == "6.1.0-37-amd64");
  }
  SECTION("a copy of it with one") {
    TempTree t(Tree("x86-ipc-4cpu"));
    t.Put("proc/sys/kernel/hostname", "robot-arm-2\n");
    Bench b = LoadBench(t.dir(), "");
    SuiteReport report = RunSuite(b.profile, *b.root, s);
    REQUIRE(report.hostname);
    CHECK(*report.hostname == "robot-arm-2");
  }
}

// Issue 17: `verify --root FIXTURE` PASSed "no interrupt moved ... in 10s" after 0.02 s.
TEST_CASE("RunSuite on a fixture root gives the window checks no live time: they SKIP and never wait", "[check][suite]") {
  Bench b = LoadBench(Tree("arm64-rt-8cpu"), "");
  Suite s;
  s.name = "windows";
  s.checks = {"interrupts", "ranks", "clock"};
  RunOptions o;
  int waits = 0;
  o.wait = [&](Duration) { return ++waits > 0; };
  SuiteReport report = RunSuite(b.profile, *b.root, s, o);
  CHECK(waits == 0);
  for (const char* id : {"interrupts", "ranks.spinning", "clock.resolution"}) {
    const auto& r = ById(report.results, id);
    INFO(id);
    CHECK(r.status == Status::kSkip);
    CHECK_THAT(r.summary, Catch::Contains("is a fixture tree, not a running system"));
  }
}

TEST_CASE("Ctrl-C stops the suite after the running check and marks the report", "[check][suite]") {
  Bench b = LoadBench(Tree("x86-ipc-4cpu"), "");
  Suite s;
  s.name = "mine";
  s.checks = {"kernel", "cmdline", "clock"};
  std::atomic<bool> stop{false};
  RunOptions o;
  o.stop = &stop;
  o.on_check = [&](const std::string& name, const std::vector<CheckResult>&) {
    if (name == "kernel") stop = true;
  };
  SuiteReport report = RunSuite(b.profile, *b.root, s, o);
  CHECK(report.interrupted);
  for (const auto& r : report.results) CHECK(r.check == "kernel");
}

TEST_CASE("a suite's windows override the profile's", "[check][suite]") {
  Bench b = LoadBench(Tree("x86-ipc-4cpu"), "checks:\n  interrupts:\n    window: 20s\n  hwlat:\n    duration: 40s\n");
  auto boot = LoadSuite("boot");
  REQUIRE(boot);
  const CheckInfo& interrupts = FindCheck("interrupts")->Info();
  const CheckInfo& hwlat = FindCheck("hwlat")->Info();
  CheckEnv env{b.profile, *b.root, b.state, *boot, nullptr, nullptr};
  CHECK(env.Window(interrupts) == std::chrono::seconds(2));
  CHECK(env.Window(hwlat) == std::chrono::seconds(40));
  auto commission = LoadSuite("commission");
  CheckEnv env2{b.profile, *b.root, b.state, *commission, nullptr, nullptr};
  CHECK(env2.Window(interrupts) == std::chrono::seconds(20));
}

TEST_CASE("a suite sets only the windows its checks let it set", "[check][suite]") {
  TempTree t;
  t.Put("s.yaml", "checks: [ranks]\nwindows:\n  ranks: 5s\n");
  auto s = LoadSuite(t.dir() + "/s.yaml");
  REQUIRE_FALSE(s);
  CHECK_THAT(s.error().message, Catch::Contains("s.yaml:3:3: error: unknown window 'ranks' in 'windows'") &&
                                    Catch::Contains("interrupts or hwlat"));
}

TEST_CASE("only hwlat needs root, and only when the suite runs it", "[check][suite]") {
  Bench b = LoadBench(Tree("x86-ipc-4cpu"), "");
  CHECK(NeedsRoot(*LoadSuite("commission"), b.profile) == std::vector<std::string>{"hwlat"});
  CHECK(NeedsRoot(*LoadSuite("boot"), b.profile).empty());
  Bench off = LoadBench(Tree("x86-ipc-4cpu"), "checks:\n  hwlat: false\n");
  CHECK(NeedsRoot(*LoadSuite("commission"), off.profile).empty());
}

TEST_CASE("the pi check runs in commission and ci, not at boot, and needs no up-front root", "[check][suite][pi]") {
  Bench b = LoadBench(Tree("x86-ipc-4cpu"), "");
  for (const char* name : {"commission", "ci"}) {
    auto s = LoadSuite(name);
    REQUIRE(s);
    CHECK(std::find(s->checks.begin(), s->checks.end(), "pi") != s->checks.end());
    // Without root it is a SKIP in the report, not verify's exit 3 (that is hwlat's alone).
    CHECK(NeedsRoot(*s, b.profile) == std::vector<std::string>{"hwlat"});
  }
  auto boot = LoadSuite("boot");
  CHECK(std::find(boot->checks.begin(), boot->checks.end(), "pi") == boot->checks.end());
  // Under a fixture tree the commission suite lists pi as a SKIP with the reason.
  SuiteReport report = RunSuite(b.profile, *b.root, *LoadSuite("commission"));
  auto pi = std::find_if(report.results.begin(), report.results.end(), [](const CheckResult& r) { return r.id == "pi"; });
  REQUIRE(pi != report.results.end());
  CHECK(pi->status == Status::kSkip);
  CHECK_THAT(pi->summary, Catch::Contains("live kernel only"));
}

TEST_CASE("the commission suite runs pi on the live kernel as root", "[check][suite][pi][host]") {
  if (::geteuid() != 0) RTAGENT_SKIP("the pi experiment needs root (SCHED_FIFO)");
  // Short windows and no hwlat: this test is about pi's place in the suite.
  Bench b = LoadBench("/", "checks:\n  hwlat: false\n  interrupts:\n    window: 100ms\n  ranks:\n    window: 100ms\n");
  SuiteReport report = RunSuite(b.profile, *b.root, *LoadSuite("commission"));
  auto pi = std::find_if(report.results.begin(), report.results.end(), [](const CheckResult& r) { return r.id == "pi"; });
  REQUIRE(pi != report.results.end());
  INFO(pi->summary);
  CHECK(pi->status != Status::kSkip);
  CHECK(pi->status != Status::kFail);
  CHECK_THAT(pi->measured, Catch::Contains("with inheritance"));
}

// `rtagent validate` as a user runs it: the built binary, a temporary system root, exit codes
// and what it prints.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "base/shell_test_support.h"
#include "base/skip_test_support.h"
#include "profile/test_support.h"

using rtagent::profile::testing::TempDir;

namespace {

struct Run {
  int code = -1;
  std::string out;  // stdout and stderr together
};

Run RtAgent(const std::string& args, bool with_stderr = true) {
  std::string cmd = std::string(RTAGENT_BINARY) + " " + args + (with_stderr ? " 2>&1" : " 2>/dev/null");
  Run r;
  rtagent::test::ShellResult s = rtagent::test::RunShell(cmd);
  r.code = s.code;
  r.out = s.out;
  return r;
}

}  // namespace

TEST_CASE("validate prints a one-line summary and exits 0 for a valid profile", "[profile][cli]") {
  TempDir dir;
  dir.MakeSysroot("0-3", "0-3");
  std::string p = dir.Write("board.yaml", "name: board\ncores:\n  housekeeping: 0-1\n  isolated: 2-3\n");
  Run r = RtAgent("validate --root " + dir.path() + " " + p);
  CHECK(r.code == 0);
  CHECK(r.out == p + ": valid (4 CPUs: housekeeping 0-1, isolated 2-3)\n");
}

TEST_CASE("validate without a profile checks the built-in default on 1 and 2 CPUs", "[profile][cli]") {
  TempDir one;
  one.MakeSysroot("0", "0");
  Run r1 = RtAgent("validate --root " + one.path());
  CHECK(r1.code == 0);
  CHECK(r1.out == "built-in default profile: valid (1 CPU: housekeeping 0, isolated none)\n");
  TempDir two;
  two.MakeSysroot("0-1", "0-1");
  Run r2 = RtAgent("validate --root " + two.path());
  CHECK(r2.code == 0);
  CHECK(r2.out == "built-in default profile: valid (2 CPUs: housekeeping 0, isolated 1)\n");
}

TEST_CASE("validate exits 2 and prints every problem as file:line:column with a hint", "[profile][cli]") {
  TempDir dir;
  dir.MakeSysroot("0-3", "0-3");
  std::string p = dir.Write("bad.yaml",
                            "cores:\n  housekeping: 0\n  isolated: 1-7\nranks:\n  rules:\n"
                            "    can: {threads: \"irq/(\", policy: fofo}\n");
  Run r = RtAgent("validate --root " + dir.path() + " " + p);
  CHECK(r.code == 2);
  CHECK_THAT(r.out, Catch::Contains(p + ":2:3: error: unknown key 'housekeping' in 'cores'\n  hint: did you mean 'housekeeping'?"));
  CHECK_THAT(r.out, Catch::Contains(p + ":3:13: error: 'cores.isolated' names CPU 4-7, which this system does not have"));
  CHECK_THAT(r.out, Catch::Contains(p + ":6:20: error: 'ranks.rules.can.threads' is not a valid regular expression"));
  CHECK_THAT(r.out, Catch::Contains(p + ":6:37: error: bad value \"fofo\" for 'ranks.rules.can.policy'"));
  CHECK_THAT(r.out, Catch::Contains(p + ": invalid, 4 errors; nothing was applied"));
}

TEST_CASE("validate --json prints the problems as JSON", "[profile][cli]") {
  TempDir dir;
  dir.MakeSysroot("0-3", "0-3");
  std::string p = dir.Write("bad.yaml", "cores:\n  isolated: 0-3\n");
  Run r = RtAgent("validate --json --root " + dir.path() + " " + p, false);
  CHECK(r.code == 2);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["valid"] == false);
  CHECK(j["errors"] == 1);
  REQUIRE(j["diagnostics"].size() == 1);
  CHECK(j["diagnostics"][0]["file"] == p);
  CHECK(j["diagnostics"][0]["line"] == 2);
  CHECK(j["diagnostics"][0]["column"] == 13);
  CHECK_THAT(j["diagnostics"][0]["message"].get<std::string>(), Catch::Contains("no housekeeping CPU is left"));
  std::string good = dir.Write("good.yaml", "cores:\n  isolated: 2-3\n");
  Run ok = RtAgent("validate --json --root " + dir.path() + " " + good, false);
  CHECK(ok.code == 0);
  auto g = nlohmann::json::parse(ok.out);
  CHECK(g["valid"] == true);
  CHECK(g["summary"]["housekeeping"] == "0-1");
  CHECK(g["summary"]["boot_arguments"][0] == "isolcpus=nohz,domain,managed_irq,2-3");
}

TEST_CASE("validate of a missing, empty or non-YAML file exits 2", "[profile][cli]") {
  TempDir dir;
  dir.MakeSysroot("0-1", "0-1");
  Run missing = RtAgent("validate --root " + dir.path() + " " + dir.path() + "/nope.yaml");
  CHECK(missing.code == 2);
  CHECK_THAT(missing.out, Catch::Contains("nope.yaml: error: cannot read profile"));
  std::string empty = dir.Write("empty.yaml", "\n");
  Run e = RtAgent("validate --root " + dir.path() + " " + empty);
  CHECK(e.code == 2);
  CHECK_THAT(e.out, Catch::Contains(empty + ":1:1: error: the profile is empty"));
  std::string garbage = dir.Write("garbage.yaml", "name: [unclosed\n");
  Run g = RtAgent("validate --root " + dir.path() + " " + garbage);
  CHECK(g.code == 2);
  CHECK_THAT(g.out, Catch::Contains(garbage + ":2:1: error: not valid YAML"));
}

TEST_CASE("validate exits 3 when the root has no CPU files", "[profile][cli]") {
  TempDir dir;
  Run r = RtAgent("validate --root " + dir.path());
  CHECK(r.code == 3);
  CHECK_THAT(r.out, Catch::Contains("cannot read the CPUs of the system under " + dir.path()));
}

TEST_CASE("every shipped profile validates with the binary", "[profile][cli]") {
  TempDir dir;
  dir.MakeSysroot("0-11", "0-11");
  for (const char* f : {"generic-4core.yaml", "x86-ipc.yaml", "rpi5.yaml", "jetson-orin.yaml", "ci-vm.yaml",
                        "rpi5-arm-controller.yaml", "default.yaml"}) {
    Run r = RtAgent("validate --root " + dir.path() + " " + RTAGENT_SOURCE_DIR + "/profiles/" + f);
    INFO(r.out);
    CHECK(r.code == 0);
  }
}

// Issue 17: root applied a profile any user could rewrite, without a word.
TEST_CASE("as root, a profile any user can write is refused with exit 2 unless --allow-unsafe-profile", "[profile][cli]") {
  if (::geteuid() != 0) RTAGENT_SKIP("the rule holds for root only; this test runs as uid " << ::geteuid());
  TempDir dir;
  dir.MakeSysroot("0-3", "0-3");
  std::string p = dir.Write("board.yaml", "name: board\ncores:\n  housekeeping: 0-1\n  isolated: 2-3\n");
  REQUIRE(::chmod(p.c_str(), 0666) == 0);
  Run r = RtAgent("validate --root " + dir.path() + " " + p);
  CHECK(r.code == 2);
  CHECK_THAT(r.out, Catch::Contains("refusing profile '" + p + "' as root: " + p +
                                    " is writable by every user (mode 0666)") &&
                        Catch::Contains("chmod o-w " + p));
  Run allowed = RtAgent("validate --allow-unsafe-profile --root " + dir.path() + " " + p);
  CHECK(allowed.code == 0);
  CHECK(allowed.out == p + ": valid (4 CPUs: housekeeping 0-1, isolated 2-3)\n");
}

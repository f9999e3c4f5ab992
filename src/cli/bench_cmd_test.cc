// `rtagent bench` and `rtagent bench pi` as a user runs them, on everything that is refused
// before a measurement starts and on --compare (no live state is touched here; the live runs
// are bench_host_test.cc's).
#include <catch2/catch.hpp>
#include <string>

#include "base/shell_test_support.h"
#include "bench/bench_json.h"
#include "bench/test_run.h"
#include "profile/test_support.h"

using rtagent::profile::testing::TempDir;

namespace {

rtagent::test::ShellResult Rt(const std::string& args) {
  return rtagent::test::RunShell("CI=true " + std::string(RTAGENT_BINARY) + " " + args + " 2>&1");
}

const std::string kFixture = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/x86-ipc-4cpu";

}  // namespace

TEST_CASE("bench and bench pi refuse a fixture root with exit 3: they measure the live machine", "[cli][bench]") {
  for (const char* cmd : {"bench --quick", "bench pi"}) {
    auto r = Rt(std::string(cmd) + " --root " + kFixture);
    INFO(r.out);
    CHECK(r.code == 3);
    CHECK_THAT(r.out, Catch::Contains("measures the live machine only"));
    CHECK_THAT(r.out, Catch::Contains("is a fixture tree"));
  }
}

TEST_CASE("bench refuses bad options with exit 2 before running anything", "[cli][bench]") {
  auto group = Rt("bench --quick --only kernel,nosuch");
  CHECK(group.code == 2);
  CHECK_THAT(group.out, Catch::Contains("--only: no group \"nosuch\" (groups: kernel, switch, message, notify, sync, "
                                        "timer, signal, thread)"));
  auto cpu = Rt("bench --quick --cpu 4095");
  CHECK(cpu.code == 2);
  CHECK_THAT(cpu.out, Catch::Contains("CPU 4095 is not online"));
  auto rank = Rt("bench --quick --priority 99");
  CHECK(rank.code == 2);
  CHECK_THAT(rank.out, Catch::Contains("use 2..98"));
  auto out = Rt("bench --quick --json /nonexistent-dir/run.json");
  CHECK(out.code == 2);
  CHECK_THAT(out.out, Catch::Contains("--json: "));
  CHECK_THAT(out.out, Catch::Contains("nothing was run"));
  auto pi = Rt("bench pi --priority 2");
  CHECK(pi.code == 2);
  CHECK_THAT(pi.out, Catch::Contains("use 3..99"));
  auto periods = Rt("bench pi --periods 0");
  CHECK(periods.code == 2);
}

TEST_CASE("bench --compare shows two runs side by side, unreadable runs are exit 2 with file and line",
          "[cli][bench]") {
  TempDir dir;
  const std::string a = dir.Write("a.json", rtagent::bench::RenderJsonLines(rtagent::bench::testing::ExampleRun()));
  auto b_run = rtagent::bench::testing::ExampleRun();
  b_run.host.kernel_release = "6.1.0-57-amd64";
  const std::string b = dir.Write("b.json", rtagent::bench::RenderJsonLines(b_run));
  auto ok = Rt("bench --compare " + a + " " + b);
  INFO(ok.out);
  CHECK(ok.code == 0);
  CHECK_THAT(ok.out, Catch::Contains("| kernel | 6.1.0-57-rt-amd64 | 6.1.0-57-amd64 |"));
  CHECK_THAT(ok.out, Catch::Contains("| a real system call | 85 ns | 85 ns | ×1.00 |"));

  auto missing = Rt("bench --compare " + a + " " + dir.path() + "/none.json");
  CHECK(missing.code == 2);
  CHECK_THAT(missing.out, Catch::Contains("none.json"));
  const std::string verdict = dir.Write("v.json", "{\"schema\": \"rtagent-verdict/1\"}\n");
  auto wrong = Rt("bench --compare " + a + " " + verdict);
  CHECK(wrong.code == 2);
  CHECK_THAT(wrong.out, Catch::Contains("v.json:1: not a line of an rtagent bench run"));
  auto one = Rt("bench --compare " + a);
  CHECK(one.code == 2);
}

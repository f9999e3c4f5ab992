// The verify renderers against tests/expected/verify.* (regenerate with
// RTAGENT_UPDATE_EXPECTED=1 and review the diff), plus the facts a reader relies on.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "check/render.h"
#include "report/test_verdict.h"

using namespace rtagent;
using namespace rtagent::check;

namespace {

// A fixed report with one result of each status, a profile mark and characters to escape.
SuiteReport Sample(bool interrupted = false) {
  SuiteReport r;
  r.suite = "ci";
  r.suite_source = "checks/ci.yaml (built-in)";
  r.profile = "board.yaml";
  r.root = "/";
  r.interrupted = interrupted;
  CheckResult pass{"kernel", "kernel.preempt_rt", Status::kPass, "the kernel is PREEMPT_RT", "PREEMPT_RT",
                   "PREEMPT_RT required", "Chapter 4 (Inside the real-time kernel)", {"board.yaml", 40, 15}, ""};
  CheckResult warn{"clock", "clock.hypervisor", Status::kWarn,
                   "virtual machine: every latency figure is a virtual-machine figure",
                   "cpuinfo has the \"hypervisor\" CPU flag", "bare metal", "Chapter 5 (Measuring the worst case)", {},
                   "measure the real board"};
  CheckResult fail{"lint", "lint.rank_order", Status::kFail, "the loop <ctrl> ranks above the IRQ thread & its data",
                   "", "feeding IRQ thread > loop", "Chapter 4 (Inside the real-time kernel)", {"board.yaml", 12, 5},
                   "raise the IRQ thread"};
  CheckResult skip{"hwlat", "hwlat", Status::kSkip, "this kernel has no hwlat tracer", "", "", "Chapter 5 (Measuring the worst case)", {}, ""};
  r.results = {pass, warn, fail, skip};
  return r;
}

}  // namespace

TEST_CASE("verify's table shows every result and the problems with their hints", "[check][render]") {
  std::string text = RenderSuiteText(Sample(), false);
  rtagent::testing::CheckExpected("verify.txt", text);
  CHECK_THAT(text, Catch::Contains("what to look at:"));
  CHECK_THAT(text, Catch::Contains("FAIL lint.rank_order (board.yaml:12:5)"));
  CHECK_THAT(text, Catch::Contains("hint: raise the IRQ thread"));
  CHECK_THAT(text, Catch::EndsWith("FAIL: at least one check failed\n"));
  CHECK(text.find("\033[") == std::string::npos);
  CHECK_THAT(RenderSuiteText(Sample(), true), Catch::Contains("\033[1;31mFAIL\033[0m"));
  std::string cut = RenderSuiteText(Sample(true), false);
  CHECK_THAT(cut, Catch::Contains("interrupted: Ctrl-C stopped the suite"));
  CHECK(SuiteJson(Sample(true))["result"] == "FAIL");
}

TEST_CASE("verify's JSON holds every field of every result", "[check][render]") {
  auto j = SuiteJson(Sample());
  rtagent::testing::CheckExpected("verify.json", j.dump(2) + "\n");
  CHECK(j["result"] == "FAIL");
  CHECK(j["counts"]["warn"] == 1);
  CHECK(j["results"][0]["source"]["line"] == 40);
  CHECK(j["results"][1]["source"].is_null());
  CHECK(j["results"][2]["hint"] == "raise the IRQ thread");
  CHECK(j["interrupted"] == false);
  CHECK(j["host"]["hostname"].is_null());  // the sample's root did not say
  SuiteReport named = Sample();
  named.hostname = "robot-arm-1";
  named.kernel_release = "6.1.0-57-rt-amd64";
  auto k = SuiteJson(named);
  CHECK(k["host"]["hostname"] == "robot-arm-1");
  CHECK(k["host"]["kernel_release"] == "6.1.0-57-rt-amd64");
  CHECK_THAT(RenderSuiteJUnit(named), Catch::Contains("hostname=\"robot-arm-1\""));
  CHECK_THAT(RenderSuiteJUnit(Sample()), !Catch::Contains("hostname="));
}

TEST_CASE("verify's JUnit: FAIL is a failure, SKIP skipped, WARN passes with system-out", "[check][render]") {
  std::string x = RenderSuiteJUnit(Sample());
  rtagent::testing::CheckExpected("verify.junit.xml", x);
  CHECK_THAT(x, Catch::Contains("tests=\"4\" failures=\"1\" errors=\"0\" skipped=\"1\""));
  CHECK_THAT(x, Catch::Contains("<failure message=\"the loop &lt;ctrl&gt; ranks above the IRQ thread &amp; its data\""));
  CHECK_THAT(x, Catch::Contains("<skipped message=\"this kernel has no hwlat tracer\"/>"));
  CHECK_THAT(x, Catch::Contains("<system-out>WARN: virtual machine"));
  CHECK_THAT(x, Catch::Contains("name=\"kernel.preempt_rt\" time=\"0\"/>"));
  std::string cut = RenderSuiteJUnit(Sample(true));
  CHECK_THAT(cut, Catch::Contains("name=\"completed\"") && Catch::Contains("failures=\"2\""));
}

// An acceptance run prepared against fixture trees: the input problems it finds before
// anything runs, and its refusal to measure a tree. The run itself needs the live machine
// (src/cli/accept_cmd_test.cc runs it).
#include "latency/acceptance.h"

#include <catch2/catch.hpp>

#include "base/fault_root.h"
#include "profile/loader.h"
#include "profile/test_support.h"

using namespace rtagent;
using rtagent::profile::testing::Cpus;

namespace {

profile::Profile WithAcceptance(const std::string& acceptance) {
  auto p = profile::LoadProfileText("cores:\n  housekeeping: 0\n  isolated: 1-3\nacceptance:\n" + acceptance, "t.yaml",
                                    ".", Cpus(4), nullptr);
  REQUIRE(p);
  return std::move(*p);
}

std::string Fixture() { return std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/x86-ipc-4cpu"; }

}  // namespace

TEST_CASE("a prepared run carries the profile's sampler configuration and the run's duration", "[latency]") {
  FaultRoot root(Fixture());
  const profile::Profile p = WithAcceptance("  interval_us: 500\n  priority: 80\n  loads:\n    builtin: [cache]\n");
  auto run = AcceptanceRun::Prepare(p.acceptance, std::chrono::seconds(3), "/tmp", root);
  REQUIRE(run);
  const SamplerConfig& sc = (*run)->sampler();
  CHECK(sc.cpus.ToList() == "1-3");
  CHECK(sc.interval == std::chrono::microseconds(500));
  CHECK(sc.priority == 80);
  CHECK(sc.duration == std::chrono::seconds(3));
}

TEST_CASE("a run's input problems are found before anything runs", "[latency]") {
  FaultRoot root(Fixture());
  SECTION("a duration shorter than one interval") {
    const profile::Profile p = WithAcceptance("  interval_us: 1000\n");
    auto run = AcceptanceRun::Prepare(p.acceptance, std::chrono::microseconds(10), "/tmp", root);
    REQUIRE_FALSE(run);
    CHECK_THAT(run.error().message, Catch::Contains("shorter than one interval"));
  }
  SECTION("an external load whose program is not on PATH") {
    const profile::Profile p = WithAcceptance("  loads:\n    external:\n      - argv: [rtagent-no-such-program-xyz]\n");
    auto run = AcceptanceRun::Prepare(p.acceptance, std::chrono::seconds(1), "/tmp", root);
    REQUIRE_FALSE(run);
    CHECK_THAT(run.error().message, Catch::Contains("rtagent-no-such-program-xyz"));
  }
  SECTION("loads placed on the measured CPUs") {
    const profile::Profile p = WithAcceptance("  cpus: 1-3\n  loads:\n    cpus: 0-1\n    builtin: [cache]\n");
    auto run = AcceptanceRun::Prepare(p.acceptance, std::chrono::seconds(1), "/tmp", root);
    REQUIRE_FALSE(run);
    CHECK(run.error().message ==
          "the loads' CPUs 0-1 overlap the measured CPUs 1-3 (set acceptance.loads.cpus or acceptance.cpus apart)");
  }
}

TEST_CASE("a latency run measures the live machine only: a fixture tree is refused with the reason", "[latency]") {
  FaultRoot root(Fixture());
  const std::string why = AcceptanceCannotRunReason(root, 90);
  CHECK_THAT(why, Catch::StartsWith("a latency test measures the live machine only; --root "));
  CHECK_THAT(why, Catch::Contains("fixture tree"));
}

TEST_CASE("a run whose loads cannot start ends with the reason and no record, and runs only once", "[latency]") {
  FaultRoot root(Fixture());  // loads watch where they run on the live system only: a tree refuses them
  const profile::Profile p = WithAcceptance("  loads:\n    builtin: [cache]\n");
  auto run = AcceptanceRun::Prepare(p.acceptance, std::chrono::seconds(1), "/tmp", root);
  REQUIRE(run);
  int sampler_calls = 0;
  AcceptanceHooks hooks;
  hooks.on_sampler = [&](SamplerProcess*) { ++sampler_calls; };
  auto first = (*run)->Run(hooks);
  REQUIRE_FALSE(first);
  CHECK_THAT(first.error().message, Catch::StartsWith("cannot start the loads: "));
  CHECK(sampler_calls == 0);  // no measuring process was started
  auto second = (*run)->Run(hooks);
  REQUIRE_FALSE(second);
  CHECK(second.error().message == "internal: an acceptance run was prepared once and run twice");
}

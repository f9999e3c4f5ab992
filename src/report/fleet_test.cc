// report --fleet's summary: the newest verdict per host, the fleet's worst, the hosts whose
// kernel or profile differs, files that are not verdicts; and the three renderings.
#include "report/fleet.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "report/test_verdict.h"

using namespace rtagent;
using namespace rtagent::testing;

namespace {

// A passing bare-metal board: CPU 3's figures only (all within the example's limits).
Verdict Board(const std::string& host, const std::string& started_at, const std::string& kernel) {
  Verdict v = ExampleVerdict();
  v.host.hostname = host;
  v.host.virtual_machine = false;
  v.host.hypervisor = "";
  v.host.kernel_release = kernel;
  v.started_at = started_at;
  v.cpus.erase(v.cpus.begin());
  v.loads.pop_back();
  v.preflight.pop_back();
  v.config.cpus = CpuSet::Of({3});
  Judge(v, ExampleLimits());
  return v;
}

std::vector<FleetFile> Files() {
  std::vector<FleetFile> f;
  f.push_back({"fleet/ci-runner-7/verdict.json", ExampleVerdict()});  // FAIL, 1203 µs on CPU 2, a VM
  f.push_back({"fleet/board-1/old.json", Board("board-1", "2025-01-01T00:00:00Z", "6.12.9-rt-amd64")});
  f.push_back({"fleet/board-1/verdict.json", Board("board-1", "2025-01-03T00:00:00Z", "6.12.9-rt-amd64")});
  f.push_back({"fleet/board-2/verdict.json", Board("board-2", "2025-01-02T00:00:00Z", "6.1.0-57-rt-amd64")});
  f.push_back({"fleet/board-2/verify.json", Result<Verdict>(MakeError("not a verdict: no 'cpus'"))});
  return f;
}

}  // namespace

TEST_CASE("fleet: the newest verdict of each host counts, the fleet's worst and the odd kernel are named", "[report][fleet]") {
  const FleetSummary f = SummarizeFleet("fleet", Files());
  REQUIRE(f.hosts.size() == 3);
  CHECK(f.hosts[0].host == "board-1");
  CHECK(f.hosts[0].path == "fleet/board-1/verdict.json");  // the newer of its two
  CHECK(f.hosts[0].older == 1);
  CHECK(f.passed == 2);
  CHECK(f.failed == 1);
  REQUIRE(f.worst);
  CHECK(f.hosts[*f.worst].host == "ci-runner-7");
  CHECK(f.hosts[*f.worst].worst_ns == 1203000);
  CHECK(f.hosts[*f.worst].worst_cpu == 2);
  CHECK(f.hosts[*f.worst].failed.size() >= 2);  // CPU 2's max and overflows, and more
  REQUIRE(f.differences.size() == 1);  // the kernel; every host ran the same profile
  CHECK(f.differences[0].fact == "kernel");
  CHECK(f.differences[0].common == "6.12.9-rt-amd64 (PREEMPT_RT)");
  CHECK(f.differences[0].common_hosts == 2);
  REQUIRE(f.differences[0].others.size() == 1);
  CHECK(f.differences[0].others[0].first == "board-2");
  REQUIRE(f.unread.size() == 1);
  CHECK(f.unread[0].first == "fleet/board-2/verify.json");
}

TEST_CASE("fleet: the Markdown says the counts, the worst, the virtual machine, the failures and the differences", "[report][fleet]") {
  const std::string md = RenderFleetMarkdown(SummarizeFleet("fleet", Files()));
  INFO(md);
  CHECK_THAT(md, Catch::StartsWith("# Fleet: 3 hosts, 2 passed, 1 failed\n"));
  CHECK_THAT(md, Catch::Contains("Worst wake-up across the fleet: 1.20 ms on CPU 2 of ci-runner-7 (a virtual machine)."));
  CHECK_THAT(md, Catch::Contains("warning: 1 host is a virtual machine: their figures are virtual-machine figures"));
  CHECK_THAT(md, Catch::Contains("| board-2 | PASS | 7.80 µs on CPU 3 | 3 µs | 0 | 6.1.0-57-rt-amd64 | yes | no | ci-vm sha256:0123abcd |"));
  CHECK_THAT(md, Catch::Contains("- ci-runner-7 (fleet/ci-runner-7/verdict.json): CPU 2: max"));
  CHECK_THAT(md, Catch::Contains("- kernel: 6.12.9-rt-amd64 (PREEMPT_RT) on 2 hosts; board-2 has 6.1.0-57-rt-amd64 (PREEMPT_RT)"));
  CHECK_THAT(md, Catch::Contains("1 older one was left aside"));
  CHECK_THAT(md, Catch::Contains("- fleet/board-2/verify.json: not a verdict: no 'cpus'"));
}

TEST_CASE("fleet: JSON and JUnit carry one entry per host, a failed host is a failed case", "[report][fleet]") {
  const FleetSummary f = SummarizeFleet("fleet", Files());
  auto j = nlohmann::json::parse(RenderFleetJson(f));
  CHECK(j["hosts_total"] == 3);
  CHECK(j["failed"] == 1);
  CHECK(j["worst"]["host"] == "ci-runner-7");
  CHECK(j["worst"]["max_ns"] == 1203000);
  CHECK(j["hosts"][2]["virtual_machine"] == true);
  CHECK(j["hosts"][0]["p99_us"] == 3);
  CHECK(j["differences"][0]["others"][0]["host"] == "board-2");
  CHECK(j["unread"][0]["path"] == "fleet/board-2/verify.json");
  const std::string xml = RenderFleetJUnit(f);
  CHECK_THAT(xml, Catch::Contains("tests=\"4\"") && Catch::Contains("failures=\"1\"") && Catch::Contains("skipped=\"1\""));
  CHECK_THAT(xml, Catch::Contains("<testcase classname=\"rtagent.fleet\" name=\"board-1\""));
  CHECK_THAT(xml, Catch::Contains("message=\"ci-runner-7 failed: CPU 2: max"));
  CHECK_THAT(xml, Catch::Contains("name=\"differs.kernel\" value=\"board-2=6.1.0-57-rt-amd64 (PREEMPT_RT)\""));
}

TEST_CASE("fleet: what a verdict does not say stays unknown, a host without a name is its file", "[report][fleet]") {
  Verdict v = ExampleVerdict();
  v.imported = ImportSource{"cyclictest -h", "box/cyc.txt", {"host", "kernel", "virtual_machine"}};
  const FleetSummary f = SummarizeFleet("d", {{"d/box/cyc.json", v}});
  REQUIRE(f.hosts.size() == 1);
  CHECK(f.hosts[0].host == "unknown (d/box/cyc.json)");
  CHECK_FALSE(f.hosts[0].kernel);
  CHECK_FALSE(f.hosts[0].virtual_machine);
  const std::string md = RenderFleetMarkdown(f);
  CHECK_THAT(md, Catch::Contains("| unknown | unknown | unknown |"));
  CHECK_THAT(md, !Catch::Contains("warning:"));  // not known to be a virtual machine: not claimed either way
  CHECK(nlohmann::json::parse(RenderFleetJson(f))["hosts"][0]["kernel"].is_null());
}

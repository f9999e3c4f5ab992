// `rtagent report --fleet DIR` through the built binary: a directory as an Ansible fetch leaves
// it (one folder per host), the exit code CI gates on, the outputs and the refusals.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "base/shell_test_support.h"
#include "profile/test_support.h"
#include "report/json.h"
#include "report/test_verdict.h"

using rtagent::profile::testing::TempDir;

namespace {

rtagent::test::ShellResult Rt(const std::string& args) {
  return rtagent::test::RunShell(std::string(RTAGENT_BINARY) + " " + args + " 2>&1");
}

void Put(const TempDir& dir, const std::string& rel, const std::string& text) {
  const std::string path = dir.path() + "/" + rel;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A passing host: the example verdict with only its passing CPU 3 and nothing else failing.
rtagent::Verdict Passing(const std::string& host) {
  rtagent::Verdict v = rtagent::testing::ExampleVerdict();
  v.host.hostname = host;
  v.cpus.erase(v.cpus.begin());
  v.loads.pop_back();
  v.preflight.pop_back();
  v.config.cpus = rtagent::CpuSet::Of({3});
  rtagent::Judge(v, rtagent::testing::ExampleLimits());
  return v;
}

}  // namespace

TEST_CASE("report --fleet: every host passing is exit 0, one failing is exit 1 naming it", "[cli][report]") {
  TempDir dir;
  Put(dir, "fleet/rt-a/var/lib/rtagent/verdict.json", rtagent::RenderJson(Passing("rt-a")));
  Put(dir, "fleet/rt-b/var/lib/rtagent/verdict.json", rtagent::RenderJson(Passing("rt-b")));
  Put(dir, "fleet/rt-b/var/lib/rtagent/verify.json", "{\"result\": \"PASS\"}");
  Put(dir, "fleet/rt-b/notes.txt", "not JSON, not read");
  const std::string fleet = dir.path() + "/fleet";
  auto ok = Rt("report --fleet " + fleet);
  INFO(ok.out);
  CHECK(ok.code == 0);
  CHECK_THAT(ok.out, Catch::StartsWith("# Fleet: 2 hosts, 2 passed, 0 failed"));
  CHECK_THAT(ok.out, Catch::Contains("verify.json: ") && !Catch::Contains("notes.txt"));

  Put(dir, "fleet/ci-runner-7/verdict.json", rtagent::RenderJson(rtagent::testing::ExampleVerdict()));
  auto bad = Rt("report --fleet " + fleet + " --json " + dir.path() + "/f.json --junit " + dir.path() + "/f.xml");
  INFO(bad.out);
  CHECK(bad.code == 1);
  // The files asked, and the Markdown on stdout still: the log of the job that fails says why.
  CHECK_THAT(bad.out, Catch::StartsWith("# Fleet: 3 hosts, 2 passed, 1 failed"));
  CHECK_THAT(bad.out, Catch::Contains("- ci-runner-7 ("));
  auto md_file = Rt("report --fleet " + fleet + " --md " + dir.path() + "/f.md");
  CHECK(md_file.code == 1);
  CHECK(md_file.out.empty());  // --md names a file: stdout stays empty
  CHECK_THAT(Slurp(dir.path() + "/f.md"), Catch::StartsWith("# Fleet: 3 hosts"));
  auto json_out = Rt("report --fleet " + fleet + " --json -");
  CHECK(json_out.code == 1);
  CHECK(nlohmann::json::parse(json_out.out)["failed"] == 1);  // JSON alone on stdout, no Markdown before it
  auto j = nlohmann::json::parse(Slurp(dir.path() + "/f.json"));
  CHECK(j["failed"] == 1);
  CHECK(j["worst"]["host"] == "ci-runner-7");
  CHECK_THAT(Slurp(dir.path() + "/f.xml"), Catch::Contains("failures=\"1\""));
}

TEST_CASE("report --fleet refuses what it cannot do, with exit 2 and the reason", "[cli][report]") {
  TempDir dir;
  auto missing = Rt("report --fleet " + dir.path() + "/none");
  CHECK(missing.code == 2);
  CHECK_THAT(missing.out, Catch::Contains("--fleet " + dir.path() + "/none: not a directory"));
  Put(dir, "empty/verify.json", "{}");
  auto empty = Rt("report --fleet " + dir.path() + "/empty");
  CHECK(empty.code == 2);
  CHECK_THAT(empty.out, Catch::Contains("no verdict found (1 JSON file that is not a verdict)"));
  auto svg = Rt("report --fleet " + dir.path() + "/empty --svg " + dir.path() + "/x.svg");
  CHECK(svg.code == 2);
  CHECK_THAT(svg.out, Catch::Contains("--svg renders one verdict; with --fleet use --md, --json or --junit"));
  auto two = Rt("report --fleet " + dir.path() + "/empty " + dir.path() + "/v.json");
  CHECK(two.code == 2);
  CHECK_THAT(two.out, Catch::Contains("give one of"));
  auto stdout_twice = Rt("report --fleet " + dir.path() + "/empty --md - --json -");
  CHECK(stdout_twice.code == 2);
  CHECK_THAT(stdout_twice.out, Catch::Contains("only one output can be \"-\""));
}

// The canonical form of a profile document: what the verdict's profile digest covers.
#include "profile/yaml_tree.h"

#include <catch2/catch.hpp>

#include "profile/loader.h"
#include "profile/test_support.h"

using namespace rtagent;
using namespace rtagent::profile;
using rtagent::profile::testing::Cpus;
using rtagent::profile::testing::TempDir;

namespace {

std::string Canonical(const std::string& yaml) {
  Diagnostics d;
  bool parsed = false;
  YamlNode n = ParseYaml(yaml, "t.yaml", &d, &parsed);
  REQUIRE(parsed);
  return CanonicalJson(n);
}

}  // namespace

TEST_CASE("CanonicalJson: keys sorted, comments, quoting and layout gone, lists in order", "[profile]") {
  CHECK(Canonical("name: a\ncores:\n  isolated: 1-3\n  housekeeping: 0\n") ==
        R"({"cores":{"housekeeping":"0","isolated":"1-3"},"name":"a"})");
  CHECK(Canonical("# a comment\ncores: {housekeeping: '0', isolated: \"1-3\"}\nname: a  # trailing\n") ==
        Canonical("name: a\ncores:\n  isolated: 1-3\n  housekeeping: 0\n"));
  CHECK(Canonical("loads: [b, a]\n") == R"({"loads":["b","a"]})");  // a list keeps its order
  CHECK(Canonical("power:\n  cpu_dma_latency_us:\n") == R"({"power":{"cpu_dma_latency_us":null}})");
  CHECK(Canonical("name: a\n") != Canonical("name: b\n"));
}

TEST_CASE("a profile's document is the same whether split into includes or written whole", "[profile]") {
  TempDir dir;
  dir.Write("base.yaml", "cores:\n  housekeeping: 0\n  isolated: 1-3\nname: base\n");
  const std::string split = dir.Write("board.yaml", "include: [base.yaml]\nname: board  # overrides base's\n");
  const std::string whole = dir.Write("whole.yaml", "name: board\ncores:\n  isolated: 1-3\n  housekeeping: 0\n");
  auto a = LoadProfile(split, Cpus(4), nullptr);
  auto b = LoadProfile(whole, Cpus(4), nullptr);
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->files.size() == 2);
  CHECK_FALSE(a->document.empty());
  CHECK(a->document == b->document);
  // The built-in default has a document too (it is no file on disk).
  auto d = LoadDefaultProfile(Cpus(4), nullptr);
  REQUIRE(d);
  CHECK(d->document.find("\"cores\"") != std::string::npos);
}

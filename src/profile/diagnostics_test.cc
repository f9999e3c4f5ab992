#include "profile/diagnostics.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace rtagent::profile;

TEST_CASE("diagnostics print as file:line:column: error: message with a hint line", "[profile]") {
  Diagnostics d;
  d.Error({"b.yaml", 3, 5}, "second", "fix b");
  d.Warning({"a.yaml", 7, 1}, "careful", "think");
  d.Error({"a.yaml", 2, 3}, "first", "fix a");
  d.Sort();
  CHECK(d.ErrorCount() == 2);
  CHECK(d.WarningCount() == 1);
  CHECK(d.FormatText() ==
        "a.yaml:2:3: error: first\n  hint: fix a\n"
        "a.yaml:7:1: warning: careful\n  hint: think\n"
        "b.yaml:3:5: error: second\n  hint: fix b\n");
  auto j = nlohmann::json::parse(d.FormatJsonArray());
  REQUIRE(j.size() == 3);
  CHECK(j[0]["file"] == "a.yaml");
  CHECK(j[0]["line"] == 2);
  CHECK(j[0]["column"] == 3);
  CHECK(j[1]["severity"] == "warning");
  CHECK(j[2]["hint"] == "fix b");
}

TEST_CASE("a mark without a line prints the file alone", "[profile]") {
  Diagnostics d;
  d.Error({"missing.yaml", 0, 0}, "cannot read", "check the path");
  CHECK(d.FormatText() == "missing.yaml: error: cannot read\n  hint: check the path\n");
}

TEST_CASE("the nearest word is suggested only for plausible typos", "[profile]") {
  std::vector<std::string> keys = {"housekeeping", "isolated", "boot", "bootloader", "runtime"};
  CHECK(EditDistance("kitten", "sitting") == 3);
  CHECK(NearestWord("housekeping", keys) == "housekeeping");
  CHECK(NearestWord("isolatd", keys) == "isolated");
  CHECK(NearestWord("bootloadr", keys) == "bootloader");
  CHECK(NearestWord("xyzzy", keys) == "");
}

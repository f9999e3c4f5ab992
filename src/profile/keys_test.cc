// The declaration machinery on a toy section: defaults, values, unknown keys, a value that is
// not a mapping, steps and cross-checks in order, a block kept in the profile and a check's
// block with its shorthand; and the type and default columns the reference shows.
#include "profile/keys.h"

#include <catch2/catch.hpp>

#include "profile/test_support.h"

using namespace rtagent;
using namespace rtagent::profile;
using namespace std::chrono_literals;

namespace {

struct Toy {
  Marked<int> count;
  Marked<Duration> every;
  Marked<std::optional<int>> limit;
  Marked<bool> enabled;
  std::vector<std::string> steps;  // what ran, in order
};

const profile::Section<Toy>& ToySection() {
  static const profile::Section<Toy> kSection{
      "toy",
      {
          Int("count", &Toy::count, {1, 9}, 3, "how many"),
          Dur("every", &Toy::every, 100ms, 1s, "how often").AndThen(Step<Toy>([](LoadContext&, Toy& t) {
            t.steps.push_back("after every");
          })),
          OptInt("limit", &Toy::limit, {0, 100}, "none", "a limit")
              .Checked([](const CrossCheck& cc, const Toy& t) {
                if (t.limit->has_value() && **t.limit < *t.count) {
                  cc.diags().Error(cc.At({t.limit.mark}), "toy.limit is below toy.count", "raise it");
                }
              }),
      },
      {[](const CrossCheck& cc, const Toy&) { cc.diags().Warning(cc.At({}), "section check", "after the keys'"); }}};
  return kSection;
}

struct Read {
  Toy toy;
  Diagnostics diags;
};

Read ReadToy(const std::string& yaml) {
  Read r;
  bool parsed = false;
  YamlNode doc = ParseYaml(yaml, "t.yaml", &r.diags, &parsed);
  REQUIRE(parsed);
  Profile p;
  p.path = "t.yaml";
  LoadContext c(&p, &r.diags);
  ToySection().Read(c, r.toy, Field(&doc, "toy"), "toy");
  ToySection().CheckAll(CrossCheck(p, &r.diags), r.toy);
  return r;
}

}  // namespace

TEST_CASE("a section gives every key its default, then the profile's value with its mark", "[profile]") {
  auto absent = ReadToy("other: 1\n");
  CHECK(*absent.toy.count == 3);
  CHECK_FALSE(absent.toy.count.IsSet());
  CHECK(*absent.toy.every == 1s);
  CHECK_FALSE(absent.toy.limit->has_value());
  CHECK(absent.toy.steps == std::vector<std::string>{"after every"});  // steps run, given or not

  auto given = ReadToy("toy:\n  count: 5\n  every: 250ms\n");
  CHECK(*given.toy.count == 5);
  CHECK(given.toy.count.mark.line == 2);
  CHECK(given.toy.count.mark.column == 10);
  CHECK(*given.toy.every == 250ms);
}

TEST_CASE("a section reports unknown keys, bad values and a value that is no mapping, keeping defaults", "[profile]") {
  auto typo = ReadToy("toy:\n  cout: 5\n  count: 12\n");
  REQUIRE(typo.diags.ErrorCount() == 2);
  CHECK(typo.diags.All()[0].message == "unknown key 'cout' in 'toy'");
  CHECK_THAT(typo.diags.All()[0].hint, Catch::StartsWith("did you mean 'count'? ('toy' takes: count, every or limit)"));
  CHECK(typo.diags.All()[1].message == "'toy.count' is 12, out of range 1..9");
  CHECK(*typo.toy.count == 3);

  auto list = ReadToy("toy: [1, 2]\n");
  CHECK(list.diags.All()[0].message == "wrong type for 'toy': expected a mapping (key: value lines), got a list");
  CHECK_THAT(list.diags.All()[0].hint, Catch::Contains("e.g. '  count: ...'"));
  CHECK(*list.toy.count == 3);
  CHECK(list.toy.steps == std::vector<std::string>{"after every"});
}

TEST_CASE("cross-checks run after reading: each key's, then the section's", "[profile]") {
  auto r = ReadToy("toy:\n  count: 5\n  limit: 2\n");
  REQUIRE(r.diags.All().size() == 2);
  CHECK(r.diags.All()[0].message == "toy.limit is below toy.count");
  CHECK(r.diags.All()[0].mark.line == 3);
  CHECK(r.diags.All()[1].message == "section check");
  CHECK(r.diags.All()[1].mark.line == 1);  // no mark given: the top of the profile
}

TEST_CASE("a check's block lives in the profile under its path, false is short for enabled: false", "[profile]") {
  struct Settings {
    Marked<bool> enabled;
    Marked<Duration> window;
  };
  const CheckBlock<Settings> block{"toy", "a toy check", {Dur("window", &Settings::window, 1ms, 2s, "its window")}};
  CHECK(block.path() == "checks.toy");
  CHECK(block.Keys().Docs().front().name == "enabled");  // the toggle comes first, declared by CheckBlock
  CHECK(block.Doc().type == "check");

  auto load = [&](const std::string& yaml) {
    Diagnostics d;
    bool parsed = false;
    YamlNode doc = ParseYaml(yaml, "t.yaml", &d, &parsed);
    Profile p;
    LoadContext c(&p, &d);
    block.Load(c, Field(&doc, "toy"), "checks.toy");
    INFO(d.FormatText());
    CHECK(d.All().empty());
    return p;
  };
  Profile off = load("toy: false\n");
  CHECK_FALSE(block.Enabled(off));
  CHECK(*block.Of(off).window == 2s);
  Profile set = load("toy:\n  window: 5ms\n");
  CHECK(block.Enabled(set));
  CHECK(*block.Of(set).window == 5ms);
  Profile absent = load("other: 1\n");
  CHECK(block.Enabled(absent));
}

TEST_CASE("the reference's type and default columns come from the declaration", "[profile]") {
  CHECK(IntType({1, 99}) == "integer 1..99");
  CHECK(IntType({0, 2000000000}) == "integer >= 0");
  CHECK(DurationType(Duration(1)) == "duration");
  CHECK(DurationType(100ms) == "duration >= 100ms");
  CHECK(ChoiceType({"keep", "revert"}) == "`keep`, `revert`");
  CHECK(CpuListType(CpuKeywords{true, false, false, false}) == "CPU list or `auto`");
  auto docs = ToySection().Docs();
  REQUIRE(docs.size() == 3);
  CHECK(docs[0].type == "integer 1..9");
  CHECK(docs[0].fallback == "`3`");
  CHECK(docs[1].fallback == "`1s`");
  CHECK(docs[2].fallback == "none");
}

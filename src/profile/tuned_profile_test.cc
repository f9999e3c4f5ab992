// Reading TuneD profiles: includes, variables, functions and every error a user can hit,
// against the TuneD-format profiles written for these tests in tests/tuned/.
#include "profile/tuned_profile.h"

#include <catch2/catch.hpp>

#include "base/sysroot.h"
#include "profile/test_support.h"

using namespace rtagent;
using namespace rtagent::profile;

namespace {

const std::string kTuned = std::string(RTAGENT_SOURCE_DIR) + "/tests/tuned/";

TunedSystem FourCpus() {
  TunedSystem s;
  s.online = CpuSet::Range(0, 3);
  s.present = s.online;
  return s;
}

// Reads a profile with no system directories to search (a directory's includes are beside it).
Result<TunedProfile> Read(const std::string& rel, Diagnostics* d, const TunedSystem& sys = FourCpus()) {
  return ReadTunedProfile(kTuned + rel, TunedSearch{{}, ""}, sys, d);
}

const TunedUnit* Unit(const TunedProfile& p, const std::string& name) {
  for (const auto& u : p.units) {
    if (u.name == name) return &u;
  }
  return nullptr;
}

std::string Value(const TunedProfile& p, const std::string& unit, const std::string& key) {
  const TunedUnit* u = Unit(p, unit);
  if (u == nullptr) return "<no unit>";
  for (const auto& o : u->options) {
    if (o.key == key) return o.value;
  }
  return "<no option>";
}

}  // namespace

TEST_CASE("a TuneD profile's includes merge parents first, the child's value winning", "[profile]") {
  Diagnostics d;
  auto p = Read("profiles/rt-board", &d);
  INFO(d.FormatText());
  REQUIRE(p.ok());
  CHECK(p->chain == std::vector<std::string>{"lowlat-base", "netlat", "rt-board"});
  CHECK(Value(*p, "sysctl", "vm.swappiness") == "10");       // from lowlat-base
  CHECK(Value(*p, "sysctl", "net.core.busy_read") == "50");  // from netlat
  CHECK(Value(*p, "sysctl", "vm.dirty_ratio") == "10");      // the inline comment is gone
  // [main] summary: the child's
  REQUIRE(!p->main.empty());
  CHECK(p->main[0].value == "Real-time board: CPUs 2-3 isolated");
  // the [variables] unit is consumed, not passed on
  CHECK(Unit(*p, "variables") == nullptr);
  CHECK(p->files.back().find("rt-board-variables.conf") != std::string::npos);
}

TEST_CASE("TuneD variables and functions evaluate as TuneD evaluates them", "[profile]") {
  Diagnostics d;
  auto p = Read("profiles/rt-board", &d);
  REQUIRE(p.ok());
  CHECK(p->variables.at("isolated_cores") == "2-3");
  CHECK(p->variables.at("isolated_cores_expanded") == "2,3");
  CHECK(p->variables.at("not_isolated_cpumask") == "00000003");
  CHECK(p->variables.at("managed_irq") == "managed_irq,domain,");
  // the escaped reference stays a reference (TuneD's assertion compares against it)
  CHECK(p->variables.at("isolated_cores_assert_check") == "\\${isolated_cores}");
  CHECK(Value(*p, "bootloader", "cmdline_rt") == "+isolcpus=managed_irq,domain,2-3 nohz_full=2-3 nosoftlockup");
  CHECK(Value(*p, "sysfs", "/sys/devices/virtual/workqueue/cpumask") == "00000003");
  CHECK(Value(*p, "systemd", "cpu_affinity") == "0,1");
  // no netdev_queue_count: TuneD takes its own CPUs, the housekeeping ones
  CHECK(Value(*p, "net", "channels") == "combined housekeeping");
  // ${i:PROFILE_DIR} is the profile's own directory
  CHECK(Value(*p, "script", "script").find("/tests/tuned/profiles/rt-board/script.sh") != std::string::npos);
  CHECK(Value(*p, "bootloader", "cmdline_netlat") == "skew_tick=1 quiet");
}

TEST_CASE("a TuneD name is found in /etc/tuned before /usr/lib/tuned, and may extend its namesake", "[profile]") {
  const std::string root = kTuned + "root";
  auto fs = OpenRoot(root);
  REQUIRE(fs.ok());
  auto sys = ReadTunedSystem(**fs);
  REQUIRE(sys.ok());
  CHECK(sys->package_of.size() == 8);
  Diagnostics d;
  auto p = ReadTunedProfile("site", TunedSearchUnder(root), *sys, &d);
  INFO(d.FormatText());
  REQUIRE(p.ok());
  // /etc/tuned/site includes "site": the one in /usr/lib/tuned, loaded first
  REQUIRE(p->files.size() == 3);
  CHECK(p->files[0] == root + "/etc/tuned/site/tuned.conf");
  CHECK(p->files[1] == root + "/usr/lib/tuned/site/tuned.conf");
  CHECK(p->files[2] == root + "/etc/tuned/site-variables.conf");  // the absolute include, under the root
  CHECK(p->main[0].value == "The administrator's site profile");
  // calc_isolated_cores:1 keeps the first CPU of each of the two sockets
  CHECK(p->variables.at("isolated_cores") == "1,2,3,5,6,7");
  CHECK(Value(*p, "scheduler", "isolated_cores") == "1,2,3,5,6,7");
  CHECK(Value(*p, "sysctl", "vm.stat_interval") == "10");
}

TEST_CASE("a TuneD profile that is not there is an error naming the directories searched", "[profile]") {
  const std::string root = kTuned + "root";
  Diagnostics d;
  auto p = ReadTunedProfile("sites", TunedSearchUnder(root), FourCpus(), &d);
  REQUIRE_FALSE(p.ok());
  REQUIRE(d.ErrorCount() == 1);
  CHECK(d.All()[0].message == "no TuneD profile 'sites' (searched " + root + "/etc/tuned, " + root + "/etc/tuned/profiles, " +
                                  root + "/usr/lib/tuned, " + root + "/usr/lib/tuned/profiles)");
  CHECK(d.All()[0].hint == "did you mean 'site'?");

  Diagnostics d2;
  REQUIRE_FALSE(Read("errors/missing-include", &d2).ok());
  REQUIRE(d2.ErrorCount() == 1);
  CHECK(d2.All()[0].mark.ToString() == kTuned + "errors/missing-include/tuned.conf:2:1");
  CHECK(d2.All()[0].message.rfind("no TuneD profile 'netlat-typo' (searched " + kTuned + "errors", 0) == 0);

  Diagnostics d3;
  REQUIRE_FALSE(Read("profiles/no-such-dir/", &d3).ok());
  CHECK(d3.All()[0].message == "no TuneD profile in '" + kTuned + "profiles/no-such-dir/': it has no tuned.conf");
}

TEST_CASE("a TuneD include loop is an error naming the chain", "[profile]") {
  Diagnostics d;
  REQUIRE_FALSE(Read("errors/loop-a", &d).ok());
  REQUIRE(d.ErrorCount() == 1);
  CHECK(d.All()[0].message == "include loop: loop-a -> loop-b -> loop-a");
  CHECK(d.All()[0].mark.ToString() == kTuned + "errors/loop-b/tuned.conf:2:1");
}

TEST_CASE("an unknown TuneD variable in a setting is an error with the nearest name", "[profile]") {
  Diagnostics d;
  REQUIRE_FALSE(Read("errors/unknown-var", &d).ok());
  REQUIRE(d.ErrorCount() == 1);
  CHECK(d.All()[0].message == "unknown variable 'swapiness' in [sysctl] vm.swappiness");
  CHECK(d.All()[0].hint == "did you mean 'swappiness'? (or define it in [variables])");
  CHECK(d.All()[0].mark.ToString() == kTuned + "errors/unknown-var/tuned.conf:5:1");
}

TEST_CASE("a line that is not TuneD's INI is an error at its line", "[profile]") {
  Diagnostics d;
  REQUIRE_FALSE(Read("errors/bad-line", &d).ok());
  REQUIRE(d.ErrorCount() == 1);
  CHECK(d.All()[0].mark.ToString() == kTuned + "errors/bad-line/tuned.conf:3:1");
  CHECK(d.All()[0].message == "'vm.dirty_ratio 10' is not a TuneD line: expected 'key = value', a [section] or a # comment");

  Diagnostics d2;
  REQUIRE_FALSE(Read("errors/outside-section", &d2).ok());
  CHECK(d2.All()[0].message == "'vm.swappiness' is outside any [section]");
  CHECK(d2.All()[0].mark.ToString() == kTuned + "errors/outside-section/tuned.conf:2:1");
}

TEST_CASE("a failed TuneD assertion is an error, as TuneD refuses the profile", "[profile]") {
  Diagnostics d;
  REQUIRE_FALSE(Read("errors/unset-variable", &d).ok());
  REQUIRE(d.ErrorCount() == 1);
  CHECK(d.All()[0].message == "TuneD assertion 'isolated_cores are set' failed: '${isolated_cores}' == '${isolated_cores}'");
  CHECK(d.All()[0].mark.ToString() == kTuned + "errors/unset-variable/tuned.conf:5:1");
}

TEST_CASE("TuneD's CPU lists: ranges, hex masks and negations", "[profile]") {
  CHECK(UnpackTunedCpus("1-3,5")->ToList() == "1-3,5");
  CHECK(UnpackTunedCpus("0x0000000f")->ToList() == "0-3");
  CHECK(UnpackTunedCpus("0x00000001,00000000,,4")->ToList() == "4,32");
  CHECK(UnpackTunedCpus("0-7,^3,^5-6")->ToList() == "0-2,4,7");
  CHECK_FALSE(UnpackTunedCpus("two").has_value());
  CHECK(TunedHexMask(CpuSet::Of({0, 1})) == "00000003");
  CHECK(TunedHexMask(CpuSet::Of({33})) == "00000002,00000000");
}

TEST_CASE("a TuneD variable name with a dash, or a variables file that is not there, is an error at its line", "[profile]") {
  Diagnostics d;
  REQUIRE_FALSE(Read("errors/bad-variable", &d).ok());
  REQUIRE(d.ErrorCount() == 1);
  CHECK(d.All()[0].message == "variable name 'isolated-cores' has characters TuneD does not allow");
  CHECK(d.All()[0].mark.ToString() == kTuned + "errors/bad-variable/tuned.conf:5:1");
  CHECK_THAT(d.All()[0].hint, Catch::Contains("letters, digits and '_'"));

  Diagnostics d2;
  REQUIRE_FALSE(Read("errors/missing-variables", &d2).ok());
  REQUIRE(d2.ErrorCount() == 1);
  CHECK(d2.All()[0].message == "variable file 'board-variables.conf' does not exist (looked for " + kTuned +
                                   "errors/missing-variables/board-variables.conf)");
  CHECK(d2.All()[0].mark.ToString() == kTuned + "errors/missing-variables/tuned.conf:5:1");
}

TEST_CASE("calc_isolated_cores with more digits than an int holds is refused as a word is, not thrown", "[profile]") {
  rtagent::profile::testing::TempDir dir;
  auto expand = [&](const std::string& arg) {
    dir.Write("p/tuned.conf", "[variables]\nisolated_cores=${f:calc_isolated_cores:" + arg + "}\n");
    Diagnostics d;
    auto p = ReadTunedProfile(dir.path() + "/p/", TunedSearch{{}, ""}, FourCpus(), &d);
    INFO(d.FormatText());
    REQUIRE(p.ok());
    return p->variables.at("isolated_cores");
  };
  CHECK(expand("1") == "1,2,3");
  // Left as written, as TuneD leaves a function it cannot evaluate; std::stoi threw here, and
  // `rtagent import tuned` aborted.
  CHECK(expand("many") == "${f:calc_isolated_cores:many}");
  CHECK(expand("99999999999") == "${f:calc_isolated_cores:99999999999}");
}

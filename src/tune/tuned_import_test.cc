// `rtagent import tuned`: the profile it writes for the TuneD-format profiles of tests/tuned/,
// that the profile loads (validate) and plans on a fixture board, the mapping table the same
// in code and in docs/migrating-from-tuned.md, and the command's errors as a user sees them.
#include "tune/tuned_import.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "base/ethtool_port.h"
#include "base/fault_root.h"
#include "base/shell_test_support.h"
#include "profile/loader.h"
#include "profile/test_support.h"
#include "report/test_verdict.h"

using namespace rtagent;

namespace {

const std::string kSource = RTAGENT_SOURCE_DIR;
const std::string kTuned = kSource + "/tests/tuned/";
const std::string kIpc = kSource + "/tests/sysroots/x86-ipc-4cpu";

profile::TunedSystem FourCpus() {
  profile::TunedSystem s;
  s.online = CpuSet::Range(0, 3);
  s.present = s.online;
  return s;
}

TunedImport Import(const std::string& rel) {
  profile::Diagnostics d;
  auto p = profile::ReadTunedProfile(kTuned + rel, profile::TunedSearch{{}, ""}, FourCpus(), &d);
  INFO(d.FormatText());
  REQUIRE(p.ok());
  return ImportTuned(*p, FourCpus());
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

rtagent::test::ShellResult RtAgent(const std::string& args) {
  return rtagent::test::RunShell(std::string(RTAGENT_BINARY) + " " + args + " 2>&1");
}

}  // namespace

TEST_CASE("a TuneD realtime-style chain imports as one rtagent profile", "[tune]") {
  TunedImport imp = Import("profiles/rt-board");
  // The script's path is absolute (TuneD's ${i:PROFILE_DIR}): the expected file names the
  // fixture directory by a placeholder, so it holds in any clone.
  std::string portable = imp.yaml;
  for (size_t at = portable.find(kTuned); at != std::string::npos; at = portable.find(kTuned, at))
    portable.replace(at, kTuned.size(), "@TESTS_TUNED@/");
  rtagent::testing::CheckExpected("tuned/rt-board.yaml", portable);
  // what a TuneD user looks for first
  CHECK(imp.yaml.find("  isolated: 2-3  # from [bootloader] cmdline isolcpus=managed_irq,domain,2-3 (rt-board:32)") !=
        std::string::npos);
  CHECK(imp.yaml.find("    workqueue_cpumask: housekeeping") != std::string::npos);
  CHECK(imp.yaml.find("  irqbalance: ban") != std::string::npos);
  CHECK(imp.yaml.find("    machinecheck_ignore_ce: true  # [sysfs] /sys/devices/system/machinecheck/machinecheck*/ignore_ce = 1 "
                      "(rt-board:29)") != std::string::npos);
  // netdev_queue_count unset: rtagent's default, which passes over a NIC without combined channels
  CHECK(imp.yaml.find("  channels: {}  # [net] channels = combined housekeeping (rt-board:16): TuneD's netdev_queue_count") !=
        std::string::npos);
  CHECK(imp.yaml.find("combined: housekeeping") == std::string::npos);
  // and what rtagent does not do, each with its reason
  std::vector<std::string> unmapped;
  for (const auto& u : imp.unmapped) unmapped.push_back(u.setting);
  CHECK(unmapped == std::vector<std::string>{
                        "[cpu] energy_perf_bias = performance",
                        "[sysctl] kernel.sched_rt_runtime_us = -1",
                        "[script] script = " + kTuned + "profiles/rt-board/script.sh",
                        "[rtentsk]",
                    });
  CHECK(imp.unmapped[1].why.find("Keep the safety net") != std::string::npos);
  CHECK(imp.unmapped[1].mark.line == 21);
  // the "-quiet" of the child took out the parent's "quiet"
  CHECK(imp.yaml.find("quiet") == std::string::npos);
}

TEST_CASE("the imported profile validates on a fixture board", "[tune]") {
  TunedImport imp = Import("profiles/rt-board");
  auto root = OpenRoot(kIpc);
  REQUIRE(root.ok());
  auto cpus = profile::ReadSystemCpus(**root);
  REQUIRE(cpus.ok());
  profile::Diagnostics d;
  auto p = profile::LoadProfileText(imp.yaml, "rt-board.yaml", ".", *cpus, &d);
  INFO(d.FormatText());
  REQUIRE(p.ok());
  CHECK(d.ErrorCount() == 0);
  CHECK(p->cores.isolated->cpus.ToList() == "2-3");
  CHECK(p->cores.housekeeping->cpus.ToList() == "0-1");
}

TEST_CASE("the importer's mapping table is the one docs/migrating-from-tuned.md prints", "[tune]") {
  const std::string path = kSource + "/docs/migrating-from-tuned.md";
  const std::string begin = "<!-- TunedMappingTable: begin (RTAGENT_UPDATE_EXPECTED=1 rewrites it) -->\n";
  const std::string end = "<!-- TunedMappingTable: end -->\n";
  std::string doc = Slurp(path);
  size_t b = doc.find(begin);
  size_t e = doc.find(end);
  REQUIRE(b != std::string::npos);
  REQUIRE(e != std::string::npos);
  b += begin.size();
  if (const char* update = std::getenv("RTAGENT_UPDATE_EXPECTED"); update && std::string(update) == "1") {
    doc = doc.substr(0, b) + TunedMappingMarkdown() + doc.substr(e);
    std::ofstream(path) << doc;
    e = b + TunedMappingMarkdown().size();
  }
  CHECK(doc.substr(b, e - b) == TunedMappingMarkdown());
}

TEST_CASE("rtagent import tuned writes a profile that validate and plan accept on a fixture", "[tune][cli]") {
  profile::testing::TempDir dir;
  const std::string out = dir.path() + "/board.yaml";
  auto r = RtAgent("import tuned --root " + kIpc + " " + kTuned + "profiles/rt-board -o " + out);
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("rtagent import tuned: " + kTuned + "profiles/rt-board (lowlat-base -> netlat -> rt-board; 4 files read)") !=
        std::string::npos);
  CHECK(r.out.find("4 not mapped") != std::string::npos);
  CHECK(r.out.find("valid against the CPUs and sysctls under " + kIpc + "; wrote " + out) != std::string::npos);
  auto v = RtAgent("validate --root " + kIpc + " " + out);
  INFO(v.out);
  CHECK(v.code == 0);
  auto p = RtAgent("plan --root " + kIpc + " " + out);
  INFO(p.out);
  CHECK(p.code == 0);
  CHECK(p.out.find("vm.swappiness") != std::string::npos);
}

TEST_CASE("rtagent import tuned of a one-file profile counts in the singular", "[tune][cli]") {
  profile::testing::TempDir dir;
  dir.Write("one/tuned.conf", "[sysctl]\nvm.swappiness=10\n");
  auto r = RtAgent("import tuned --root " + kIpc + " " + dir.path() + "/one -o " + dir.path() + "/board.yaml");
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("rtagent import tuned: " + dir.path() + "/one (one; 1 file read)\n  1 TuneD setting mapped, 0 not mapped") !=
        std::string::npos);
}

TEST_CASE("rtagent import tuned: a bad TuneD profile exits 2 with file, line and hint, writing nothing", "[tune][cli]") {
  profile::testing::TempDir dir;
  const std::string out = dir.path() + "/board.yaml";
  auto r = RtAgent("import tuned --root " + kTuned + "root sitee -o " + out);
  CHECK(r.code == 2);
  CHECK(r.out.find("error: no TuneD profile 'sitee'") != std::string::npos);
  CHECK(r.out.find("hint: did you mean 'site'?") != std::string::npos);
  CHECK(r.out.find("nothing was written") != std::string::npos);
  CHECK_FALSE(std::ifstream(out).good());

  // An -o in a directory that is not there: said before the TuneD profile is read.
  auto nowhere = RtAgent("import tuned --root " + kIpc + " " + kTuned + "profiles/rt-board -o " + dir.path() + "/no/board.yaml");
  CHECK(nowhere.code == 2);
  CHECK(nowhere.out.find("-o " + dir.path() + "/no/board.yaml: cannot write " + dir.path() +
                         "/no/board.yaml: directory " + dir.path() + "/no: No such file or directory; nothing was written") !=
        std::string::npos);
  CHECK(nowhere.out.find("TuneD settings mapped") == std::string::npos);

  auto u = RtAgent("import tuned --root " + kIpc + " " + kTuned + "errors/unknown-var");
  CHECK(u.code == 2);
  CHECK(u.out.find(kTuned + "errors/unknown-var/tuned.conf:5:1: error: unknown variable 'swapiness' in [sysctl] vm.swappiness") !=
        std::string::npos);
}

namespace {

// A one-unit TuneD profile isolating CPUs 2-3 of four, its [net] channels as given.
TunedImport ImportChannels(const std::string& channels) {
  profile::testing::TempDir dir;
  dir.Write("net/tuned.conf", "[bootloader]\ncmdline=isolcpus=2-3\n\n[net]\nchannels=" + channels + "\n");
  profile::Diagnostics d;
  auto p = profile::ReadTunedProfile(dir.path() + "/net", profile::TunedSearch{{}, ""}, FourCpus(), &d);
  INFO(d.FormatText());
  REQUIRE(p.ok());
  return ImportTuned(*p, FourCpus());
}

std::string NetworkLines(const std::string& yaml) {
  size_t b = yaml.find("\nnetwork:\n");
  REQUIRE(b != std::string::npos);
  size_t e = yaml.find("\n", yaml.find("\n", b + 1) + 1);
  return yaml.substr(b + 1, e - b);
}

}  // namespace

TEST_CASE("import tuned: channels of one per housekeeping CPU are rtagent's default, another count is said", "[tune]") {
  const std::string kDefault =
      "network:\n  channels: {}  # [net] channels = combined 2 (net:5): TuneD's netdev_queue_count, one combined channel "
      "per housekeeping CPU: the default, which passes over a NIC without combined channels as TuneD does\n";
  CHECK(NetworkLines(ImportChannels("combined 2").yaml) == kDefault);  // 2 housekeeping CPUs of 4
  CHECK(NetworkLines(ImportChannels("combined ${f:check_net_queue_count:}").yaml).find("  channels: {}  # ") !=
        std::string::npos);  // netdev_queue_count unset
  TunedImport three = ImportChannels("combined 3");
  CHECK(three.yaml.find("network:\n  channels:\n    combined: 3  # [net] channels = combined 3 (net:5)\n") != std::string::npos);
  TunedImport rx = ImportChannels("rx 2");
  REQUIRE(rx.unmapped.size() == 1);
  CHECK(rx.unmapped[0].setting == "[net] channels = rx 2");
}

TEST_CASE("import tuned: the imported channels plan on a board with a veth, set only the NIC that has combined channels",
          "[tune][cli]") {
  TempTree t(kIpc);
  Channels igb;  // enp2s0: four combined channels, at most eight
  igb.combined = 4;
  igb.combined_max = 8;
  t.Put(kpath::NetChannelsFixture("enp2s0"), FormatChannelsFixture(igb));
  Channels veth;  // veth0: one rx and one tx queue, no combined ones
  veth.rx = veth.tx = veth.rx_max = veth.tx_max = 1;
  t.Put(kpath::NetChannelsFixture("veth0"), FormatChannelsFixture(veth));
  profile::testing::TempDir dir;
  const std::string out = dir.path() + "/board.yaml";
  auto r = RtAgent("import tuned --root " + t.dir() + " " + kTuned + "profiles/rt-board -o " + out);
  INFO(r.out);
  REQUIRE(r.code == 0);
  auto p = RtAgent("plan --root " + t.dir() + " " + out);
  INFO(p.out);
  CHECK(p.code == 0);
  CHECK(p.out.find("enp2s0 combined channels") != std::string::npos);
  CHECK(p.out.find("veth0") == std::string::npos);  // passed over quietly, as TuneD does
  CHECK(p.out.find("error") == std::string::npos);
}

namespace {

// A one-unit TuneD profile whose [sysfs] section is `lines`.
TunedImport ImportSysfs(const std::string& lines) {
  profile::testing::TempDir dir;
  dir.Write("mce/tuned.conf", "[bootloader]\ncmdline=isolcpus=2-3\n\n[sysfs]\n" + lines);
  profile::Diagnostics d;
  auto p = profile::ReadTunedProfile(dir.path() + "/mce", profile::TunedSearch{{}, ""}, FourCpus(), &d);
  INFO(d.FormatText());
  REQUIRE(p.ok());
  return ImportTuned(*p, FourCpus());
}

}  // namespace

TEST_CASE("import tuned: machinecheck ignore_ce, by glob or one CPU's device, is machinecheck_ignore_ce", "[tune]") {
  const std::string kGlob = "/sys/devices/system/machinecheck/machinecheck*/ignore_ce";
  TunedImport on = ImportSysfs(kGlob + " = 1\n");
  CHECK(on.unmapped.empty());
  CHECK(on.yaml.find("  runtime:\n    machinecheck_ignore_ce: true  # [sysfs] " + kGlob + " = 1 (mce:5)\n") != std::string::npos);
  // one CPU's device: the kernel keeps one value for all, so it maps the same
  TunedImport off = ImportSysfs("/sys/devices/system/machinecheck/machinecheck2/ignore_ce = 0\n");
  CHECK(off.unmapped.empty());
  CHECK(off.yaml.find("    machinecheck_ignore_ce: false  # [sysfs] /sys/devices/system/machinecheck/machinecheck2/ignore_ce = 0") !=
        std::string::npos);
  // two lines that disagree: the first is kept and the importer says so
  TunedImport two = ImportSysfs(kGlob + " = 1\n/sys/devices/system/machinecheck/machinecheck0/ignore_ce = 0\n");
  CHECK(two.unmapped.empty());
  CHECK(two.yaml.find("machinecheck_ignore_ce: true") != std::string::npos);
  REQUIRE(two.notes.size() == 1);
  CHECK(two.notes[0].find("machinecheck0/ignore_ce = 0 differs from an earlier ignore_ce line") != std::string::npos);
  // a value the kernel refuses, and another machine-check file: not mapped, with the reason
  TunedImport bad = ImportSysfs(kGlob + " = 2\n/sys/devices/system/machinecheck/machinecheck0/check_interval = 600\n");
  REQUIRE(bad.unmapped.size() == 2);
  CHECK(bad.unmapped[0].setting == "[sysfs] " + kGlob + " = 2");
  CHECK(bad.unmapped[0].why == "ignore_ce is 0 or 1");
  CHECK(bad.unmapped[1].why == "rtagent has no generic sysfs section");
  CHECK(bad.yaml.find("machinecheck_ignore_ce") == std::string::npos);
}

// The shipped profiles and the reference: every file in profiles/ loads and validates against a
// system with the CPUs its board has, the built-in default fits any CPU count, and
// docs/profile.md (and docs/checks.md, for the checks' blocks) document every key with the type,
// default and meaning its declaration gives.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "profile/language.h"
#include "profile/loader.h"
#include "profile/test_support.h"
#include "tune/memory_tuner.h"

using namespace rtagent;
using namespace rtagent::profile;
using rtagent::profile::testing::Cpus;

namespace {

const std::string kSourceDir = RTAGENT_SOURCE_DIR;

std::vector<std::string> ProfileFiles() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(kSourceDir + "/profiles")) {
    if (e.is_regular_file() && e.path().extension() == ".yaml") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The cells of the Markdown table row whose first cell is `key` in backquotes, trimmed; empty
// when there is no such row.
std::vector<std::string> TableRow(const std::string& doc, const std::string& key) {
  auto at = doc.find("\n| `" + key + "` |");
  if (at == std::string::npos) return {};
  const std::string line = doc.substr(at + 2, doc.find('\n', at + 1) - at - 2);  // past "\n|"
  std::vector<std::string> cells;
  std::stringstream in(line);
  for (std::string cell; std::getline(in, cell, '|');) {
    auto first = cell.find_first_not_of(' ');
    cells.push_back(first == std::string::npos ? "" : cell.substr(first, cell.find_last_not_of(' ') - first + 1));
  }
  return cells;
}

}  // namespace

TEST_CASE("every profile in profiles/ loads and validates on its board's CPU count", "[profile]") {
  // CPU counts of the boards; a profile not listed is checked on 16 CPUs.
  const std::map<std::string, std::vector<int>> boards = {
      {"default.yaml", {1, 2, 3, 4, 8, 64, 256}},
      {"ci-vm.yaml", {1, 2, 4, 16}},
      {"generic-4core.yaml", {4}},
      {"x86-ipc.yaml", {4}},
      {"rpi5.yaml", {4}},
      {"rpi5-arm-controller.yaml", {4}},
      {"arm-controller.yaml", {2, 4}},
      {"jetson-orin.yaml", {8, 12}},
  };
  auto files = ProfileFiles();
  REQUIRE(files.size() >= 7);
  for (const std::string& f : files) {
    std::string name = std::filesystem::path(f).filename().string();
    auto it = boards.find(name);
    for (int n : it == boards.end() ? std::vector<int>{16} : it->second) {
      Diagnostics d;
      auto p = LoadProfile(f, Cpus(n), &d);
      INFO(f << " on " << n << " CPUs\n" << d.FormatText());
      CHECK(p.ok());
      CHECK(d.WarningCount() == 0);
      if (p.ok()) {
        CHECK_FALSE(p->name->empty());
        CHECK_FALSE(p->description->empty());
      }
    }
  }
}

TEST_CASE("the built-in default is profiles/default.yaml and fits any machine", "[profile]") {
  CHECK(DefaultProfileText() == ReadAll(kSourceDir + "/profiles/default.yaml"));
  for (int n : {1, 2, 5, 128}) {
    Diagnostics d;
    auto p = LoadDefaultProfile(Cpus(n), &d);
    INFO(n << " CPUs\n" << d.FormatText());
    REQUIRE(p.ok());
    CHECK(p->path == kDefaultProfileName);
    CHECK_FALSE(p->cores.housekeeping->cpus.Empty());
    CHECK(p->cores.housekeeping->cpus.Union(p->cores.isolated->cpus) == CpuSet::Range(0, n - 1));
    CHECK_FALSE(p->acceptance.cpus->cpus.Empty());
    // Nothing dangerous: boot files untouched, safety net kept, no PM QoS note held.
    CHECK(*p->cores.bootloader.type == BootloaderType::kPrint);
    CHECK(*p->kernel.rt_safety_net == SafetyNetExpectation::kKeep);
    CHECK_FALSE(p->power.cpu_dma_latency_us->has_value());
    CHECK(MemoryOf(*p).sysctls.empty());
    CHECK(*p->service.on_stop == OnStop::kKeep);
  }
  Diagnostics d;
  auto one = LoadDefaultProfile(Cpus(1), &d);
  REQUIRE(one.ok());
  CHECK(one->acceptance.cpus->cpus == CpuSet::Of({0}));
}

TEST_CASE("the default validates against this machine's system root", "[profile][host]") {
  FsRoot live("/");
  Diagnostics d;
  auto p = LoadDefaultProfile(live, &d);
  INFO(d.FormatText());
  CHECK(p.ok());
}

TEST_CASE("the default validates on every fixture system tree", "[profile]") {
  std::string dir = kSourceDir + "/tests/sysroots";
  if (!std::filesystem::is_directory(dir)) {
    WARN("no fixture trees under " << dir);
    return;
  }
  int checked = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (!e.is_directory() || !std::filesystem::exists(e.path() / kpath::kCpuOnline)) continue;
    FsRoot root(e.path().string());
    Diagnostics d;
    auto p = LoadDefaultProfile(root, &d);
    INFO(e.path().string() << "\n" << d.FormatText());
    CHECK(p.ok());
    ++checked;
  }
  CHECK(checked > 0);
}

TEST_CASE("docs/profile.md documents every key as the language declares it", "[profile]") {
  // The checks' own blocks (checks.<name>) are documented with the checks.
  const std::string doc = ReadAll(kSourceDir + "/docs/profile.md") + ReadAll(kSourceDir + "/docs/checks.md");
  REQUIRE_FALSE(doc.empty());
  int keys = 0;
  for (const auto& [path, key] : AllKeys()) {
    INFO(path);
    // Its row: "| `path` | type | default | meaning ..." (more columns may follow).
    auto cells = TableRow(doc, path);
    REQUIRE(cells.size() >= 4);
    CHECK(cells[1] == key.type);
    CHECK(cells[2] == key.fallback);
    CHECK_THAT(cells[3], Catch::StartsWith(key.meaning));
    for (const std::string& name : key.names) CHECK(doc.find("`" + name + "`") != std::string::npos);
    ++keys;
  }
  CHECK(keys > 100);  // the walk reached every section, the tuners' and checks' own too
}

// The ranks and partitions plans on every fixture board, against tests/expected/plans/
// (regenerate with RTAGENT_UPDATE_EXPECTED=1 and review the diff): every board profile that
// loads on the board, and the profiles beside the expected files written for one board
// (<board>.<name>.yaml: the loop, its feeder, the other IRQ threads, a deadline planner,
// kernel threads, user ranks below the loop). Each item shows every field
// (what, actuator, key, before, after, compare, reboot, why, refusals) and each finding its
// level, message, profile line and reason, so a refactoring that moves a single word shows
// here. (registry_test.cc compares whole plans; this one holds these two sections' words.)
#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>

#include "base/sysroot.h"
#include "profile/loader.h"
#include "report/test_verdict.h"
#include "tune/partitions_tuner.h"
#include "tune/ranks_tuner.h"

using namespace rtagent;

namespace {

const char* LevelName(Finding::Level l) {
  switch (l) {
    case Finding::Level::kInfo: return "info";
    case Finding::Level::kWarning: return "warning";
    case Finding::Level::kError: return "error";
  }
  return "?";
}

std::string Render(const std::vector<SectionPlan>& sections) {
  std::ostringstream out;
  for (const auto& s : sections) {
    out << "[" << s.section << "]\n";
    for (const auto& c : s.items) {
      out << "item " << c.section << " | " << c.what << " | " << c.actuator << " " << c.key << " | " << c.before
          << " -> " << c.after << " | compare " << static_cast<int>(c.compare) << (c.reboot ? " | reboot" : "")
          << "\n  why: " << c.why << "\n";
      for (const auto& r : c.refusals) out << "  refusal " << r.err << ": " << r.reason << "\n";
    }
    for (const auto& f : s.findings) {
      out << "finding " << LevelName(f.level) << " at " << f.mark.ToString() << ": " << f.message << "\n  why: " << f.why
          << "\n";
    }
  }
  return out.str();
}

// Profile marks name the profile's path: drop the source directory's part.
std::string WithoutSourceDir(std::string text) {
  const std::string src = std::string(RTAGENT_SOURCE_DIR) + "/";
  for (size_t at = text.find(src); at != std::string::npos; at = text.find(src, at)) text.erase(at, src.size());
  return text;
}

// The ranks and partitions sections of the plan; a section that refuses to plan (partitions
// on CPUs a board's existing partition holds) shows its error, and the other is still compared.
std::string PlanText(const profile::Profile& p, const SysRoot& root) {
  SystemState state;
  std::vector<SectionPlan> sections;
  std::string errors;
  for (const auto& make : {MakePartitionsTuner, MakeRanksTuner}) {
    auto plan = make()->Plan(PlanContext{p, root, state});
    if (!plan) {
      errors += "error: " + plan.error().message + "\n";
      continue;
    }
    sections.push_back(std::move(*plan));
  }
  return WithoutSourceDir(errors + Render(sections));
}

}  // namespace

TEST_CASE("ranks and partitions plans on every fixture board, item for item, match the expected files", "[tune]") {
  const std::string src = RTAGENT_SOURCE_DIR;
  const std::string plans = src + "/tests/expected/plans";
  int compared = 0;
  for (const std::string board : {"x86-ipc-4cpu", "arm64-rt-8cpu", "vm-x86-captured", "debian12-rt-arm64-qemu"}) {
    FsRoot root(src + "/tests/sysroots/" + board);
    std::vector<std::pair<std::string, Result<profile::Profile>>> profiles;
    auto load = [&](const std::filesystem::path& file, const std::string& name) {
      profile::Diagnostics diags;
      profiles.emplace_back(name, profile::LoadProfile(file.string(), root, &diags));
    };
    for (const auto& entry : std::filesystem::directory_iterator(src + "/profiles")) {
      if (entry.path().extension() == ".yaml") load(entry.path(), entry.path().stem().string());
    }
    for (const auto& entry : std::filesystem::directory_iterator(plans)) {
      const std::string stem = entry.path().stem().string();  // <board>.<name>
      if (entry.path().extension() != ".yaml" || stem.rfind(board + ".", 0) != 0) continue;
      load(entry.path(), stem.substr(board.size() + 1));
      INFO(entry.path().string());
      REQUIRE(profiles.back().second.ok());  // written for this board: it must load here
    }
    for (const auto& [name, p] : profiles) {
      if (!p) continue;  // a profile for another board
      INFO(board << " / " << name);
      rtagent::testing::CheckExpected("plans/" + board + "." + name + ".txt", PlanText(*p, root));
      ++compared;
    }
  }
  CHECK(compared >= 8);
}

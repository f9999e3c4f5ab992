// PlanAll collects only PlanSections(): the plan must be exactly the one made from the whole
// system state, item for item and finding for finding, on every fixture board with the board
// profiles that load on it. A tuner that starts reading a section left out fails here. So must
// the plan made from a state that kept its task list (verify's), which the tuners share.
#include <catch2/catch.hpp>
#include <sstream>

#include "base/sysroot.h"
#include "inspect/system_state.h"
#include "profile/loader.h"
#include "tune/tuner.h"

using namespace rtagent;

namespace {

std::string Render(const FullPlan& plan) {
  std::ostringstream out;
  for (const auto& s : plan.sections) {
    out << "[" << s.section << "]\n";
    for (const auto& c : s.items)
      out << c.actuator << " " << c.key << ": " << c.before << " -> " << c.after << (c.reboot ? " (reboot)" : "") << "\n";
    for (const auto& f : s.findings) out << "finding " << static_cast<int>(f.level) << ": " << f.message << "\n";
  }
  return out.str();
}

}  // namespace

TEST_CASE("planning from PlanSections() gives the plan of the whole system state", "[tune]") {
  const std::string src = RTAGENT_SOURCE_DIR;
  int compared = 0;
  for (const std::string board : {"x86-ipc-4cpu", "arm64-rt-8cpu", "vm-x86-captured"}) {
    FsRoot root(src + "/tests/sysroots/" + board);
    for (const std::string name : {"default", "x86-ipc", "rpi5", "generic-4core", "ci-vm", "jetson-orin"}) {
      profile::Diagnostics diags;
      auto p = profile::LoadProfile(src + "/profiles/" + name + ".yaml", root, &diags);
      if (!p) continue;  // a profile for another board
      auto narrow = PlanAll(*p, root);
      auto full = PlanAll(*p, root, CollectSystemState(root));
      // verify's state keeps its task list, which the ranks and partitions tuners then share.
      auto shared = PlanAll(*p, root, CollectSystemState(root, {}, nullptr, /*keep_tasks=*/true));
      INFO(board << " / " << name);
      REQUIRE(narrow.ok() == full.ok());
      REQUIRE(shared.ok() == full.ok());
      if (!narrow) continue;
      CHECK(Render(*narrow) == Render(*full));
      CHECK(Render(*shared) == Render(*full));
      ++compared;
    }
  }
  CHECK(compared >= 3);
}

// `inspect --json` writes its document a section and an element at a time
// (WriteInspectJson); it must be the very text of the whole document dumped at once.
#include "inspect/inspect_json.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>

#include "inspect/inspect_test_support.h"
#include "inspect/system_state.h"

using namespace rtagent;
using rtagent::testing::Fixture;

namespace {
std::string Whole(const SystemState& s) {
  return InspectJson(s).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}
std::string Streamed(const SystemState& s) {
  std::ostringstream out;
  WriteInspectJson(s, out);
  return out.str();
}
}  // namespace

TEST_CASE("inspect --json written in pieces is byte for byte the whole document, on every fixture", "[inspect]") {
  namespace fs = std::filesystem;
  int trees = 0;
  for (const auto& e : fs::directory_iterator(std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots")) {
    if (!e.is_directory()) continue;
    ++trees;
    INFO(e.path().string());
    FsRoot root(e.path().string());
    const SystemState all = CollectSystemState(root);
    CHECK(Streamed(all) == Whole(all));
    for (Section s : AllSections()) {
      INFO(SectionName(s));
      const SystemState one = CollectSystemState(root, {s});
      CHECK(Streamed(one) == Whole(one));
    }
  }
  CHECK(trees >= 3);
}

TEST_CASE("inspect --json in pieces: empty lists, a deadline thread and text that needs escaping", "[inspect]") {
  SystemState s;
  s.irqs = IrqState{};      // no IRQ, no per-CPU row: "[]"
  s.threads = ThreadState{};
  s.power = PowerState{};
  CHECK(Streamed(s) == Whole(s));

  IrqInfo irq;
  irq.irq = 7;
  irq.actions = {"eth0\n\"q\"", "caf\xc3\xa9", "bad \xff byte"};
  s.irqs->irqs.push_back(irq);
  s.irqs->irqs.push_back(irq);
  ThreadInfo t;
  t.comm = "dl/0";
  t.policy = kSchedDeadline;
  t.deadline = DeadlineParams{1000, 2000};
  s.threads->realtime.push_back(t);
  s.power->cpus.push_back(CpuPower{});
  CHECK(Streamed(s) == Whole(s));
}

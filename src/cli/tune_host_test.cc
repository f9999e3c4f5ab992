// apply, verify and revert for real on this machine's kernel ([host]): THP defrag, the
// workqueue cpumask and one IRQ's affinity. Every value is restored even when the test
// fails: a guard runs `rtagent revert` and then writes back what it read first.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/tree_test_support.h"
#include "base/shell_test_support.h"
#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "base/sysroot.h"
#include "tune/journal.h"

using namespace rtagent;

namespace {

int Rt(const std::string& args, std::string* out) {
  std::string cmd = std::string(RTAGENT_BINARY) + " " + args + " 2>&1";
  rtagent::test::ShellResult s = rtagent::test::RunShell(cmd);
  *out += s.out;
  return s.code;
}

// Puts the live values back whatever happens.
struct Restore {
  SysRoot& live;
  std::vector<std::pair<std::string, std::string>> saved;
  ~Restore() {
    std::string ignored;
    Rt("revert", &ignored);
    for (const auto& [path, value] : saved) (void)live.Write(path, value);
  }
};

std::string Chosen(const std::string& text) {
  size_t a = text.find('['), b = text.find(']');
  return a == std::string::npos ? text : text.substr(a + 1, b - a - 1);
}

}  // namespace

TEST_CASE("apply, verify and revert on this machine's kernel", "[cli][host][apply]") {
  auto opened = OpenRoot("/");
  REQUIRE(opened.ok());
  SysRoot& live = **opened;
  if (::geteuid() != 0) {
    WARN("skipped: needs root to change the kernel's settings");
    return;
  }
  if (live.Exists(Journal::Path())) {
    WARN("skipped: a journal of an earlier apply is on this machine; not touching it");
    return;
  }
  auto defrag = live.ReadTrimmed(kpath::kThpDefrag);
  auto wq = live.ReadTrimmed(kpath::kWorkqueueCpumask);
  auto cpus = live.ReadTrimmed(kpath::kCpuOnline);
  if (!defrag || !wq || !cpus || *cpus == "0") {
    WARN("skipped: needs THP, the workqueue cpumask and two CPUs");
    return;
  }
  // One movable IRQ: the first whose affinity file takes a write of its own value.
  auto movable = rtagent::test::FindMovableIrq(live, *cpus);
  if (!movable) {
    WARN("skipped: no movable IRQ spread over every CPU");
    return;
  }
  const auto [irq, irq_aff] = *movable;
  const std::string irq_path = kpath::ProcIrq(irq) + "/smp_affinity_list";
  Restore guard{live, {{kpath::kThpDefrag, Chosen(*defrag)}, {kpath::kWorkqueueCpumask, *wq}, {irq_path, irq_aff}}};

  const std::string want_defrag = Chosen(*defrag) == "never" ? "defer" : "never";
  TempTree t;
  t.Put("host.yaml", "cores:\n  housekeeping: 0\n  isolated: 1\n  runtime:\n    workqueue_cpumask: 0\n"
                     "    default_smp_affinity: keep\n"
                     "irqs:\n  default: keep\n  rules:\n    one:\n      irq: [" + std::to_string(irq) + "]\n      cpus: 0\n"
                     "memory:\n  thp:\n    defrag: " + want_defrag + "\n");
  const std::string profile = t.dir() + "/host.yaml";

  std::string out;
  int rc = Rt("apply " + profile, &out);
  INFO(out);
  REQUIRE(rc == 0);
  CHECK(Chosen(*live.ReadTrimmed(kpath::kThpDefrag)) == want_defrag);
  CHECK(*live.ReadTrimmed(kpath::kWorkqueueCpumask) == "1");
  CHECK(*live.ReadTrimmed(irq_path) == "0");
  CHECK(live.Exists(Journal::Path()));

  out.clear();
  // Conformance only: the other checks (interrupts on this VM's isolated CPU 1) are not this test's.
  t.Put("conformance.yaml", "checks: [conformance]\n");
  const std::string suite = " --suite " + t.dir() + "/conformance.yaml";
  CHECK(Rt("verify " + profile + suite, &out) == 0);
  // Something changes it behind rtagent's back: verify says so.
  REQUIRE(live.Write(irq_path, irq_aff).ok());
  out.clear();
  CHECK(Rt("verify " + profile + suite, &out) == 1);
  CHECK_THAT(out, Catch::Contains("IRQ " + std::to_string(irq)));

  out.clear();
  rc = Rt("revert", &out);
  INFO(out);
  CHECK(rc == 0);
  CHECK(Chosen(*live.ReadTrimmed(kpath::kThpDefrag)) == Chosen(*defrag));
  CHECK(*live.ReadTrimmed(kpath::kWorkqueueCpumask) == *wq);
  CHECK(*live.ReadTrimmed(irq_path) == irq_aff);
  CHECK_FALSE(live.Exists(Journal::Path()));
}

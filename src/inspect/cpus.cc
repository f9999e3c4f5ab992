#include "inspect/cpus.h"

#include "base/kernel_paths.h"
#include "base/kernel_text.h"

namespace rtagent {
namespace {

std::optional<CpuSet> ReadList(const SysRoot& root, const std::string& path) {
  auto r = root.Read(path);
  if (!r) return std::nullopt;
  // With CONFIG_NO_HZ_FULL but no nohz_full= CPUs, drivers/base/cpu.c prints the NULL
  // cpumask with %*pbl, which reads "(null)" on several kernels: that is an empty set.
  if (TrimView(*r) == "(null)") return CpuSet();
  auto s = CpuSet::ParseList(*r);
  if (!s) return std::nullopt;
  return *s;
}

}  // namespace

CpuState CollectCpus(const SysRoot& root, const std::optional<std::string>& cgroup2_mount) {
  CpuState c;
  c.possible = ReadList(root, kpath::kCpuPossible);
  c.present = ReadList(root, kpath::kCpuPresent);
  c.online = ReadList(root, kpath::kCpuOnline);
  c.isolated = ReadList(root, kpath::kCpuIsolated);
  c.nohz_full = ReadList(root, kpath::kCpuNohzFull);
  if (cgroup2_mount) {
    c.partition_isolated = ReadList(root, kpath::FromAbsolute(*cgroup2_mount) + "/" + kpath::kCpusetPrefix + kpath::kCpusetCpusIsolated);
  }
  if (auto r = root.Read(kpath::kWorkqueueCpumask)) {
    if (auto s = CpuSet::ParseMask(*r)) c.workqueue_cpumask = *s;
  }
  if (auto r = root.Read(kpath::kTimerMigration)) c.timer_migration = ParseInt(*r);

  if (c.isolated) c.isolated_all = c.isolated_all.Union(*c.isolated);
  if (c.nohz_full) c.isolated_all = c.isolated_all.Union(*c.nohz_full);
  if (c.partition_isolated) c.isolated_all = c.isolated_all.Union(*c.partition_isolated);
  if (c.online) c.housekeeping = c.online->Minus(c.isolated_all);
  int max = -1;
  for (const auto* s : {&c.possible, &c.present, &c.online}) {
    if (*s && (*s)->Max() > max) max = (*s)->Max();
  }
  c.nr_cpus = max + 1;
  return c;
}

}  // namespace rtagent

// Persistent huge pages per size and NUMA node (memory.hugepages; issue 20, after OpenShift's
// PerformanceProfile): an RT application's memory reserved when the profile is applied, not
// found, compacted or faulted in while the loop runs (Chapter 8, "Lock it, and touch it early"
// and "Huge pages and the stall"). The pools are nr_hugepages files
// (Documentation/admin-guide/mm/hugetlbpage.rst): the kernel allocates what it can and reads
// back the count it reached, so a write that "succeeds" may still fall short. The actuator
// here reads every write back and treats a shortfall as a failed write.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/sysroot.h"
#include "profile/diagnostics.h"
#include "tune/executor.h"

namespace rtagent {

/// One pool the profile asks for: `count` pages of `size_kb`, on `node` or (nullopt) in the
/// global pool, which the kernel spreads over the nodes.
struct HugepagePool {
  long long size_kb = 0;
  std::optional<int> node;
  long long count = 0;
  profile::SourceMark mark;  ///< the list item
};

/// A size as a profile writes it: "2M", "1G", "64K", "2048kB", "2MB" (binary units: 2M is
/// 2048 kB); nullopt for anything else (a bare number is refused: kB or pages?).
std::optional<long long> ParseHugepageSize(const std::string& text);
/// A size in kB the way the profile writes it: 2048 -> "2M", 1048576 -> "1G", 64 -> "64K".
std::string HugepageSizeText(long long size_kb);

/// The nr_hugepages file of a pool: the global one, or the node's.
std::string HugepagePoolPath(long long size_kb, std::optional<int> node);
/// "2M huge pages" or "2M huge pages on node 0": the item's name in plans and messages.
std::string HugepagePoolName(long long size_kb, std::optional<int> node);

/// The "hugepages" actuator: nr_hugepages files through the one door. Write reads the count
/// back; when the kernel found fewer pages than asked (memory too fragmented or too little
/// free), it writes the old count back and fails naming both numbers, so the executor rolls
/// the run back (exit 4) as it does for any write that does not take. A pool left half-made
/// would pass for applied while the application that needs it fails later, at its own start.
class HugepagesActuator : public Actuator {
 public:
  explicit HugepagesActuator(SysRoot& root) : root_(root) {}
  Result<std::string> Read(const std::string& key) override { return root_.ReadTrimmed(key); }
  Result<void> Write(const std::string& key, const std::string& value) override;

 private:
  SysRoot& root_;
};

}  // namespace rtagent

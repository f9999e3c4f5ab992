// What the kernel refused to change when rtagent wrote it (a managed IRQ's affinity, a per-CPU
// kernel thread's CPUs): the items apply reported "unchangeable". The executor keeps them in
// run/rtagent/refused.json, beside the journal, so that verify can tell a setting the kernel
// keeps from one that drifted or was never applied. The record lives as long as the runtime
// state it describes (/run is a tmpfs) and revert removes it with the journal.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "base/sysroot.h"
#include "tune/change.h"

namespace rtagent {

/// One write the kernel refused: the item, what was wanted, what the kernel kept, and why.
struct Refusal {
  std::string section;
  std::string what;
  std::string actuator;
  std::string key;
  std::string wanted;  ///< the value rtagent tried to write
  std::string kept;    ///< the value the kernel kept (read just before the write)
  Compare compare = Compare::kExact;
  std::string reason;  ///< the tuner's explanation of the refusal (KnownRefusal::reason)
};

/// The record of refusals under a root.
class RefusalRecord {
 public:
  /// Root-relative path of the file.
  static std::string Path();

  /// The refusals recorded under `root`; none when there is no file. An error names the file
  /// when it is unreadable, not rtagent's JSON, or (as root) writable by another user: then
  /// nothing of it is used.
  static Result<std::vector<Refusal>> Load(const SysRoot& root);

  /// Stores `refusals` durably (write, fsync, rename); removes the file when there are none.
  static Result<void> Store(SysRoot& root, const std::vector<Refusal>& refusals);

  /// The refusal that explains `c` as the plan sees it now: the same actuator and key, the same
  /// wanted value, and the value the kernel kept still in place. nullptr when none does (the
  /// setting then differs for another reason: it drifted, or was never applied). `refusals` is
  /// sorted by actuator and key (SortRefusals), as Load and the executor keep it.
  static const Refusal* Explaining(const std::vector<Refusal>& refusals, const Change& c);
};

/// Sorts refusals by actuator and key, the order Explaining searches (stable: one key's
/// entries keep their order).
void SortRefusals(std::vector<Refusal>& refusals);

}  // namespace rtagent

// What a tuner wants changed: the unit that plan prints, apply journals and writes, and
// verify expects to find already in place.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rtagent {

/// How two values of a kernel setting are compared: by meaning, not by spelling
/// (STYLE.md, "Compare by meaning").
enum class Compare {
  kExact,    ///< byte for byte after trimming whitespace
  kInteger,  ///< as integers ("010" == "10")
  kCpuList,  ///< as CPU sets written as lists ("0-3" == "0,1,2,3")
  kCpuMask,  ///< as CPU sets written as hex masks ("f" == "00000000,0000000f")
  kChoice,   ///< bracketed choice: "always [madvise] never" means "madvise"
  kWords,    ///< as whitespace-separated words, order kept ("a  b" == "a b")
};

/// The name used in JSON and journals ("cpulist", ...), and back.
std::string_view CompareName(Compare c);
bool ParseCompare(std::string_view name, Compare* out);

/// True when `current` and `wanted` mean the same setting under `how`.
bool SameValue(Compare how, std::string_view current, std::string_view wanted);

/// The form of a value read back that can be written again: a bracketed choice becomes the
/// chosen word ("always [madvise] never" -> "madvise"), everything else is kept as read.
std::string WritableValue(Compare how, std::string_view read_back);

/// True for the actuators of boot loader files ("bootfile", "bootfile+update-grub", ...):
/// `rtagent apply` writes them and `rtagent hold` never does; their journal entries outlive a
/// reboot (journal.h), since the files do.
inline bool IsBootFileActuator(std::string_view actuator) { return actuator.substr(0, 8) == "bootfile"; }

/// An errno the kernel is known to answer for this item, and why: an outcome, not a failure
/// (EIO moving a per-CPU or managed IRQ; STYLE.md).
struct KnownRefusal {
  int err = 0;
  /// A string literal: a large server's plan holds tens of thousands of these, each a pointer
  /// to the one text rather than a copy of it (a std::string does not convert to it).
  const char* reason = "";
};

/// One change a tuner asks for.
struct Change {
  std::string section;   ///< profile section: cores, irqs, ranks, partitions, power, memory
  std::string what;      ///< for a person: "IRQ 24 (eth0-rx-0) affinity"
  std::string actuator = "file";  ///< who reads and writes it: "file" is a kernel file under the root
  std::string key;       ///< the actuator's address: a root-relative path for "file"
  std::string before;    ///< value read at plan time
  std::string after;     ///< value wanted
  Compare compare = Compare::kExact;
  bool reboot = false;   ///< boot-time setting (kernel command line): never written at runtime
  std::string why;       ///< the rule or lesson chapter behind it
  std::vector<KnownRefusal> refusals;
  /// Only in revert reports: the key of the item whose write made the kernel change this
  /// value by itself (JournalEntry::side_effect_of).
  std::string side_effect_of;
};

}  // namespace rtagent

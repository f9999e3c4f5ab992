// CPU sets in every notation the kernel prints or accepts.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace rtagent {

/// A set of CPU numbers of any size (boards with more than 64 CPUs are common).
/// Parses and prints the kernel's list format (Documentation/admin-guide/kernel-parameters.rst,
/// "cpu lists") and its hex mask format (lib/bitmap-str.c), and compares as a set, so
/// "0-3" == "f" == "0,1,2,3".
class CpuSet {
 public:
  CpuSet() = default;
  /// A set holding exactly `cpus`.
  static CpuSet Of(std::initializer_list<int> cpus);
  /// CPUs first..last inclusive.
  static CpuSet Range(int first, int last);

  /// Parses a CPU list: "0-3,8", "", "0-7:2" (util-linux stride), "0-1023:2/256" (kernel
  /// used/group pattern), "N" for the last CPU and "all" (both need `nr_cpus` > 0).
  /// Whitespace and a trailing newline are ignored.
  static Result<CpuSet> ParseList(std::string_view text, int nr_cpus = 0);
  /// Parses a hex mask as in /proc/irq/N/smp_affinity: "f", "0x3", "ffffffff,ffffffff".
  static Result<CpuSet> ParseMask(std::string_view text);
  /// Parses either form: a list when it has '-' or ',' in list position or is decimal, a mask
  /// when written with 0x. Used for user input where both are allowed; prefers the list form.
  static Result<CpuSet> Parse(std::string_view text, int nr_cpus = 0);

  void Add(int cpu);
  void Remove(int cpu);
  bool Has(int cpu) const;
  bool Empty() const;
  int Count() const;
  /// Highest CPU in the set, or -1 when empty.
  int Max() const;
  std::vector<int> Cpus() const;

  CpuSet Union(const CpuSet& other) const;
  CpuSet Intersect(const CpuSet& other) const;
  CpuSet Minus(const CpuSet& other) const;
  bool IsSubsetOf(const CpuSet& other) const;
  bool Intersects(const CpuSet& other) const;

  /// Canonical list form, ranges collapsed: "0-3,8". Empty set prints "".
  std::string ToList() const;
  /// The list with its noun, for sentences: "CPU 3", "CPUs 0-3,8", "no CPU".
  std::string Named() const;
  /// Kernel mask form with 32-bit comma groups, at least `nr_cpus` bits wide:
  /// ToMask(64) of {0..63} is "ffffffff,ffffffff".
  std::string ToMask(int nr_cpus = 0) const;

  bool operator==(const CpuSet& other) const;
  bool operator!=(const CpuSet& other) const { return !(*this == other); }

 private:
  void Trim();
  std::vector<uint64_t> words_;
};

/// A hex CPU mask as the kernel writes it, followed by the CPUs it names: "f (CPUs 0-3)". "3"
/// beside a list "0-1" reads as CPU 3 otherwise. Text that is no mask comes back unchanged.
std::string MaskWithCpus(const std::string& mask);

}  // namespace rtagent

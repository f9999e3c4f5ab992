// CPU lists and masks (base/cpuset.h): what the kernel prints in cpuset.cpus, isolated,
// smp_affinity and what a profile writes. The first byte picks nr_cpus (0: "N" and "all"
// refused); the rest is the text. A parsed set must print as a list and a mask that parse
// back to the same set.
#include "base/cpuset.h"
#include "fuzz/fuzz_support.h"

using namespace rtagent;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int nr_cpus = data[0] % 2 ? data[0] * 4 : 0;
  const std::string_view text = fuzz::Text(data + 1, size - 1);
  for (auto parsed : {CpuSet::ParseList(text, nr_cpus), CpuSet::ParseMask(text), CpuSet::Parse(text, nr_cpus)}) {
    if (!parsed) continue;
    const CpuSet& set = *parsed;
    const std::string list = set.ToList();
    auto again = CpuSet::ParseList(list);
    if (!again || *again != set) fuzz::Fail("CpuSet list round trip", text, list);
    const std::string mask = set.ToMask();
    auto from_mask = CpuSet::ParseMask(mask);
    if (!from_mask || *from_mask != set) fuzz::Fail("CpuSet mask round trip", list, mask);
    (void)set.Count();
    (void)set.Union(set.Minus(CpuSet::Range(0, 3))).Intersect(set);
  }
  return 0;
}

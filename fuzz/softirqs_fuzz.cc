// /proc/softirqs (inspect/interrupt_counts.h ParseSoftirqs). Input: the file; a second file
// after the separator is a later reading, compared with the first.
#include <chrono>

#include "base/kernel_paths.h"
#include "fuzz/fuzz_support.h"
#include "inspect/interrupt_counts.h"

using namespace rtagent;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto files = fuzz::SplitFiles(fuzz::Text(data, size));
  (void)ParseSoftirqs(files[0]);
  fuzz::MemRoot before, after;
  before.files[kpath::kInterrupts] = "";
  after.files[kpath::kInterrupts] = "";
  before.files[kpath::kSoftirqs] = files[0];
  after.files[kpath::kSoftirqs] = files.size() > 1 ? files[1] : files[0];
  auto a = ReadCounters(before);
  auto b = ReadCounters(after);
  if (a && b) {
    const CpuSet cpus = CpuSet::Range(0, 7);
    (void)Moves(*a, *b, cpus, std::chrono::seconds(1));
    (void)Growth(*a, *b, cpus);
  }
  return 0;
}

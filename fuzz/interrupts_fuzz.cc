// /proc/interrupts (inspect/irqs.h ParseInterrupts, and the counters the interrupts check
// and the acceptance run compare). Input: the file; a second file after the separator is a
// later reading, compared with the first as the interrupts check does.
#include <chrono>

#include "base/kernel_paths.h"
#include "fuzz/fuzz_support.h"
#include "inspect/interrupt_counts.h"
#include "inspect/irqs.h"

using namespace rtagent;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto files = fuzz::SplitFiles(fuzz::Text(data, size));
  InterruptTable table = ParseInterrupts(files[0]);
  (void)table;
  fuzz::MemRoot before, after;
  before.files[kpath::kInterrupts] = files[0];
  after.files[kpath::kInterrupts] = files.size() > 1 ? files[1] : files[0];
  auto a = ReadCounters(before);
  auto b = ReadCounters(after);
  if (a && b) {
    const CpuSet cpus = CpuSet::Range(0, 7);
    (void)Moves(*a, *b, cpus, std::chrono::seconds(1));
    (void)Growth(*a, *b, cpus);
  }
  return 0;
}

// /proc/PID/task/TID/stat, status and sched (inspect/threads.h): the stat line (ParseTaskStat),
// the affinity of status (Cpus_allowed_list, read as a CPU list) and the deadline fields of
// sched (ParseSchedDeadline). Input: any of the three; each parser gets it.
#include "base/cpuset.h"
#include "base/kernel_text.h"
#include "fuzz/fuzz_support.h"
#include "inspect/threads.h"

using namespace rtagent;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::Text(data, size);
  (void)ParseTaskStat(text);
  if (auto list = FindKeyValue(text, "Cpus_allowed_list")) (void)CpuSet::ParseList(*list);
  if (auto mask = FindKeyValue(text, "Cpus_allowed")) (void)CpuSet::ParseMask(*mask);
  (void)ParseSchedDeadline(text);
  (void)ThreadPattern(text);
  return 0;
}

// The small readers of outside text, one input given to each: the kernel command line and its
// isolation arguments (inspect/cmdline.h), a kernel release and version (kernel_info.h),
// /dev/cpu_dma_latency (power.h), /proc/PID/smaps (service/memory_trim.h), bracketed choices
// and key: value files (base/kernel_text.h), durations (profile/duration.h), the sched
// actuator's journaled values and keys (tune/sched_attr.h) and the hold daemon's state file
// (service/hold_state.h).
#include "base/kernel_text.h"
#include "fuzz/fuzz_support.h"
#include "inspect/cmdline.h"
#include "inspect/kernel_info.h"
#include "inspect/power.h"
#include "profile/duration.h"
#include "service/hold_state.h"
#include "service/memory_trim.h"
#include "tune/sched_attr.h"

using namespace rtagent;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::Text(data, size);
  const ParsedCmdline cmdline = ParseCmdline(text);
  (void)ExtractIsolation(cmdline, 8);
  (void)ExtractIsolation(cmdline, 0);
  (void)ParseIsolcpus(text, 8);
  (void)ParseKernelRelease(text);
  (void)ParsePreemptModel(text);
  (void)ParseCpuDmaLatency(text);
  (void)service::ParseSmaps(text);
  (void)ParseBracketChoice(text);
  (void)BracketChoices(text);
  (void)FindKeyValue(text, "MemTotal");
  (void)profile::ParseDuration(text);
  if (auto s = ParseSched(text)) {
    auto back = ParseSched(FormatSched(*s));
    if (!back || FormatSched(*back) != FormatSched(*s))
      fuzz::Fail("a sched value does not read back as written", FormatSched(*s), back ? FormatSched(*back) : "error");
  }
  (void)ParseTaskKey(text);
  if (auto st = service::ParseHoldState(std::string(text))) {
    (void)service::RenderStatusText(*st, true, 0);
    (void)service::RenderPrometheus(*st, true);
    (void)service::ToJson(*st).dump();
  }
  return 0;
}

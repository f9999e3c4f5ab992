// The trace parser (trace/ftrace_text.h) and what is read from a parsed trace: the late
// wake-ups and their attribution (trace/attribution.h), the hwlat check's gaps
// (check/tracer.h) and the priority-inversion experiment's setprio events (bench/pi_trace.h).
// Input: tracefs text, `trace-cmd report` or rtla's output.
#include "bench/pi_trace.h"
#include "check/tracer.h"
#include "fuzz/fuzz_support.h"
#include "trace/attribution.h"
#include "trace/ftrace_text.h"

using namespace rtagent;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::Text(data, size);
  (void)check::ParseHwlatTrace(text);
  (void)bench::ParsePiSetprio(text);
  auto trace = ParseFtraceText(text);
  if (!trace) return 0;
  for (const LateWakeup& w : FindWakeups(*trace)) (void)Attribute(*trace, w);
  WakeupQuery query;
  query.threshold_ns = 20000;
  bool crossed = false;
  if (auto w = ChooseWakeup(*trace, query, crossed)) (void)Attribute(*trace, *w);
  query.cpus = CpuSet::Of({0, 1});
  (void)PickWakeup(*trace, query);
  return 0;
}

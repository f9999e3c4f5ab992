// Test support for the tracer recordings (trace/tracer_session_test.cc, cli's acceptance why):
// a fixture tracefs in a temporary tree behind a FaultRoot, with the files a timerlat
// recording leases, and a check that every one reads as before. Header-only.
#pragma once

#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "base/kernel_text.h"
#include "trace/tracer_session.h"

namespace rtagent::testing {

/// The tracefs files a recording leases, as a fixture has them before.
inline const std::map<std::string, std::string> kBefore = {
    {kpath::kCurrentTracer, "nop\n"},         {kpath::kTracingOn, "1\n"},
    {kpath::kTracingCpumask, "f\n"},          {kpath::kOsnoiseCpus, "0-3\n"},
    {kpath::kTimerlatPeriodUs, "1000\n"},     {kpath::kOsnoiseStopUs, "0\n"},
    {kpath::kOsnoiseStopTotalUs, "0\n"},    {kpath::kTraceClock, "local [global] counter uptime perf mono mono_raw boot\n"}};

/// A fixture tracefs: `tracers` offered, the osnoise events present or not.
struct Tracefs {
  TempTree tree;
  FaultRoot root{tree.dir()};
  explicit Tracefs(const std::string& tracers = "timerlat osnoise hwlat nop", bool with_osnoise_events = true) {
    Put(kpath::kAvailableTracers, tracers + "\n");
    for (const auto& [f, v] : kBefore) Put(f, v);
    for (const auto& [system, event] : ExplainEvents()) {
      if (system == "osnoise" && !with_osnoise_events) continue;
      Put(kpath::TraceEventEnable(system, event), "0\n");
    }
    Put(kpath::kTrace, "# tracer: timerlat\n  timerlat/2-88 [002] ..... 1.000010000: #1 context thread timer_latency 10000 ns\n");
  }
  void Put(const std::string& f, const std::string& v) const { tree.Put(kpath::TracefsFile(kpath::kTracefs, f), v); }
  std::string Get(const std::string& f) const { return tree.Get(kpath::TracefsFile(kpath::kTracefs, f)); }
  void RequireAsBefore() const {
    for (const auto& [f, v] : kBefore) {
      INFO(f);
      if (auto choice = ParseBracketChoice(v)) {  // a choice file takes back only its selected word
        CHECK(ParseBracketChoice(Get(f)).value_or(Trim(Get(f))) == *choice);
      } else {
        CHECK((Get(f) == v || Get(f) == v.substr(0, v.size() - 1)));
      }
    }
    for (const auto& [system, event] : ExplainEvents()) {
      const std::string f = kpath::TraceEventEnable(system, event);
      if (!Get(f).empty()) CHECK((Get(f) == "0\n" || Get(f) == "0"));
    }
  }
};


}  // namespace rtagent::testing

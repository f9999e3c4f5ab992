// Test support for src/report/*_test.cc: a fixed, fully known verdict and expected-file
// comparison. Header-only: not part of the library.
#pragma once

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "report/judge.h"
#include "report/verdict.h"

namespace rtagent::testing {

/// Records `count` wake-ups `ns` late into `h`, one per millisecond of run time.
inline void Fill(Histogram& h, int64_t ns, uint64_t count) {
  for (uint64_t i = 0; i < count; ++i) h.Record(ns, static_cast<int64_t>(h.samples()) * 1000000);
}

/// CPU 2 of the example: the report lab's shape, scaled to 1000 wake-ups, with one overflow
/// of 1203 µs past a 100 µs histogram; p50 3, p99 6, p99.9 40, p99.99 beyond the limit.
inline Histogram ExampleCpu2() {
  Histogram h(100, 4);
  Fill(h, 2100, 400);
  Fill(h, 3400, 200);
  Fill(h, 4000, 300);
  Fill(h, 5500, 85);
  Fill(h, 6200, 10);
  Fill(h, 40000, 4);
  h.Record(1203000, 999000000);
  h.AddSkippedPeriods(1);
  return h;
}

/// CPU 3 of the example: quiet, worst 7.8 µs.
inline Histogram ExampleCpu3() {
  Histogram h(100, 4);
  Fill(h, 1500, 500);
  Fill(h, 2000, 450);
  Fill(h, 3000, 45);
  Fill(h, 7800, 5);
  return h;
}

/// The example's acceptance limits.
inline AcceptanceLimits ExampleLimits() {
  AcceptanceLimits l;
  l.max_us = 100;
  l.percentiles = {{0.99, 10}, {0.999, 50}};
  l.zero_overflows = true;
  l.min_samples = 1000;
  l.min_duration_ns = 1000000000;
  return l;
}

/// A complete verdict on a virtual machine, judged: CPU 2 fails max and overflows, a
/// pre-flight check and a load's placement fail, CPU 3 passes everything.
inline Verdict ExampleVerdict() {
  Verdict v;
  v.tool_version = "0.1.0";
  v.started_at = "2025-01-02T03:04:05Z";
  v.profile_name = "ci-vm";
  v.profile_digest = "sha256:0123abcd";
  v.host.hostname = "ci-runner-7";
  v.host.kernel_release = "6.12.9-rt-amd64";
  v.host.kernel_version = "#1 SMP PREEMPT_RT Debian 6.12.9-1";
  v.host.preempt_rt = true;
  v.host.clocksource = "kvm-clock";
  v.host.virtual_machine = true;
  v.host.hypervisor = "KVM";
  v.host.clock_resolution_ns = 1;
  v.host.clock_read_cost_ns = 31;
  v.config.cpus = CpuSet::Of({2, 3});
  v.config.interval_us = 1000;
  v.config.priority = 80;
  v.config.policy = "SCHED_FIFO";
  v.config.duration_asked_ns = 1000000000;
  v.config.duration_actual_ns = 1000000000;
  v.config.histogram_limit_us = 100;
  v.config.memory_locked = true;
  v.config.pm_qos = {PmQosHolder::kSampler, 0};
  v.cpus.push_back(MakeCpuResult(2, ExampleCpu2()));
  v.cpus.push_back(MakeCpuResult(3, ExampleCpu3()));
  v.loads.push_back({"hackbench", CpuSet::Of({0, 1}), CpuSet::Of({0, 1}), "/var/log/rtagent/hackbench.log", std::nullopt, 15});
  v.loads.push_back({"disk", CpuSet::Of({0, 1}), CpuSet::Of({0, 1, 2}), "/var/log/rtagent/disk.log", 0, std::nullopt});
  v.interrupts = {{"LOC", 2000}, {"RES", 3}, {"24: virtio0-input.0", 12}};
  v.preflight = {{"kernel", true, "PREEMPT_RT 6.12.9", "", ""},
                 {"interrupts", false, "virtio0-input.0 fired 12 times on CPU 2", "", ""}};
  Judge(v, ExampleLimits());
  return v;
}

/// Compares `actual` with tests/expected/`name`. With RTAGENT_UPDATE_EXPECTED=1 in the
/// environment it writes the file instead (then review the diff before committing).
inline void CheckExpected(const std::string& name, const std::string& actual) {
  const std::string path = std::string(RTAGENT_SOURCE_DIR) + "/tests/expected/" + name;
  if (const char* update = std::getenv("RTAGENT_UPDATE_EXPECTED"); update && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
  }
  std::ifstream in(path, std::ios::binary);
  INFO("expected file " << path << " (regenerate with RTAGENT_UPDATE_EXPECTED=1)");
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  CHECK(ss.str() == actual);
}

}  // namespace rtagent::testing

// The verdict of a loaded latency acceptance test: everything a reader, CI or `rtagent diff`
// needs, as plain data. Renderers (json.h, junit.h, markdown.h, svg.h, cyclictest_text.h)
// are pure functions of it; judge.h fills its criteria, warnings and result.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/cpuset.h"
#include "latency/histogram.h"
#include "latency/run_facts.h"
#include "latency/sampler.h"
#include "latency/statistics.h"
#include "trace/attribution.h"

namespace rtagent {

/// Who held the PM QoS note (/dev/cpu_dma_latency) that was in force during the run.
enum class PmQosHolder {
  kNone,     ///< nobody: the power manager's own limit (2000 s, no limit) applied
  kSampler,  ///< the sampler's own note: the test measured its own state, not the tuned one
  kProfile,  ///< the tuned state's note (rtagent hold, from the profile's power section)
  kUnknown,  ///< another program held one, or it could not be told
};

/// "none", "sampler", "profile", "unknown".
std::string PmQosHolderName(PmQosHolder h);
/// The holder named by PmQosHolderName, or nullopt.
std::optional<PmQosHolder> ParsePmQosHolder(const std::string& name);

/// The PM QoS note in force during the run, and whose it was.
struct PmQosNote {
  PmQosHolder holder = PmQosHolder::kNone;
  std::optional<int32_t> value_us;  ///< the note's value; nullopt when none or unknown
};

/// How the run was set up, asked and actual.
struct RunConfig {
  CpuSet cpus;                   ///< measured CPUs
  int64_t interval_us = 0;
  int priority = 0;              ///< asked SCHED_FIFO priority
  std::string policy;            ///< the class the loops actually ran in ("SCHED_FIFO")
  int64_t duration_asked_ns = 0;
  int64_t duration_actual_ns = 0;
  uint32_t histogram_limit_us = 0;
  bool memory_locked = false;
  PmQosNote pm_qos;
  /// /dev/cpu_dma_latency as read before the run: the strictest note of every holder
  /// (2000000000 when nobody holds one); nullopt when it could not be read.
  std::optional<int32_t> pm_qos_device_us;
  /// The note `rtagent hold` said it held (run/rtagent/state.json); nullopt when none.
  std::optional<int32_t> pm_qos_hold_us;
  std::vector<std::string> notes;  ///< the sampler's notes (fallbacks, fixture root)
};

/// One measured CPU.
struct CpuResult {
  int cpu = 0;
  Histogram histogram;
  LatencyStats stats;  ///< ComputeStats(histogram, the limited quantiles)
};

/// A load that pushed against the run, and where it really ran.
struct LoadResult {
  std::string name;
  CpuSet cpus_asked;
  CpuSet cpus_ran;        ///< every CPU it was seen running on
  std::string log_path;
  std::optional<int> exit_code;  ///< nullopt when it did not exit by itself
  std::optional<int> signal;     ///< the signal that ended it (SIGTERM when we stopped it)

  /// It never ran outside the CPUs it was given.
  bool PlacementHeld() const { return cpus_ran.IsSubsetOf(cpus_asked); }
};

/// A pre-flight check run before the test (verify's checks), passed or not.
struct PreflightCheck {
  std::string name;
  bool passed = false;
  std::string reason;
  /// The worst of its answers: "FAIL", "WARN", "PASS", "SKIP" (all skipped); "" when not
  /// known (a verdict written before the field existed).
  std::string status;
  /// What to do about its FAIL and WARN answers ("id: hint; ..."); "" when none gave one.
  std::string hint;
};

/// One acceptance criterion, on one CPU (cpu set) or the whole run.
struct Criterion {
  std::string name;           ///< "max", "p99.9", "overflows", "samples", "duration", "preflight"
  std::optional<int> cpu;     ///< the CPU it was measured on; nullopt for the whole run
  std::string unit;           ///< "µs", "s", or "" for counts
  double limit = 0;           ///< the threshold (an upper bound for latencies and overflows, a lower for samples and duration)
  std::optional<double> measured;  ///< nullopt when it could not be known (a percentile beyond the limit)
  std::string measured_text;  ///< the measured value as a reader should see it ("beyond 1000 µs")
  bool pass = false;
  std::string evidence;       ///< why it passed or failed, with the numbers

  /// "CPU 2" or "run".
  std::string Role() const;
  /// The limit as a reader sees it: "≤ 100 µs", "≥ 1000", "passed" (pre-flight), "held" (placement).
  std::string LimitText() const;
};

/// A reason the figures cannot be taken at face value.
struct TrustWarning {
  std::string code;  ///< "virtual_machine", "coarse_clock", "too_short", "own_pm_qos", "sched_other", "memory_not_locked", "interrupted"
  std::string text;  ///< the sentence shown to readers

  bool operator==(const TrustWarning&) const = default;
};

/// Where a verdict read from another tool's output came from, and which facts that output does
/// not state. Renderers show those as unknown (null in JSON, "unknown" in text, left out of
/// JUnit properties), never as a zero, a "no" or a default.
struct ImportSource {
  std::string tool;  ///< "cyclictest -h", "cyclictest --json", "rtla timerlat hist"
  std::string path;  ///< the file read
  /// The facts it does not state, by Verdict::Knows's names.
  std::vector<std::string> unknown;
};

/// The verdict's "why": the kernel's own account of its worst (or first too late) wake-up, a
/// coarser one from counters, or why there is none. Never part of the judgement.
struct WhySection {
  /// "explained" (the tracers' attribution), "coarse" (counter deltas), "skip" (neither).
  std::string status;
  std::string reason;  ///< skip and coarse: why the tracers could not be used
  std::optional<int64_t> threshold_us;  ///< the limit the recording stopped at
  bool crossed = false;                 ///< the explained wake-up was past the threshold
  std::optional<Attribution> attribution;  ///< "explained"
  int coarse_cpu = -1;                  ///< "coarse": the CPU of the worst wake-up
  std::optional<int64_t> coarse_worst_ns;  ///< "coarse": its latency
  std::string coarse_window;            ///< "coarse": the time the counts cover, in words
  std::vector<CoarseCount> coarse;      ///< "coarse": largest first (latency/run_facts.h)
  std::string trace_path;               ///< where the raw trace was saved ("" when it was not)
  std::string trace_format;             ///< "ftrace text"
};

/// One value rtagent had changed and not put back when the run started (an entry of its journal).
struct TuningChange {
  std::string section;  ///< the profile section that asked for it: "irqs", "sysctls"
  std::string what;     ///< the item in words: "IRQ 24 (virtio0-input.0) affinity"
  std::string before;   ///< the value before rtagent first wrote it
  std::string after;    ///< the value rtagent wrote

  bool operator==(const TuningChange&) const = default;
};

/// The tuning in force when the run started, read from rtagent's journal: what the figures
/// were measured under, as opposed to the profile (which says what was asked for).
struct TuningInForce {
  /// The most changes a verdict lists; the rest are counted in `total` only (a large board's
  /// apply makes thousands, and the journal on the board keeps them all).
  static constexpr size_t kListed = 200;
  std::string source;                ///< the journal files read (root-relative), "+"-joined
  size_t total = 0;                  ///< changes in force
  std::vector<TuningChange> changes;  ///< the first kListed of them, in the order they were made
  std::string error;                 ///< the journal could not be read: why ("" when it was)

  bool operator==(const TuningInForce&) const = default;
};

/// The whole verdict.
struct Verdict {
  std::string tool_version;
  std::string started_at;      ///< ISO 8601 UTC
  std::string profile_name;
  std::string profile_digest;  ///< "sha256:" of the profile's canonical document (ProfileDigest)
  HostFacts host;
  RunConfig config;
  std::vector<CpuResult> cpus;  ///< in CPU order
  std::vector<LoadResult> loads;
  std::vector<InterruptDelta> interrupts;
  std::vector<PreflightCheck> preflight;
  std::vector<Criterion> criteria;
  bool pass = false;
  bool interrupted = false;
  std::vector<TrustWarning> warnings;
  std::optional<WhySection> why;  ///< acceptance.explain; nullopt when off
  /// What rtagent had changed when the run started; nullopt when not recorded (an import, a
  /// verdict from an older rtagent).
  std::optional<TuningInForce> tuning;

  std::optional<ImportSource> imported;  ///< set when read from another tool's output

  /// The CPU's result, or nullptr.
  const CpuResult* FindCpu(int cpu) const;
  /// False when the verdict was imported from a source that does not state `fact`: "interval",
  /// "duration", "scheduling" (policy and priority), "memory_locked", "pm_qos", "host",
  /// "kernel" (release, version, PREEMPT_RT), "clock", "virtual_machine", "cpus" (which CPU a
  /// thread ran on), "skipped_periods", "overflows" (how many wake-ups passed the histogram).
  bool Knows(const std::string& fact) const;
};

/// A CpuResult with its statistics (the reported quantiles plus `extra_quantiles`).
CpuResult MakeCpuResult(int cpu, Histogram histogram, const std::vector<double>& extra_quantiles = {});

/// Copies a sampler run into the verdict: config (asked and actual), per-CPU histograms and
/// statistics, the interrupted flag, and the sampler's own PM QoS note when it held one
/// (otherwise `pm_qos` is left as the caller set it: the tuned state's note or none).
void AddSamplerResult(Verdict& v, SamplerResult run, const std::vector<double>& extra_quantiles = {});

}  // namespace rtagent

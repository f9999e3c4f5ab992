// Results of other latency tools read as verdicts, so `report` renders them and `diff` gates
// rtagent against what a team already runs: cyclictest's -h report and --json file, rtla
// timerlat hist, and rteval's summary.xml. A fact the file does not state stays unknown (Verdict::imported lists it);
// it is never filled in with a zero, a "no" or a default.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "latency/histogram.h"
#include "report/verdict.h"

namespace rtagent {

/// The largest latency an imported file may state: 10^12 µs (11.6 days) is no wake-up
/// latency, and past it the value in ns would not fit the verdict's integers (fuzz/import_fuzz.cc
/// found the overflow). Every reader of another tool's file refuses more.
inline constexpr int64_t kMaxImportedLatencyUs = 1000000000000LL;

/// The most wake-ups one thread or CPU of an imported file may count, 10^15 (a million years at
/// 30 kHz): more is no file a tool wrote, and it keeps each sum in ns within 64 bits.
inline constexpr uint64_t kMaxImportedSamples = 1000000000000000ULL;

/// The sum of `samples` wake-ups of mean `mean` (in units of `unit_ns`), in ns: what a verdict
/// keeps of a file that states only the mean. nullopt when it passes 9e18 ns, which no real
/// run's total does (a count or a mean too large to be one).
std::optional<int64_t> ImportedSumNs(uint64_t mean, int64_t unit_ns, uint64_t samples);

/// The most histogram bins one imported file may make, over all its threads or CPUs: 2^25
/// (256 MiB of counts). A real run's file is far below it (rtla's default is 256 buckets a CPU;
/// 256 CPUs at cyclictest -h 100000 make 25.6 million); a few lines of rtla output naming a
/// bucket near 10 s for 40 CPUs made 400 million bins, 3.2 GB and 21 s of `report`.
inline constexpr uint64_t kMaxImportedBins = uint64_t{1} << 25;

/// Adds `bins` to `used`, the bins an import has made so far; an error naming `what` (the
/// thread, CPU or column) when the sum would pass kMaxImportedBins, before anything is made.
Result<void> TakeImportBins(uint64_t& used, uint64_t bins, const std::string& what);

/// What one tool's file says about a run: one histogram per thread and each stated fact.
struct ImportedRun {
  std::string tool;                 ///< "cyclictest -h", "cyclictest --json", "rtla timerlat hist", "rteval 3.9"
  std::vector<Histogram> threads;   ///< one per measuring thread, in the file's order
  std::vector<int> cpus;            ///< the CPU of each thread; empty when the file does not say
  std::optional<int64_t> interval_us;
  std::optional<int> priority;
  std::optional<std::string> policy;      ///< "SCHED_FIFO", "SCHED_RR", "SCHED_OTHER"
  std::optional<int64_t> duration_ns;     ///< how long it measured
  std::optional<bool> memory_locked;
  std::optional<int32_t> pm_qos_us;       ///< the tool's own /dev/cpu_dma_latency note
  bool pm_qos_stated = false;             ///< the file says whether it held one
  std::optional<std::string> hostname, kernel_release, kernel_version;
  /// The file's own word on PREEMPT_RT (rteval's is_RT); nullopt: judged from kernel_version.
  std::optional<bool> preempt_rt;
  /// False when the file does not count the wake-ups past its histogram (rteval): the
  /// overflows are then unknown, not 0.
  bool overflows_counted = true;
  std::vector<std::string> notes;         ///< what was read and how (the thread columns used)
};

/// The verdict of an imported run: thread N shown as CPU N when the file does not name the
/// CPUs, every unstated fact listed in `imported.unknown`, judged only on its overflows
/// (an import carries no profile limits).
Verdict VerdictFromImport(ImportedRun run, const std::string& path);

/// Which other tool's file `text` looks like, by its first lines: "cyclictest" (a --json file
/// naming rt_test_version or its threads, or a -h report's "# Histogram"), "rtla" ("# RTLA
/// timerlat histogram") or "rteval" (an XML document whose root is <rteval>); empty when none.
/// Only a guess for a hint: ImportFile still reads the file in full.
std::string LooksLikeImport(std::string_view text);

/// The import formats `ImportFile` reads: "cyclictest" (its -h report or its --json file, told
/// apart by their content), "rtla" (rtla timerlat hist) and "rteval" (its summary.xml).
Result<Verdict> ImportFile(const std::string& format, const std::string& path, std::string_view text);

}  // namespace rtagent

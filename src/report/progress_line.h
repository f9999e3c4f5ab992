// What a running acceptance test shows while it measures: on a terminal one live line,
// rewritten in place; in CI or through a pipe (a log) a plain line at a fixed interval, so a
// long run never looks hung to a job's idle timeout. Nothing else is written meanwhile.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "latency/sampler.h"

namespace rtagent {

/// The default interval of plain lines when stdout is not a terminal: one minute.
inline constexpr int64_t kDefaultProgressEveryNs = 60'000'000'000;

/// One plain progress line: "accept progress: 1 min 0 s of 2 h 0 min 0 s; CPU 2: 60,000
/// samples, worst 12.3 µs, 0 overflows; CPU 3: ..." (no worst yet: "worst –").
std::string PlainProgressLine(const std::string& command, int64_t elapsed_ns, int64_t duration_ns,
                              const std::vector<CpuProgress>& cpus);

/// The progress output of one run, written to `out`.
class ProgressLine {
 public:
  /// `terminal`: stdout is a terminal and not CI's (CI=true): the live line. Otherwise a plain
  /// line every `every_ns` (nullopt: kDefaultProgressEveryNs; 0: none).
  ProgressLine(std::ostream& out, std::string command, int64_t duration_ns, bool terminal,
               std::optional<int64_t> every_ns);
  /// Clears the live line, however the run ended.
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  /// Called a few times a second with the run's state `elapsed_ns` into it: rewrites the live
  /// line, or writes a plain line when another interval has passed since the last.
  void Show(const std::vector<CpuProgress>& cpus, int64_t elapsed_ns);

  /// True when stdout is a terminal and the CI variable is not "true".
  static bool StdoutIsLiveTerminal();

 private:
  std::ostream& out_;
  std::string command_;
  int64_t duration_ns_;
  bool terminal_;
  int64_t every_ns_;
  int64_t next_plain_ns_;
  size_t last_len_ = 0;
};

}  // namespace rtagent

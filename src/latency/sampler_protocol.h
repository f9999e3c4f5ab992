// What the measuring process (rtagent-sampler) tells the agent, line by line on a pipe.
//
// The measuring loop runs in a small process of its own (src/sampler_main.cc) so that
// mlockall() locks only that process's pages (its code, libc, the stacks and histograms)
// instead of every page of rtagent and its libraries. The agent starts it with the config
// on the command line (SamplerArgs) and reads this stream:
//
//   hello 2                          protocol version, first line
//   ready                            every thread set up, the loops run
//   progress CPU:SAMPLES:WORST_NS:OVERFLOWS …  a few times a second (WORST_NS -1 before the first)
//   result …, note …, cpu …, bins …, first …, worst …   what was measured (EncodeResult)
//   end                              last line of a run
//   error ERRNO MESSAGE              instead of ready or result, then the process exits 1
//
// Text, one record per line, so a stray or truncated line is easy to name in an error.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "latency/sampler.h"

namespace rtagent {

/// The version the agent and the measuring process must agree on (the first line).
inline constexpr int kSamplerProtocolVersion = 2;

/// "hello 1\n".
std::string EncodeHello();
/// "ready\n".
std::string EncodeReady();
/// One progress line for every CPU.
std::string EncodeProgress(const std::vector<CpuProgress>& progress);
/// Every line of a finished run, ending with "end\n".
std::string EncodeResult(const SamplerResult& result);
/// "error ERRNO MESSAGE\n" (newlines in the message become spaces).
std::string EncodeError(const Error& error);

/// The command line that runs `binary` as the measuring process for `config`, writing its
/// stream to `out_fd`, measuring under the root directory `root_dir` (only the PM QoS note
/// looks at it) and exiting when `parent_pid` is gone.
std::vector<std::string> SamplerArgs(const std::string& binary, const SamplerConfig& config,
                                     const std::string& root_dir, int out_fd, int parent_pid);

/// What the measuring process was asked to do, read back from its command line.
struct SamplerInvocation {
  SamplerConfig config;
  std::string root_dir = "/";
  int out_fd = -1;
  int parent_pid = 0;
};
/// Reads SamplerArgs' command line (argv[0] excluded); names the argument it cannot read.
Result<SamplerInvocation> ParseSamplerArgs(const std::vector<std::string>& args);

/// Reads the stream line by line (the agent's side).
class SamplerStreamReader {
 public:
  /// Takes one line without its newline. An error names the line; after an error the
  /// stream is not trusted any more (every later Feed fails too).
  Result<void> Feed(std::string_view line);

  bool hello() const { return hello_; }
  bool ready() const { return ready_; }
  /// True after "end" (a whole result) or "error".
  bool finished() const { return ended_ || failed_.has_value(); }
  /// The "error" line the process sent, if any.
  const std::optional<Error>& failure() const { return failed_; }
  const std::vector<CpuProgress>& progress() const { return progress_; }
  /// The result, once finished() without failure(); moves it out.
  Result<SamplerResult> TakeResult();

 private:
  Result<void> FeedResultLine(std::string_view key, std::string_view rest);
  Result<void> FinishCpu();

  bool hello_ = false;
  bool ready_ = false;
  bool ended_ = false;
  bool broken_ = false;
  bool in_result_ = false;
  std::optional<Error> failed_;
  std::vector<CpuProgress> progress_;
  SamplerResult result_;
  // The CPU whose lines are being read: its header, then bins/first/worst.
  std::optional<CpuRun> cpu_;
  HistogramParts parts_;
  size_t kept_ = Histogram::kDefaultKeptEvents;
};

}  // namespace rtagent

#include "report/progress_line.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "report/format.h"

namespace rtagent {

std::string PlainProgressLine(const std::string& command, int64_t elapsed_ns, int64_t duration_ns,
                              const std::vector<CpuProgress>& cpus) {
  std::string line = command + " progress: " + FormatDuration(std::min(elapsed_ns, duration_ns)) + " of " +
                     FormatDuration(duration_ns);
  for (const CpuProgress& p : cpus) {
    line += "; CPU " + std::to_string(p.cpu) + ": " + CountOf(p.samples, "sample", "samples") + ", worst " +
            (p.worst_ns ? FormatNsAsUs(*p.worst_ns) + " µs" : std::string("–")) + ", " +
            CountOf(p.overflows, "overflow", "overflows");
  }
  return line;
}

ProgressLine::ProgressLine(std::ostream& out, std::string command, int64_t duration_ns, bool terminal,
                           std::optional<int64_t> every_ns)
    : out_(out),
      command_(std::move(command)),
      duration_ns_(duration_ns),
      terminal_(terminal),
      every_ns_(every_ns.value_or(kDefaultProgressEveryNs)),
      next_plain_ns_(every_ns_) {}

ProgressLine::~ProgressLine() {
  if (terminal_ && last_len_ > 0) out_ << "\r" << std::string(last_len_, ' ') << "\r" << std::flush;
}

bool ProgressLine::StdoutIsLiveTerminal() {
  const char* ci = std::getenv("CI");
  return ::isatty(STDOUT_FILENO) && !(ci != nullptr && std::string(ci) == "true");
}

void ProgressLine::Show(const std::vector<CpuProgress>& cpus, int64_t elapsed_ns) {
  if (!terminal_) {
    if (every_ns_ <= 0 || elapsed_ns < next_plain_ns_) return;
    // One line per call however long the caller was away; the next falls on the interval's grid.
    next_plain_ns_ = (elapsed_ns / every_ns_ + 1) * every_ns_;
    out_ << PlainProgressLine(command_, elapsed_ns, duration_ns_, cpus) << "\n" << std::flush;
    return;
  }
  std::string line = command_ + ": " + FormatDuration(std::min(elapsed_ns, duration_ns_)) + " elapsed, " +
                     FormatDuration(std::max<int64_t>(0, duration_ns_ - elapsed_ns)) + " left; worst";
  for (const CpuProgress& p : cpus) {
    line += " CPU" + std::to_string(p.cpu) + " " + (p.worst_ns ? FormatNsAsUs(*p.worst_ns) + " µs" : std::string("-"));
  }
  out_ << "\r" << line << std::string(last_len_ > line.size() ? last_len_ - line.size() : 0, ' ') << std::flush;
  last_len_ = line.size();
}

}  // namespace rtagent

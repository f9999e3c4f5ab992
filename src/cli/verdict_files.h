// Files of the accept, report and diff commands: verdicts read back, outputs checked before a
// long run and written whole (a temporary file renamed into place), so a reader never sees
// half a report.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "report/diff.h"
#include "report/verdict.h"

namespace rtagent {

/// The whole of a file ("-" reads stdin).
Result<std::string> ReadTextFile(const std::string& path);

/// A verdict read from a JSON file written by `rtagent accept --json`.
Result<Verdict> ReadVerdictFile(const std::string& path);

/// Where an output path leads, its links followed.
struct OutputTarget {
  enum class Kind {
    kDescriptor,  ///< "-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: written to that descriptor
    kFile,        ///< a regular file, or none yet: replaced whole (a link's target, never the link)
    kStream,      ///< a device or a FIFO: written into, never replaced
  };
  Kind kind;
  int fd;            ///< kDescriptor's descriptor
  std::string path;  ///< where the links led
};

/// Follows `path`'s links to what it names. A directory, a socket, a loop of links or an empty
/// path is an error.
Result<OutputTarget> ResolveOutput(const std::string& path);

/// Refuses an output path that cannot be written: a file in a directory that does not exist or
/// is not writable, a directory, a descriptor that is not open for writing, a device this
/// process may not write. Said before a two-hour run, so it does not end with nowhere to write.
Result<void> CheckWritable(const std::string& path);

/// Writes `text` to `path` (ResolveOutput): a file whole (a temporary file beside it, then
/// rename(2), so a reader never sees half of it and a link stays a link), a descriptor or a
/// device as a shell's redirection would. "-" is stdout.
Result<void> WriteTextFile(const std::string& path, const std::string& text);

/// One requested output of a verdict.
struct VerdictOutput {
  std::string path;    ///< empty: not requested
  std::string format;  ///< "json", "junit", "md", "svg", "hist", "html"
};

/// The verdict rendered in `format` ("json", "junit", "md", "svg", "hist", "html").
std::string RenderVerdictAs(const Verdict& v, const std::string& format, const VerdictDiff* baseline = nullptr);

/// Where the raw trace of a run goes: beside the first verdict file written (the JSON one
/// first), its extension replaced by ".trace.txt" ("out/v.json" -> "out/v.trace.txt"); ""
/// when every output goes to stdout or none was asked.
std::string TracePathBeside(const std::vector<VerdictOutput>& outputs);

/// Checks every requested output path; the first problem names the option and the path.
Result<void> CheckOutputs(const std::vector<VerdictOutput>& outputs);
/// Writes every requested output; stops at the first error.
Result<void> WriteOutputs(const Verdict& v, const std::vector<VerdictOutput>& outputs, const VerdictDiff* baseline = nullptr);

}  // namespace rtagent

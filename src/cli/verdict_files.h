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

/// Refuses an output path whose directory does not exist or is not writable, or that names a
/// directory, so a two-hour run does not end with nowhere to write. "-" (stdout) is fine.
Result<void> CheckWritable(const std::string& path);

/// Writes `text` to `path` whole: a temporary file beside it, then rename(2). "-" is stdout.
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

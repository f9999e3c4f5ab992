#include "cli/verdict_files.h"

#include "base/sysroot.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "report/cyclictest_text.h"
#include "report/cases.h"
#include "report/html.h"
#include "report/import.h"
#include "report/json.h"
#include "report/junit.h"
#include "report/markdown.h"
#include "report/svg.h"

namespace rtagent {

namespace {

std::string DirOf(const std::string& path) {
  std::filesystem::path p(path);
  std::string d = p.parent_path().string();
  return d.empty() ? "." : d;
}

}  // namespace

Result<std::string> ReadTextFile(const std::string& path) {
  if (path == "-") {
    std::ostringstream s;
    s << std::cin.rdbuf();
    return s.str();
  }
  // A directory opens, and then reads as nothing: it would be "not valid JSON" further on.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return MakeError("cannot read " + path, EISDIR);
  std::ifstream in(path, std::ios::binary);
  if (!in) return MakeError("cannot read " + path, errno);
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) return MakeError("cannot read " + path, errno);
  return s.str();
}

Result<Verdict> ReadVerdictFile(const std::string& path) {
  auto text = ReadTextFile(path);
  if (!text) return text.error();
  auto v = ParseVerdictJson(*text);
  if (!v) {
    // Another tool's result given where a verdict belongs: say which reader takes it.
    if (const std::string tool = LooksLikeImport(*text); !tool.empty()) {
      return InvalidInput(path + ": not a verdict but " + tool + "'s output; rtagent report --from-" + tool + " " + path +
                          " reads it (add --json FILE for a verdict that diff and --baseline take)");
    }
    return Wrap(path + ": not a verdict: ", v.error());
  }
  return v;
}

Result<void> CheckWritable(const std::string& path) {
  if (path == "-") return Ok();
  if (path.empty()) return MakeError("an empty output path");
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return MakeError(path + " is a directory");
  const std::string dir = DirOf(path);
  if (::stat(dir.c_str(), &st) != 0) return MakeError("cannot write " + path + ": directory " + dir, errno);
  if (!S_ISDIR(st.st_mode)) return MakeError("cannot write " + path + ": " + dir + " is not a directory");
  if (::access(dir.c_str(), W_OK) != 0) return MakeError("cannot write " + path + ": directory " + dir, errno);
  return Ok();
}

Result<void> WriteTextFile(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text << std::flush;
    return Ok();
  }
  return WriteFileAtomic(path, text);
}

std::string RenderVerdictAs(const Verdict& v, const std::string& format, const VerdictDiff* baseline) {
  if (format == "json") return RenderJson(v);
  if (format == "junit") return RenderJUnit(v, baseline);
  if (format == "svg") return RenderSvg(v);
  if (format == "hist") return RenderCyclictestHistogram(v);
  if (format == "html") return RenderHtml(v);
  if (format == "cases") return RenderCases(v);
  if (baseline != nullptr) return RenderMarkdown(v) + "\n" + RenderDiffMarkdown(*baseline);
  return RenderMarkdown(v);
}

std::string TracePathBeside(const std::vector<VerdictOutput>& outputs) {
  const VerdictOutput* chosen = nullptr;
  for (const VerdictOutput& o : outputs) {
    if (o.path.empty() || o.path == "-") continue;
    if (chosen == nullptr || (o.format == "json" && chosen->format != "json")) chosen = &o;
  }
  if (chosen == nullptr) return "";
  return std::filesystem::path(chosen->path).replace_extension(".trace.txt").string();
}

Result<void> CheckOutputs(const std::vector<VerdictOutput>& outputs) {
  for (const VerdictOutput& o : outputs) {
    if (o.path.empty()) continue;
    auto ok = CheckWritable(o.path);
    if (!ok) return Wrap("--" + o.format + ": ", ok.error());
  }
  return Ok();
}

Result<void> WriteOutputs(const Verdict& v, const std::vector<VerdictOutput>& outputs, const VerdictDiff* baseline) {
  for (const VerdictOutput& o : outputs) {
    if (o.path.empty()) continue;
    auto ok = WriteTextFile(o.path, RenderVerdictAs(v, o.format, baseline));
    if (!ok) return ok.error();
  }
  return Ok();
}

}  // namespace rtagent

#include "cli/verdict_files.h"

#include "base/kernel_paths.h"
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

#include "profile/loader.h"
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
    if (profile::LooksLikeProfile(*text)) {
      return InvalidInput(path + ": not a verdict but a profile; rtagent accept " + path +
                          " --json FILE runs it and writes the verdict that report, diff and --baseline read");
    }
    return Wrap(path + ": not a verdict: ", v.error());
  }
  return v;
}

namespace {

// The descriptor of this process that a path names by itself, whatever the descriptor is open
// on: /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N, /proc/thread-self/fd/N and
// /proc/PID/fd/N of this process. -1 for any other path.
int OwnDescriptor(const std::string& path) {
  if (path == kpath::kDevStdout) return STDOUT_FILENO;
  if (path == kpath::kDevStderr) return STDERR_FILENO;
  for (const std::string& dir : kpath::OwnDescriptorDirs(::getpid())) {
    if (path.size() <= dir.size() || path.compare(0, dir.size(), dir) != 0) continue;
    const std::string n = path.substr(dir.size());
    if (n.size() > 6 || n.find_first_not_of("0123456789") != std::string::npos) return -1;
    return std::stoi(n);
  }
  return -1;
}

Result<void> WriteAll(int fd, const std::string& text, const std::string& what) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return MakeError("cannot write " + what, errno);
    done += static_cast<size_t>(n);
  }
  return Ok();
}

}  // namespace

Result<OutputTarget> ResolveOutput(const std::string& path) {
  if (path == "-") return OutputTarget{OutputTarget::Kind::kDescriptor, STDOUT_FILENO, path};
  if (path.empty()) return MakeError("an empty output path");
  std::string at = path;
  // Links are followed one at a time, so that a link to one of this process's descriptors is
  // seen as that (readlink of /proc/self/fd/1 gives "pipe:[...]", not a path) and a link to a
  // file leads to the file, which is then replaced, never the link.
  for (int hops = 0; hops < 40; ++hops) {
    if (int fd = OwnDescriptor(at); fd >= 0) return OutputTarget{OutputTarget::Kind::kDescriptor, fd, at};
    struct stat st;
    if (::lstat(at.c_str(), &st) != 0) {
      if (errno == ENOENT) return OutputTarget{OutputTarget::Kind::kFile, -1, at};  // a new file
      return MakeError("cannot write " + path + (at == path ? "" : " (a link to " + at + ")"), errno);
    }
    if (S_ISLNK(st.st_mode)) {
      std::error_code ec;
      const std::filesystem::path target = std::filesystem::read_symlink(at, ec);
      if (ec) return MakeError("cannot read the link " + at, ec.value());
      at = target.is_absolute() ? target.string() : (std::filesystem::path(at).parent_path() / target).string();
      continue;
    }
    if (S_ISDIR(st.st_mode)) return MakeError(path + " is a directory" + (at == path ? "" : " (" + at + ")"));
    if (S_ISREG(st.st_mode)) return OutputTarget{OutputTarget::Kind::kFile, -1, at};
    // open(2) refuses a socket (ENXIO): said now, not after a two-hour run.
    if (S_ISSOCK(st.st_mode)) return MakeError(path + " is a socket" + (at == path ? "" : " (" + at + ")") + ": give a file, a FIFO or a device");
    return OutputTarget{OutputTarget::Kind::kStream, -1, at};  // a device, a FIFO
  }
  return MakeError("cannot write " + path, ELOOP);
}

Result<void> CheckWritable(const std::string& path) {
  auto target = ResolveOutput(path);
  if (!target) return target.error();
  switch (target->kind) {
    case OutputTarget::Kind::kDescriptor: {
      if (path == "-") return Ok();
      const int flags = ::fcntl(target->fd, F_GETFL);
      if (flags < 0) return MakeError("cannot write " + path + ": descriptor " + std::to_string(target->fd) + " is not open", EBADF);
      if ((flags & O_ACCMODE) == O_RDONLY) {
        return MakeError("cannot write " + path + ": descriptor " + std::to_string(target->fd) + " is open for reading only", EBADF);
      }
      return Ok();
    }
    case OutputTarget::Kind::kStream:
      if (::access(target->path.c_str(), W_OK) != 0) return MakeError("cannot write " + path, errno);
      return Ok();
    case OutputTarget::Kind::kFile:
      break;
  }
  const std::string dir = DirOf(target->path);
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) return MakeError("cannot write " + path + ": directory " + dir, errno);
  if (!S_ISDIR(st.st_mode)) return MakeError("cannot write " + path + ": " + dir + " is not a directory");
  if (::access(dir.c_str(), W_OK) != 0) return MakeError("cannot write " + path + ": directory " + dir, errno);
  return Ok();
}

Result<void> WriteTextFile(const std::string& path, const std::string& text) {
  auto target = ResolveOutput(path);
  if (!target) return target.error();
  switch (target->kind) {
    case OutputTarget::Kind::kDescriptor:
      // What this process printed before goes first, in its order.
      std::cout << std::flush;
      std::cerr << std::flush;
      return WriteAll(target->fd, text, path);
    case OutputTarget::Kind::kStream: {
      // Written into, as a shell's > would: no temporary file beside a device, no rename over it.
      const int fd = ::open(target->path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
      if (fd < 0) return MakeError("cannot open " + path, errno);
      auto w = WriteAll(fd, text, path);
      ::close(fd);
      return w;
    }
    case OutputTarget::Kind::kFile:
      break;
  }
  return WriteFileAtomic(target->path, text);
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
    // Beside a file only: /dev/stdout.trace.txt would be a new file in /dev.
    auto target = ResolveOutput(o.path);
    if (!target || target->kind != OutputTarget::Kind::kFile) continue;
    if (chosen == nullptr || (o.format == "json" && chosen->format != "json")) chosen = &o;
  }
  if (chosen == nullptr) return "";
  return std::filesystem::path(chosen->path).replace_extension(".trace.txt").string();
}

Result<void> CheckOutputs(const std::vector<VerdictOutput>& outputs) {
  std::vector<std::pair<std::string, std::string>> files;  // (where it leads, the option) of each file output
  for (const VerdictOutput& o : outputs) {
    if (o.path.empty()) continue;
    auto ok = CheckWritable(o.path);
    if (!ok) return Wrap("--" + o.format + ": ", ok.error());
    // Two formats into one file: the second replaces the first whole, after the whole run.
    auto target = ResolveOutput(o.path);
    if (!target || target->kind != OutputTarget::Kind::kFile) continue;
    std::error_code ec;
    std::string where = std::filesystem::weakly_canonical(std::filesystem::absolute(target->path, ec), ec).string();
    if (where.empty()) where = target->path;
    for (const auto& [other, option] : files) {
      if (other == where) {
        return InvalidInput("--" + option + " and --" + o.format + " both write " + o.path +
                            ": the second would replace the first; give each its own file");
      }
    }
    files.emplace_back(where, o.format);
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

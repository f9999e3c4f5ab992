// Shared by the libFuzzer targets of fuzz/ (tools/fuzz.sh, docs/reliability.md): the input as
// text, an input split into several files, an in-memory system root, and the one way a
// property check fails (abort, which libFuzzer reports as a crash with the input saved).
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/sysroot.h"

namespace rtagent::fuzz {

inline std::string_view Text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// A target that reads several files takes them from one input, separated by this line
/// (tools/fuzz_corpus.sh joins the fixture files the same way).
inline constexpr std::string_view kFileSeparator = "\n@@@@\n";

/// The input cut at each kFileSeparator; always at least one part.
inline std::vector<std::string> SplitFiles(std::string_view text) {
  std::vector<std::string> parts;
  size_t at = 0;
  while (true) {
    size_t next = text.find(kFileSeparator, at);
    if (next == std::string_view::npos) {
      parts.emplace_back(text.substr(at));
      return parts;
    }
    parts.emplace_back(text.substr(at, next - at));
    at = next + kFileSeparator.size();
  }
}

/// A property the code promises did not hold: print both sides and abort, so libFuzzer keeps
/// the input as a crash and the run fails.
[[noreturn]] inline void Fail(const char* what, std::string_view expected, std::string_view got) {
  std::fprintf(stderr, "fuzz property broken: %s\n--- expected (%zu bytes)\n%.*s\n--- got (%zu bytes)\n%.*s\n", what,
               expected.size(), static_cast<int>(expected.size()), expected.data(), got.size(),
               static_cast<int>(got.size()), got.data());
  std::abort();
}

/// A system root held in memory: files by root-relative path, directories implied by them.
/// Never live, and its Dir() is a directory that does not exist (so the file-trust rule,
/// which looks at the host path, finds nothing to refuse).
class MemRoot : public SysRoot {
 public:
  std::map<std::string, std::string> files;

  Result<std::string> Read(const std::string& path) const override {
    auto it = files.find(path);
    if (it == files.end()) return MakeError(path + ": no such file", ENOENT);
    return it->second;
  }
  Result<std::vector<std::string>> List(const std::string& path) const override {
    const std::string prefix = path.empty() || path == "." ? "" : path + "/";
    std::vector<std::string> names;
    for (auto it = files.lower_bound(prefix); it != files.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
      std::string rest = it->first.substr(prefix.size());
      std::string name = rest.substr(0, rest.find('/'));
      if (!name.empty() && (names.empty() || names.back() != name)) names.push_back(name);
    }
    if (names.empty() && !IsDir(path)) return MakeError(path + ": no such directory", ENOENT);
    return names;
  }
  Result<std::string> ReadLink(const std::string& path) const override {
    return MakeError(path + ": not a link", EINVAL);
  }
  bool Exists(const std::string& path) const override { return files.count(path) || IsDir(path); }
  bool IsDir(const std::string& path) const override {
    const std::string prefix = path + "/";
    auto it = files.lower_bound(prefix);
    return it != files.end() && it->first.compare(0, prefix.size(), prefix) == 0;
  }
  Result<void> Write(const std::string& path, const std::string& value) override {
    auto it = files.find(path);
    if (it == files.end()) return MakeError(path + ": no such file", ENOENT);
    it->second = value;
    return Ok();
  }
  Result<void> WriteDurable(const std::string& path, const std::string& contents) override {
    files[path] = contents;
    return Ok();
  }
  Result<void> Remove(const std::string& path) override {
    files.erase(path);
    return Ok();
  }
  std::string Dir() const override { return "/nonexistent/rtagent-fuzz-root"; }
  bool IsLive() const override { return false; }
};

}  // namespace rtagent::fuzz

// Helpers for the profile tests (and the checks' tests of their own profile keys): a temporary
// directory that cleans up after itself, profile files written into it and loaded, the one
// diagnostic a test looks for, and a tiny system tree with only the CPU files the loader reads.
#pragma once

#include <stdlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "base/kernel_paths.h"
#include "profile/loader.h"
#include "profile/model.h"

namespace rtagent::profile::testing {

/// A fresh directory under $TMPDIR (or /tmp), removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    std::string base = std::filesystem::temp_directory_path().string() + "/rtagent-profile-XXXXXX";
    char* made = ::mkdtemp(base.data());
    path_ = made != nullptr ? made : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }

  /// Writes `text` to `rel` under the directory (making parents) and returns its full path.
  std::string Write(const std::string& rel, const std::string& text) const {
    std::filesystem::path p = std::filesystem::path(path_) / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }

  /// Makes the directory a system root whose CPUs are `possible` and `online` (kernel lists).
  void MakeSysroot(const std::string& possible, const std::string& online) const {
    Write(kpath::kCpuPossible, possible + "\n");
    Write(kpath::kCpuOnline, online + "\n");
  }

 private:
  std::string path_;
};

/// A system with CPUs 0..n-1, all online.
inline SystemCpus Cpus(int n) {
  SystemCpus s;
  s.possible = CpuSet::Range(0, n - 1);
  s.online = s.possible;
  return s;
}

/// A profile loaded from a file, with everything said about it.
struct Loaded {
  Result<Profile> result;
  Diagnostics diags;
  std::string path;
};

/// Writes `yaml` to `name` in `dir` and loads it against the system's CPUs `sys`.
inline Loaded LoadYamlOn(const TempDir& dir, const std::string& yaml, const SystemCpus& sys,
                         const std::string& name = "p.yaml") {
  std::string path = dir.Write(name, yaml);
  Diagnostics d;
  auto r = LoadProfile(path, sys, &d);
  return Loaded{std::move(r), std::move(d), path};
}

/// Writes `yaml` to `name` in `dir` and loads it against `ncpus` CPUs, all online.
inline Loaded LoadYaml(const TempDir& dir, const std::string& yaml, int ncpus = 4, const std::string& name = "p.yaml") {
  return LoadYamlOn(dir, yaml, Cpus(ncpus), name);
}

/// The only diagnostic whose message contains `text` (fails the test when there is not exactly one).
inline const Diagnostic& Only(const Loaded& l, const std::string& text) {
  const Diagnostic* found = nullptr;
  int n = 0;
  for (const Diagnostic& d : l.diags.All()) {
    if (d.message.find(text) != std::string::npos) {
      found = &d;
      ++n;
    }
  }
  INFO(l.diags.FormatText());
  REQUIRE(n == 1);
  return *found;
}

/// Checks that `d` points at file:line:column and carries a hint.
inline void CheckAt(const Diagnostic& d, const std::string& file, int line, int column) {
  INFO(d.mark.ToString() + ": " + d.message);
  CHECK(d.mark.file == file);
  CHECK(d.mark.line == line);
  CHECK(d.mark.column == column);
  CHECK_FALSE(d.hint.empty());
}

}  // namespace rtagent::profile::testing

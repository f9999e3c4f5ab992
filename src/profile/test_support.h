// Helpers for the profile tests: a temporary directory that cleans up after itself, profile
// files written into it, and a tiny system tree with only the CPU files the loader reads.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "base/kernel_paths.h"
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

}  // namespace rtagent::profile::testing

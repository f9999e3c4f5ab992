#include "base/fault_root.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace rtagent {

namespace fs = std::filesystem;

void FaultRoot::FailWrites(const std::string& path, int err, int after_ok) {
  write_faults_[path] = WriteFault{err, after_ok};
}

void FaultRoot::FailReads(const std::string& path, int err) { read_faults_[path] = err; }

Result<std::string> FaultRoot::Read(const std::string& path) const {
  if (auto it = read_faults_.find(path); it != read_faults_.end()) {
    return MakeError("cannot read " + HostPath(path), it->second);
  }
  return FsRoot::Read(path);
}

void FaultRoot::FailNthWrite(size_t k, int err) {
  fail_at_ = k;
  fail_err_ = err;
}

void FaultRoot::CrashAtWrite(size_t k, Crash how) {
  crash_at_ = k;
  crash_how_ = how;
}

Result<void> FaultRoot::Count(Call::Kind kind, const std::string& path, const std::string& contents) {
  calls_.push_back({kind, path});
  const size_t k = calls_.size();
  if (k == crash_at_) {
    if (crash_how_ == Crash::kTornTemp && kind == Call::kDurable) {
      // What WriteFileAtomic leaves when the power goes before its fsync: the temporary file
      // (its own name), part of the contents, no rename. The target is untouched.
      const std::string host = HostPath(path);
      fs::create_directories(fs::path(host).parent_path());
      const std::string tmp = host + ".tmp." + std::to_string(::getpid());
      std::ofstream(tmp, std::ios::binary) << contents.substr(0, contents.size() / 2);
    }
    ::raise(SIGKILL);
  }
  if (k == fail_at_) {
    const char* verb = kind == Call::kRemove ? "cannot remove " : "cannot write ";
    return MakeError(verb + HostPath(path) + " (fault injected at write " + std::to_string(k) + ")", fail_err_);
  }
  return Ok();
}

Result<void> FaultRoot::WriteDurable(const std::string& path, const std::string& contents) {
  if (auto c = Count(Call::kDurable, path, contents); !c) return c;
  return FsRoot::WriteDurable(path, contents);
}

Result<void> FaultRoot::Remove(const std::string& path) {
  if (auto c = Count(Call::kRemove, path, ""); !c) return c;
  return FsRoot::Remove(path);
}

Result<void> FaultRoot::Write(const std::string& path, const std::string& value) {
  if (auto c = Count(Call::kWrite, path, value); !c) return c;
  if (auto it = write_faults_.find(path); it != write_faults_.end()) {
    if (it->second.ok_left > 0) {
      --it->second.ok_left;
    } else {
      return MakeError("cannot write \"" + value + "\" to " + HostPath(path), it->second.err);
    }
  }
  auto r = FsRoot::Write(path, value);
  if (r) writes_.emplace_back(path, value);
  return r;
}

TempTree::TempTree() {
  std::string tmpl = (fs::temp_directory_path() / "rtagent-test-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  dir_ = tmpl;
}

TempTree::TempTree(const std::string& source) : TempTree() {
  fs::copy(source, dir_, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
}

TempTree::~TempTree() {
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

void TempTree::Put(const std::string& rel, const std::string& contents) const {
  fs::path p = fs::path(dir_) / rel;
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << contents;
}

std::string TempTree::Get(const std::string& rel) const {
  std::ifstream in(fs::path(dir_) / rel, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace rtagent

#include "base/fault_root.h"

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

Result<void> FaultRoot::Write(const std::string& path, const std::string& value) {
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

#include "base/recording_root.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rtagent {

RecordingRoot::RecordingRoot(const SysRoot& source, std::string out_dir)
    : source_(source), out_dir_(std::move(out_dir)) {
  while (out_dir_.size() > 1 && out_dir_.back() == '/') out_dir_.pop_back();
}

bool RecordingRoot::Target(const std::string& path, std::string* host) const {
  std::string rel = path;
  while (!rel.empty() && rel.front() == '/') rel.erase(0, 1);
  // Paths come from rtagent's own code, but some parts come from the system (mount points
  // in /proc/mounts): never let one climb out of the capture directory.
  size_t b = 0;
  while (b <= rel.size()) {
    size_t e = rel.find('/', b);
    if (e == std::string::npos) e = rel.size();
    if (rel.compare(b, e - b, "..") == 0) {
      copy_errors_.push_back(path + ": refused, the path leaves the capture directory");
      return false;
    }
    b = e + 1;
  }
  *host = rel.empty() ? out_dir_ : out_dir_ + "/" + rel;
  return true;
}

void RecordingRoot::MakeDirs(const std::string& host_dir) const {
  std::string cur;
  size_t b = 0;
  while (b <= host_dir.size()) {
    size_t e = host_dir.find('/', b);
    if (e == std::string::npos) e = host_dir.size();
    cur = host_dir.substr(0, e);
    if (!cur.empty() && ::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST) {
      copy_errors_.push_back("cannot create " + cur + ": " + std::strerror(errno));
      return;
    }
    b = e + 1;
  }
}

Result<std::string> RecordingRoot::Read(const std::string& path) const {
  auto r = source_.Read(path);
  if (!r) return r;
  std::string host;
  if (!Target(path, &host)) return r;
  size_t slash = host.rfind('/');
  if (slash != std::string::npos && slash > 0) MakeDirs(host.substr(0, slash));
  int fd = ::open(host.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    copy_errors_.push_back("cannot create " + host + ": " + std::strerror(errno));
    return r;
  }
  const std::string& data = *r;
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      copy_errors_.push_back("cannot write " + host + ": " + std::strerror(errno));
      break;
    }
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  files_.push_back(path);
  return r;
}

Result<std::vector<std::string>> RecordingRoot::List(const std::string& path) const {
  auto r = source_.List(path);
  std::string host;
  if (r && Target(path, &host)) MakeDirs(host);
  return r;
}

Result<std::string> RecordingRoot::ReadLink(const std::string& path) const {
  auto r = source_.ReadLink(path);
  std::string host;
  if (!r || !Target(path, &host)) return r;
  std::string target = *r;
  if (!target.empty() && target.front() == '/') {
    // An absolute target names the source system; point it inside the copy instead.
    std::string rel = path;
    while (!rel.empty() && rel.front() == '/') rel.erase(0, 1);
    std::string up;
    for (char c : rel) {
      if (c == '/') up += "../";
    }
    target = (up.empty() ? "./" : up) + target.substr(1);
  }
  size_t slash = host.rfind('/');
  if (slash != std::string::npos && slash > 0) MakeDirs(host.substr(0, slash));
  ::unlink(host.c_str());
  if (::symlink(target.c_str(), host.c_str()) != 0) {
    copy_errors_.push_back("cannot create link " + host + ": " + std::strerror(errno));
  } else {
    files_.push_back(path);
  }
  return r;
}

Result<void> RecordingRoot::Write(const std::string& path, const std::string&) {
  return MakeError("refusing to write " + path + " while capturing (capture is read-only)", EROFS);
}

}  // namespace rtagent

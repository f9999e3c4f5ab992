#include "tune/file_cgroup_backend.h"

#include <algorithm>
#include <cerrno>
#include <deque>
#include <filesystem>

#include "base/cpuset.h"
#include "base/kernel_text.h"

namespace rtagent {
namespace {

// A walk of a hierarchy never visits more directories than this (a container host can have
// tens of thousands of cgroups; the twin only ever walks fixtures).
constexpr size_t kMaxCgroups = 20000;

std::string Parent(const std::string& cgroup) {
  size_t slash = cgroup.find_last_of('/');
  if (slash == std::string::npos || slash == 0) return "/";
  return cgroup.substr(0, slash);
}

std::string Child(const std::string& parent, const std::string& name) {
  return parent == "/" ? "/" + name : parent + "/" + name;
}

std::vector<std::string> Words(std::string_view text) {
  std::vector<std::string> out;
  for (auto w : SplitWs(text)) out.emplace_back(w);
  return out;
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Process or thread ids in a cgroup.procs or tasks file, one a line.
std::vector<int> Ids(std::string_view text) {
  std::vector<int> out;
  for (auto w : SplitWs(text)) {
    if (auto v = ParseInt(w)) out.push_back(static_cast<int>(*v));
  }
  return out;
}

std::string JoinIds(std::vector<int> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::string out;
  for (int id : ids) out += std::to_string(id) + "\n";
  return out;
}

// The hierarchy's line of a /proc/PID/cgroup file ("0::/path" for v2, "N:cpuset:/path" or
// "N:cpuset,cpu:/path" for v1): its index among the lines, or npos.
size_t HierarchyLine(const std::vector<std::string_view>& lines, int version) {
  for (size_t i = 0; i < lines.size(); ++i) {
    auto f = SplitChar(lines[i], ':');
    if (f.size() < 3) continue;
    if (version == 2 && f[0] == "0" && f[1].empty()) return i;
    if (version == 1) {
      for (auto c : SplitChar(f[1], ',')) {
        if (c == "cpuset") return i;
      }
    }
  }
  return std::string::npos;
}

std::string CgroupOfLine(std::string_view line) {
  // The path is everything after the second ':' (a path may itself hold ':').
  size_t a = line.find(':');
  size_t b = a == std::string_view::npos ? a : line.find(':', a + 1);
  return b == std::string_view::npos ? std::string("/") : std::string(line.substr(b + 1));
}

}  // namespace

Result<void> FileCgroupBackend::Writable() const {
  if (writes_ == nullptr) return MakeError("read-only root " + reads_.Dir() + ": cgroups are not changed", EROFS);
  if (reads_.IsLive() || writes_->IsLive()) return MakeError("the file twin never edits the running system", EPERM);
  return Ok();
}

bool FileCgroupBackend::Exists(const std::string& cgroup) const { return reads_.IsDir(h_.CgroupPath(cgroup)); }

std::vector<std::string> FileCgroupBackend::Cgroups() const {
  std::vector<std::string> out;
  std::deque<std::string> queue{"/"};
  while (!queue.empty() && out.size() < kMaxCgroups) {
    std::string cg = std::move(queue.front());
    queue.pop_front();
    out.push_back(cg);
    auto names = reads_.List(h_.CgroupPath(cg));
    if (!names) continue;
    for (const auto& n : *names) {
      if (reads_.IsDir(h_.CgroupPath(cg) + "/" + n)) queue.push_back(Child(cg, n));
    }
  }
  return out;
}

Result<void> FileCgroupBackend::Create(const std::string& cgroup) {
  if (auto w = Writable(); !w) return w;
  if (cgroup == "/" || Exists(cgroup)) return MakeError("cgroup " + cgroup + " already exists", EEXIST);
  const std::string parent = Parent(cgroup);
  if (!Exists(parent)) return MakeError("parent cgroup " + parent + " does not exist", ENOENT);
  // What the kernel puts in a new cgroup directory (cgroup-v2.rst "Core Interface Files",
  // cgroup-v1/cpusets.rst section 1.4). cpuset lists read back empty as a bare newline, the
  // controller lists as nothing at all.
  std::vector<std::pair<std::string, std::string>> files = {{kpath::kCgroupProcs, ""}};
  if (h_.version == 2) {
    std::string subtree = Get(parent, kpath::kCgroupSubtreeControl).value_or("");
    const std::string offered = std::string(TrimView(subtree));
    files.push_back({kpath::kCgroupControllers, offered.empty() ? "" : offered + "\n"});
    files.push_back({kpath::kCgroupSubtreeControl, ""});
    if (HasWord(subtree, "cpuset")) {
      files.push_back({h_.Cpuset(kpath::kCpusetCpus), "\n"});
      files.push_back({h_.Cpuset(kpath::kCpusetMems), "\n"});
      files.push_back({h_.Cpuset(kpath::kCpusetCpusEffective),
                       Get(parent, h_.Cpuset(kpath::kCpusetCpusEffective)).value_or("") + "\n"});
      files.push_back({h_.Cpuset(kpath::kCpusetMemsEffective),
                       Get(parent, h_.Cpuset(kpath::kCpusetMemsEffective)).value_or("") + "\n"});
      files.push_back({h_.Cpuset(kpath::kCpusetPartition), "member\n"});
    }
  } else {
    files.push_back({kpath::kCgroupTasks, ""});
    files.push_back({h_.Cpuset(kpath::kCpusetCpus), "\n"});
    files.push_back({h_.Cpuset(kpath::kCpusetMems), "\n"});
    files.push_back({h_.Cpuset(kpath::kCpusetEffectiveCpus), "\n"});
    files.push_back({h_.Cpuset(kpath::kCpusetEffectiveMems), "\n"});
    files.push_back({h_.Cpuset(kpath::kCpusetCpuExclusive), "0\n"});
    files.push_back({h_.Cpuset(kpath::kCpusetSchedLoadBalance), "1\n"});
  }
  const std::string dir = h_.CgroupPath(cgroup);
  for (size_t i = 0; i < files.size(); ++i) {
    // WriteDurable makes the directory with the first file.
    auto w = writes_->WriteDurable(dir + "/" + files[i].first, files[i].second);
    if (w) continue;
    // mkdir(2) of a cgroup makes the directory with all its files or nothing: a file that
    // cannot be written takes back those written before it and the directory, so a failed
    // create leaves the tree as it was (the write-fault sweep found a half-made cgroup left).
    for (size_t j = 0; j < i; ++j) (void)writes_->Remove(dir + "/" + files[j].first);
    std::error_code ec;
    std::filesystem::remove(reads_.HostPath(dir), ec);
    return w;
  }
  return Ok();
}

Result<void> FileCgroupBackend::Remove(const std::string& cgroup) {
  if (auto w = Writable(); !w) return w;
  if (cgroup == "/") return MakeError("the top of the hierarchy cannot be removed", EBUSY);
  if (!Exists(cgroup)) return MakeError("cgroup " + cgroup + " does not exist", ENOENT);
  const std::string dir = h_.CgroupPath(cgroup);
  auto names = reads_.List(dir);
  if (!names) return names.error();
  for (const auto& n : *names) {
    if (reads_.IsDir(dir + "/" + n)) return MakeError("cgroup " + cgroup + " has child cgroups", EBUSY);
  }
  // rmdir(2) of a cgroup with tasks is EBUSY: move them to the parent first.
  if (auto procs = reads_.Read(dir + "/" + kpath::kCgroupProcs)) {
    for (int pid : Ids(*procs)) {
      if (!reads_.IsDir(kpath::Pid(pid))) continue;
      if (auto m = Move(pid, Parent(cgroup)); !m) return m;
    }
  }
  for (const auto& n : *names) {
    if (auto r = writes_->Remove(dir + "/" + n); !r) return r;
  }
  std::error_code ec;
  std::filesystem::remove(reads_.HostPath(dir), ec);
  if (ec) return MakeError("cannot remove " + reads_.HostPath(dir), ec.value());
  return Ok();
}

Result<std::string> FileCgroupBackend::Get(const std::string& cgroup, const std::string& file) const {
  return reads_.ReadTrimmed(h_.CgroupPath(cgroup) + "/" + file);
}

Result<void> FileCgroupBackend::Set(const std::string& cgroup, const std::string& file, const std::string& value) {
  if (auto w = Writable(); !w) return w;
  const std::string path = h_.CgroupPath(cgroup) + "/" + file;
  if (!reads_.Exists(path)) return MakeError("no " + file + " in cgroup " + cgroup + " under " + reads_.Dir(), ENOENT);
  const std::string where = "write \"" + value + "\" to " + reads_.HostPath(path);
  std::string contents = value + "\n";
  if (file == h_.Cpuset(kpath::kCpusetPartition)) {
    if (value != "member" && value != "root" && value != "isolated") return MakeError(where, EINVAL);
  } else if (file == h_.Cpuset(kpath::kCpusetCpus) || file == h_.Cpuset(kpath::kCpusetMems)) {
    if (!CpuSet::ParseList(value)) return MakeError(where, EINVAL);
  } else if (file == h_.Cpuset(kpath::kCpusetCpuExclusive) || file == h_.Cpuset(kpath::kCpusetSchedLoadBalance)) {
    if (value != "0" && value != "1") return MakeError(where, EINVAL);
  } else if (file == kpath::kCgroupSubtreeControl) {
    // "+cpuset -io": each word enables or disables one controller offered in
    // cgroup.controllers; the file lists them in the kernel's own order.
    std::vector<std::string> now = Words(Get(cgroup, file).value_or(""));
    std::vector<std::string> offered = Words(Get(cgroup, kpath::kCgroupControllers).value_or(""));
    for (const auto& w : Words(value)) {
      std::string name = w.substr(1);
      if ((w[0] != '+' && w[0] != '-') || (!offered.empty() && !Contains(offered, name))) return MakeError(where, ENOENT);
      if (w[0] == '+' && !Contains(now, name)) now.push_back(name);
      if (w[0] == '-') now.erase(std::remove(now.begin(), now.end(), name), now.end());
    }
    std::vector<std::string> ordered;
    for (const auto& c : offered) {
      if (Contains(now, c)) ordered.push_back(c);
    }
    for (const auto& c : now) {
      if (!Contains(ordered, c)) ordered.push_back(c);
    }
    // The kernel ends the list with a newline only when it names a controller: an empty
    // subtree_control reads as nothing at all (cgroup_print_ss_mask), as captured boards show.
    contents.clear();
    for (const auto& c : ordered) contents += (contents.empty() ? "" : " ") + c;
    if (!contents.empty()) contents += "\n";
  }
  return writes_->Write(path, contents);
}

Result<std::string> FileCgroupBackend::CgroupOf(int pid) const {
  if (!reads_.IsDir(kpath::Pid(pid))) return MakeError("process " + std::to_string(pid) + " does not exist", ESRCH);
  if (auto text = reads_.Read(kpath::ProcCgroup(pid))) {
    auto lines = SplitLines(*text);
    size_t i = HierarchyLine(lines, h_.version);
    if (i != std::string::npos) return CgroupOfLine(lines[i]);
  }
  for (const auto& cg : Cgroups()) {
    auto procs = reads_.Read(h_.CgroupPath(cg) + "/" + kpath::kCgroupProcs);
    if (!procs && h_.version == 1) procs = reads_.Read(h_.CgroupPath(cg) + "/" + kpath::kCgroupTasks);
    if (!procs) continue;
    auto ids = Ids(*procs);
    if (std::find(ids.begin(), ids.end(), pid) != ids.end()) return cg;
  }
  return std::string("/");  // a fixture whose top lists no processes: everyone not listed is there
}

Result<void> FileCgroupBackend::Move(int pid, const std::string& cgroup) {
  if (auto w = Writable(); !w) return w;
  if (!reads_.IsDir(kpath::Pid(pid))) return MakeError("process " + std::to_string(pid) + " does not exist", ESRCH);
  if (!Exists(cgroup)) return MakeError("cgroup " + cgroup + " does not exist", ENOENT);
  if (h_.version == 1 && cgroup != "/") {
    // cgroup-v1/cpusets.rst: a task cannot be attached to a cpuset without CPUs or nodes.
    auto cpus = Get(cgroup, h_.Cpuset(kpath::kCpusetCpus));
    auto mems = Get(cgroup, h_.Cpuset(kpath::kCpusetMems));
    if (!cpus || !mems || cpus->empty() || mems->empty()) {
      return MakeError("attach process " + std::to_string(pid) + " to cpuset " + cgroup + " (no CPUs or memory nodes)",
                       ENOSPC);
    }
  }
  std::vector<int> tids;
  if (auto names = reads_.List(kpath::TaskDir(pid))) {
    for (const auto& n : *names) {
      if (auto t = ParseInt(n)) tids.push_back(static_cast<int>(*t));
    }
  }
  if (tids.empty()) tids.push_back(pid);
  for (const auto& cg : Cgroups()) {
    std::vector<std::pair<std::string, std::vector<int>>> lists = {{kpath::kCgroupProcs, {pid}}};
    if (h_.version == 1) lists.push_back({kpath::kCgroupTasks, tids});
    for (const auto& [file, moving] : lists) {
      const std::string path = h_.CgroupPath(cg) + "/" + file;
      auto text = reads_.Read(path);
      if (!text) continue;
      std::vector<int> ids = Ids(*text);
      std::vector<int> kept;
      for (int id : ids) {
        if (std::find(moving.begin(), moving.end(), id) == moving.end()) kept.push_back(id);
      }
      // A fixture's top lists only some processes (the kernel lists all it holds): everyone
      // not listed below it is at the top, so moving to the top only takes ids out.
      if (cg == cgroup && cg != "/") kept.insert(kept.end(), moving.begin(), moving.end());
      std::string next = JoinIds(kept);
      if (next == JoinIds(ids)) continue;
      if (auto w = writes_->Write(path, next); !w) return w;
    }
  }
  if (auto text = reads_.Read(kpath::ProcCgroup(pid))) {
    auto lines = SplitLines(*text);
    size_t i = HierarchyLine(lines, h_.version);
    if (i != std::string::npos) {
      std::string out;
      for (size_t j = 0; j < lines.size(); ++j) {
        std::string line(lines[j]);
        if (j == i) line = line.substr(0, line.size() - CgroupOfLine(line).size()) + cgroup;
        out += line + "\n";
      }
      if (auto w = writes_->Write(kpath::ProcCgroup(pid), out); !w) return w;
    }
  }
  return Ok();
}

}  // namespace rtagent

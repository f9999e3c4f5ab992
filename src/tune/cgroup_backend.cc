#include "tune/cgroup_backend.h"

#include <libcgroup.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <mutex>
#include <set>

#include "base/kernel_text.h"
#include "inspect/cgroups.h"
#include "inspect/threads.h"
#include "tune/sched_actuator.h"

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

// ------------------------------------------------------------------ the hierarchy

Result<CpusetHierarchy> FindCpusetHierarchy(const SysRoot& root) {
  auto text = root.Read(kpath::kMounts);
  if (!text) return MakeError("cannot read the mounts to find the cpuset hierarchy: " + text.error().message, text.error().err);
  auto mounts = ParseMounts(*text);
  if (auto v2 = CgroupV2Mount(mounts)) {
    auto ctrl = root.Read(kpath::FromAbsolute(*v2) + "/" + kpath::kCgroupControllers);
    if (ctrl && Contains(Words(*ctrl), "cpuset")) return CpusetHierarchy{2, *v2, kpath::kCpusetPrefix};
  }
  for (const auto& m : mounts) {
    if (m.fstype == "cgroup" && m.HasOption("cpuset")) {
      return CpusetHierarchy{1, m.target, m.HasOption("noprefix") ? std::string() : kpath::kCpusetPrefix};
    }
  }
  return MakeError("no cpuset cgroup hierarchy under " + root.Dir() +
                       ": the cgroup v2 hierarchy does not offer the cpuset controller and no v1 hierarchy has it "
                       "(CONFIG_CPUSETS)",
                   ENOENT);
}

// ------------------------------------------------------------------ the file twin

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
  // cgroup-v1/cpusets.rst section 1.4). Lists read back empty as a bare newline.
  std::vector<std::pair<std::string, std::string>> files = {{kpath::kCgroupProcs, ""}};
  if (h_.version == 2) {
    std::string subtree = Get(parent, kpath::kCgroupSubtreeControl).value_or("");
    files.push_back({kpath::kCgroupControllers, subtree + "\n"});
    files.push_back({kpath::kCgroupSubtreeControl, "\n"});
    if (Contains(Words(subtree), "cpuset")) {
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
  for (const auto& [name, contents] : files) {
    // WriteDurable makes the directory with the first file.
    if (auto w = writes_->WriteDurable(dir + "/" + name, contents); !w) return w;
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
  std::filesystem::remove(reads_.Dir() + "/" + dir, ec);
  if (ec) return MakeError("cannot remove " + reads_.Dir() + "/" + dir, ec.value());
  return Ok();
}

Result<std::string> FileCgroupBackend::Get(const std::string& cgroup, const std::string& file) const {
  return reads_.ReadTrimmed(h_.CgroupPath(cgroup) + "/" + file);
}

Result<void> FileCgroupBackend::Set(const std::string& cgroup, const std::string& file, const std::string& value) {
  if (auto w = Writable(); !w) return w;
  const std::string path = h_.CgroupPath(cgroup) + "/" + file;
  if (!reads_.Exists(path)) return MakeError("no " + file + " in cgroup " + cgroup + " under " + reads_.Dir(), ENOENT);
  const std::string where = "write \"" + value + "\" to " + reads_.Dir() + "/" + path;
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
    contents.clear();
    for (const auto& c : ordered) contents += (contents.empty() ? "" : " ") + c;
    contents += "\n";
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

// ------------------------------------------------------------------ libcgroup

namespace {

Error CgError(int rc, const std::string& what) {
  int err = EIO;
  std::string text;
  switch (rc) {
    case ECGOTHER:
    case ECGCANTSETVALUE:
      err = cgroup_get_last_errno();
      if (err == 0) err = EIO;
      break;
    case ECGROUPNOTEXIST:
    case ECGROUPVALUENOTEXIST:
    case ECGROUPSUBSYSNOTMOUNTED:
    case ECGROUPNOTMOUNTED:
      err = ENOENT;
      text = cgroup_strerror(rc);
      break;
    case ECGROUPNOTOWNER:
    case ECGROUPNOTALLOWED:
      err = EPERM;
      text = cgroup_strerror(rc);
      break;
    case ECGINVAL:
      err = EINVAL;
      text = cgroup_strerror(rc);
      break;
    case ECGNONEMPTY:
      err = EBUSY;
      text = cgroup_strerror(rc);
      break;
    default:
      text = cgroup_strerror(rc);
      break;
  }
  return MakeError("libcgroup: " + what + (text.empty() ? "" : " (" + text + ")"), err);
}

Result<void> InitLibcgroup() {
  static std::once_flag once;
  static int rc = 0;
  std::call_once(once, [] { rc = cgroup_init(); });
  if (rc != 0) return CgError(rc, "cgroup_init");
  return Ok();
}

// libcgroup names a cgroup by its path below the controller's mount, without a leading '/'
// ("rt"); the top is "/".
std::string CgName(const std::string& cgroup) {
  if (cgroup.empty() || cgroup == "/") return "/";
  return cgroup.front() == '/' ? cgroup.substr(1) : cgroup;
}

// Owns a struct cgroup for the length of one call.
struct CgHandle {
  explicit CgHandle(const std::string& cgroup) : cg(cgroup_new_cgroup(CgName(cgroup).c_str())) {}
  ~CgHandle() {
    if (cg != nullptr) cgroup_free(&cg);
  }
  CgHandle(const CgHandle&) = delete;
  CgHandle& operator=(const CgHandle&) = delete;
  struct cgroup* cg;
};

class LibcgroupBackend : public CgroupBackend {
 public:
  LibcgroupBackend(const SysRoot& reads, SysRoot* writes, CpusetHierarchy h) : reads_(reads), writes_(writes), h_(std::move(h)) {}
  const CpusetHierarchy& hierarchy() const override { return h_; }

  bool Exists(const std::string& cgroup) const override { return reads_.IsDir(h_.CgroupPath(cgroup)); }

  Result<void> Create(const std::string& cgroup) override {
    if (auto w = Writable(); !w) return w;
    CgHandle h(cgroup);
    if (h.cg == nullptr || cgroup_add_controller(h.cg, "cpuset") == nullptr) return MakeError("libcgroup: out of memory", ENOMEM);
    if (int rc = cgroup_create_cgroup(h.cg, 0); rc != 0) return CgError(rc, "create cgroup " + cgroup);
    return Ok();
  }

  Result<void> Remove(const std::string& cgroup) override {
    if (auto w = Writable(); !w) return w;
    CgHandle h(cgroup);
    if (h.cg == nullptr || cgroup_add_controller(h.cg, "cpuset") == nullptr) return MakeError("libcgroup: out of memory", ENOMEM);
    // ignore_migration = 0: the tasks still in it move to the parent before the rmdir.
    if (int rc = cgroup_delete_cgroup(h.cg, 0); rc != 0) return CgError(rc, "delete cgroup " + cgroup);
    return Ok();
  }

  Result<std::string> Get(const std::string& cgroup, const std::string& file) const override {
    if (!IsCpusetFile(file)) return reads_.ReadTrimmed(h_.CgroupPath(cgroup) + "/" + file);
    CgHandle h(cgroup);
    if (h.cg == nullptr) return MakeError("libcgroup: out of memory", ENOMEM);
    if (int rc = cgroup_get_cgroup(h.cg); rc != 0) return CgError(rc, "read cgroup " + cgroup);
    struct cgroup_controller* c = cgroup_get_controller(h.cg, "cpuset");
    if (c == nullptr) return MakeError("libcgroup: cgroup " + cgroup + " has no cpuset controller", ENOENT);
    char* value = nullptr;
    int rc = cgroup_get_value_string(c, file.c_str(), &value);
    if (rc == ECGROUPVALUENOTEXIST) {
      // Not every file is one libcgroup collects; the kernel's answer decides.
      return reads_.ReadTrimmed(h_.CgroupPath(cgroup) + "/" + file);
    }
    if (rc != 0) return CgError(rc, "read " + file + " of " + cgroup);
    std::string out = value != nullptr ? Trim(value) : std::string();
    std::free(value);
    return out;
  }

  Result<void> Set(const std::string& cgroup, const std::string& file, const std::string& value) override {
    if (auto w = Writable(); !w) return w;
    if (!IsCpusetFile(file)) return writes_->Write(h_.CgroupPath(cgroup) + "/" + file, value);
    CgHandle h(cgroup);
    struct cgroup_controller* c = h.cg != nullptr ? cgroup_add_controller(h.cg, "cpuset") : nullptr;
    if (c == nullptr) return MakeError("libcgroup: out of memory", ENOMEM);
    if (int rc = cgroup_add_value_string(c, file.c_str(), value.c_str()); rc != 0) {
      return CgError(rc, "set " + file + " of " + cgroup);
    }
    if (int rc = cgroup_modify_cgroup(h.cg); rc != 0) {
      return CgError(rc, "write \"" + value + "\" to " + file + " of " + cgroup);
    }
    return Ok();
  }

  Result<std::string> CgroupOf(int pid) const override {
    if (!reads_.IsDir(kpath::Pid(pid))) return MakeError("process " + std::to_string(pid) + " does not exist", ESRCH);
    char* path = nullptr;
    if (int rc = cgroup_get_current_controller_path(pid, "cpuset", &path); rc != 0) {
      if (!reads_.IsDir(kpath::Pid(pid))) return MakeError("process " + std::to_string(pid) + " exited", ESRCH);
      return CgError(rc, "cpuset cgroup of process " + std::to_string(pid));
    }
    std::string out = path != nullptr ? path : "/";
    std::free(path);
    if (out.empty() || out.front() != '/') out = "/" + out;
    return out;
  }

  Result<void> Move(int pid, const std::string& cgroup) override {
    if (auto w = Writable(); !w) return w;
    if (!reads_.IsDir(kpath::Pid(pid))) return MakeError("process " + std::to_string(pid) + " does not exist", ESRCH);
    const char* controllers[] = {"cpuset", nullptr};
    // Unlike cgroup_attach_task_pid, which writes one thread id to "tasks" on v1, this moves
    // every thread of the process.
    if (int rc = cgroup_change_cgroup_path(CgName(cgroup).c_str(), pid, controllers); rc != 0) {
      return CgError(rc, "move process " + std::to_string(pid) + " to " + cgroup);
    }
    return Ok();
  }

 private:
  bool IsCpusetFile(const std::string& file) const {
    return !h_.prefix.empty() ? file.rfind(h_.prefix, 0) == 0 : file.rfind("cgroup.", 0) != 0 && file != kpath::kCgroupTasks;
  }
  Result<void> Writable() const {
    if (writes_ == nullptr) return MakeError("read-only: cgroups are not changed while planning", EROFS);
    return Ok();
  }
  const SysRoot& reads_;
  SysRoot* writes_;
  CpusetHierarchy h_;
};

}  // namespace

Result<std::unique_ptr<CgroupBackend>> MakeLibcgroupBackend(const SysRoot& reads, SysRoot* writes, CpusetHierarchy h) {
  if (!reads.IsLive()) return MakeError("libcgroup reads the running system's mounts; " + reads.Dir() + " is not it", EINVAL);
  if (auto r = InitLibcgroup(); !r) return r.error();
  return std::unique_ptr<CgroupBackend>(std::make_unique<LibcgroupBackend>(reads, writes, std::move(h)));
}

CgroupFactory DefaultCgroupFactory() {
  return [](const SysRoot& reads, SysRoot* writes, const CpusetHierarchy& h) -> Result<std::unique_ptr<CgroupBackend>> {
    if (reads.IsLive() && (writes == nullptr || writes->IsLive())) return MakeLibcgroupBackend(reads, writes, h);
    return std::unique_ptr<CgroupBackend>(std::make_unique<FileCgroupBackend>(reads, writes, h));
  };
}

// ------------------------------------------------------------------ the actuator

std::string CgroupDirKey(const std::string& cgroup) { return "dir:" + cgroup; }
std::string CgroupFileKey(const std::string& cgroup, const std::string& file) { return "file:" + cgroup + ":" + file; }
std::string CgroupControllerKey(const std::string& cgroup, const std::string& controller) {
  return "controller:" + cgroup + ":" + controller;
}
std::string CgroupProcKey(int pid) { return "proc:" + std::to_string(pid); }

namespace {

struct ParsedKey {
  std::string kind;
  std::string cgroup;
  std::string name;  // the file or the controller
  int pid = 0;
};

Result<ParsedKey> ParseKey(const std::string& key) {
  ParsedKey k;
  size_t colon = key.find(':');
  if (colon == std::string::npos) return MakeError("not a cgroup key: \"" + key + "\"", EINVAL);
  k.kind = key.substr(0, colon);
  std::string rest = key.substr(colon + 1);
  if (k.kind == "dir") {
    k.cgroup = rest;
  } else if (k.kind == "file" || k.kind == "controller") {
    size_t last = rest.rfind(':');
    if (last == std::string::npos) return MakeError("not a cgroup key: \"" + key + "\"", EINVAL);
    k.cgroup = rest.substr(0, last);
    k.name = rest.substr(last + 1);
  } else if (k.kind == "proc") {
    auto pid = ParseInt(rest);
    if (!pid || *pid <= 0) return MakeError("not a cgroup key: \"" + key + "\"", EINVAL);
    k.pid = static_cast<int>(*pid);
  } else {
    return MakeError("not a cgroup key: \"" + key + "\"", EINVAL);
  }
  if (k.kind != "proc" && (k.cgroup.empty() || k.cgroup.front() != '/')) {
    return MakeError("cgroup paths start with '/': \"" + key + "\"", EINVAL);
  }
  return k;
}

}  // namespace

Result<CgroupBackend*> CgroupActuator::Backend() {
  if (backend_) return backend_.get();
  auto h = FindCpusetHierarchy(root_);
  if (!h) return h.error();
  auto b = factory_(root_, &root_, *h);
  if (!b) return b.error();
  backend_ = std::move(*b);
  return backend_.get();
}

Result<std::string> CgroupActuator::Read(const std::string& key) {
  auto k = ParseKey(key);
  if (!k) return k.error();
  auto b = Backend();
  if (!b) return b.error();
  CgroupBackend& be = **b;
  if (k->kind == "dir") return be.Exists(k->cgroup) ? kPresent : kAbsent;
  if (k->kind == "file") return be.Get(k->cgroup, k->name);
  if (k->kind == "controller") {
    auto text = be.Get(k->cgroup, kpath::kCgroupSubtreeControl);
    if (!text) return text.error();
    return (Contains(Words(*text), k->name) ? "+" : "-") + k->name;
  }
  return be.CgroupOf(k->pid);
}

Result<void> CgroupActuator::Write(const std::string& key, const std::string& value) {
  auto k = ParseKey(key);
  if (!k) return k.error();
  auto b = Backend();
  if (!b) return b.error();
  CgroupBackend& be = **b;
  if (k->kind == "dir") {
    if (value == kPresent) return be.Exists(k->cgroup) ? Ok() : be.Create(k->cgroup);
    if (value == kAbsent) return be.Exists(k->cgroup) ? be.Remove(k->cgroup) : Ok();
    return MakeError("cgroup " + k->cgroup + ": expected \"present\" or \"absent\", got \"" + value + "\"", EINVAL);
  }
  if (k->kind == "file") return be.Set(k->cgroup, k->name, value);
  if (k->kind == "controller") {
    if (value != "+" + k->name && value != "-" + k->name) {
      return MakeError("controller " + k->name + " of " + k->cgroup + ": expected +" + k->name + " or -" + k->name, EINVAL);
    }
    return be.Set(k->cgroup, kpath::kCgroupSubtreeControl, value);
  }
  return be.Move(k->pid, value);
}

// Which tasks the kernel re-places (kernel/cgroup/cpuset.c; Documentation/admin-guide/
// cgroup-v2.rst, "cpuset.cpus.partition"): a valid partition takes its CPUs out of its parent's
// cpuset.cpus.effective and gives them back when it becomes a member again (or its CPUs
// change). update_cpumasks_hier() then calls update_tasks_cpumask() on the parent and on every
// member cgroup below it whose effective CPUs follow, which sets each task's affinity to the new
// effective CPUs. On 6.1 that drops whatever affinity the task had: one set with
// sched_setaffinity, or the housekeeping CPUs every task inherits from isolcpus=domain (from
// 6.2 a mask set with sched_setaffinity survives, intersected). Only per-CPU kernel threads of
// the top cpuset are skipped. So after a partition comes and goes, init and every other task
// of the top cgroup runs on all CPUs. Attaching a task to a cpuset (cpuset_attach(), v1 and
// v2) likewise sets its affinity to the cpuset's CPUs. Taking every thread outside the
// partition's subtree is a little wider than the kernel's walk (a sibling whose CPUs do not
// change keeps its tasks' affinity), which only costs reads: revert finds those already back.
Result<std::vector<SideEffect>> CgroupActuator::SideEffects(const std::string& key, const std::string& value) {
  auto k = ParseKey(key);
  if (!k) return k.error();
  std::vector<SideEffect> out;
  auto keep = [&](int pid, int tid, const std::string& comm, const std::string& why) {
    const std::string task = TaskKey({pid, tid});
    out.push_back({kAffinityActuator, task, "affinity of " + (comm.empty() ? "task" : comm) + " (" + task + "), kept: " + why,
                   Compare::kCpuList});
  };
  if (k->kind == "proc") {
    auto tids = root_.List(kpath::TaskDir(k->pid));
    if (!tids) return out;  // gone: the move itself answers ESRCH
    for (const auto& name : *tids) {
      auto tid = ParseInt(name);
      if (!tid) continue;
      keep(k->pid, static_cast<int>(*tid), "", "moving process " + std::to_string(k->pid) + " to " + value +
                                               " sets it to the cpuset's CPUs");
    }
    return out;
  }
  if (k->kind != "file") return out;
  auto b = Backend();
  if (!b) return b.error();
  CgroupBackend& be = **b;
  const CpusetHierarchy& h = be.hierarchy();
  if (h.version != 2) return out;  // v1: cpu_exclusive and sched_load_balance leave the parent's tasks alone
  const bool partition_file = k->name == h.Cpuset(kpath::kCpusetPartition);
  if (!partition_file && k->name != h.Cpuset(kpath::kCpusetCpus)) return out;
  if (!partition_file) {
    // The CPUs of a member cgroup are within its parent's: its parent's tasks keep theirs.
    auto now = be.Get(k->cgroup, h.Cpuset(kpath::kCpusetPartition));
    if (!now || ParsePartition(*now).type == "member") return out;
  }
  const std::string why = "the kernel re-places it when " + k->cgroup + "'s " + k->name + " changes";
  int checked_pid = 0;
  bool inside = false;
  for (const TaskView& t : ListTasks(root_, false)) {
    if (t.PerCpuKthread()) continue;  // the kernel leaves them on their CPU
    if (t.pid != checked_pid) {
      checked_pid = t.pid;
      inside = false;
      // Kernel threads stay in the top cgroup; a user process may be inside the partition.
      if (!t.Kthread()) {
        auto cg = be.CgroupOf(t.pid);
        inside = cg && (*cg == k->cgroup || cg->rfind(k->cgroup + "/", 0) == 0);
      }
    }
    if (!inside) keep(t.pid, t.tid, t.comm, why);
  }
  return out;
}

}  // namespace rtagent

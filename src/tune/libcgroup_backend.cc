#include "tune/libcgroup_backend.h"

#include <libcgroup.h>

#include <cerrno>
#include <cstdlib>
#include <mutex>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"

namespace rtagent {
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
  if (!reads.IsLive()) return InvalidInput("libcgroup reads the running system's mounts; " + reads.Dir() + " is not it");
  if (auto r = InitLibcgroup(); !r) return r.error();
  return std::unique_ptr<CgroupBackend>(std::make_unique<LibcgroupBackend>(reads, writes, std::move(h)));
}

}  // namespace rtagent

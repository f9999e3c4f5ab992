#include "inspect/capture.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <fstream>

#include "base/recording_root.h"
#include "base/time_text.h"
#include "inspect/boot_files.h"
#include "inspect/system_state.h"

namespace rtagent {
namespace {

// 1 when `dir` holds anything, 0 when empty, -errno when it cannot be read.
int NonEmpty(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return -errno;
  int found = 0;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") {
      found = 1;
      break;
    }
  }
  ::closedir(d);
  return found;
}

Result<void> MakeDirs(const std::string& dir) {
  std::string cur;
  size_t b = 0;
  while (b <= dir.size()) {
    size_t e = dir.find('/', b);
    if (e == std::string::npos) e = dir.size();
    cur = dir.substr(0, e);
    if (!cur.empty() && ::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST) {
      return MakeError("cannot create " + cur, errno);
    }
    b = e + 1;
  }
  return Ok();
}

// The channel counts a NIC's port answered that no file read recorded (netlink on the running
// system), written as the fixture file the ethtool port reads under --root. Returns the paths.
std::vector<std::string> WriteChannels(const NetworkState& net, const std::vector<std::string>& recorded,
                                       const std::string& out_dir, std::vector<std::string>* errors) {
  std::vector<std::string> written;
  for (const NicInfo& nic : net.nics) {
    if (!nic.channels) continue;
    const std::string rel = kpath::NetChannelsFixture(nic.name);
    if (std::find(recorded.begin(), recorded.end(), rel) != recorded.end()) continue;
    const std::string host = out_dir + "/" + rel;
    if (auto made = MakeDirs(host.substr(0, host.rfind('/'))); !made) {
      errors->push_back(made.error().message);
      continue;
    }
    std::ofstream f(host);
    f << FormatChannelsFixture(*nic.channels);
    f.close();
    if (!f) {
      errors->push_back("cannot write " + host);
      continue;
    }
    written.push_back(rel);
  }
  return written;
}

// The source as a tree: reads go through, IsLive() is false, writes are refused. What
// CaptureAlso::read plans against, so it takes the file twins' paths.
class AsTree : public SysRoot {
 public:
  explicit AsTree(const SysRoot& inner) : inner_(inner) {}
  Result<std::string> Read(const std::string& path) const override { return inner_.Read(path); }
  Result<std::vector<std::string>> List(const std::string& path) const override { return inner_.List(path); }
  Result<std::string> ReadLink(const std::string& path) const override { return inner_.ReadLink(path); }
  bool Exists(const std::string& path) const override { return inner_.Exists(path); }
  bool IsDir(const std::string& path) const override { return inner_.IsDir(path); }
  Result<void> Write(const std::string& path, const std::string&) override {
    return MakeError("capture never writes (" + path + ")", EROFS);
  }
  std::string Dir() const override { return inner_.Dir(); }
  bool IsLive() const override { return false; }

 private:
  const SysRoot& inner_;
};

}  // namespace

Result<CaptureResult> Capture(const SysRoot& source, const std::string& out_dir, bool force, const std::string& command,
                              const EthtoolPort* channels, const CaptureAlso* also) {
  struct stat st;
  if (::stat(out_dir.c_str(), &st) == 0) {
    // The words say what errno would: no strerror after them.
    if (!S_ISDIR(st.st_mode)) return Error{out_dir + " exists and is not a directory", ENOTDIR};
    int n = NonEmpty(out_dir);
    if (n < 0) return MakeError("cannot read " + out_dir, -n);
    if (n > 0 && !force) {
      return Error{out_dir + " is not empty; choose an empty directory or pass --force", ENOTEMPTY};
    }
  } else if (auto made = MakeDirs(out_dir); !made) {
    return made.error();
  }

  RecordingRoot rec(source, out_dir);
  SystemState state = CollectSystemState(rec, {}, channels);
  // The boot loader's files too: --root on the copy then plans the board's boot configuration.
  const std::vector<std::string> boot_files = ReadBootFiles(rec);
  CaptureResult result;
  if (also != nullptr && also->read) {
    if (auto done = also->read(AsTree(rec)); !done) result.also_failed = done.error().message;
  }

  result.copy_errors = rec.CopyErrors();
  std::vector<std::string> files = rec.Files();
  if (state.network) {
    for (auto& f : WriteChannels(*state.network, rec.Files(), out_dir, &result.copy_errors)) files.push_back(std::move(f));
  }
  result.files = files.size();
  if (state.power) result.cpu_dma_latency_us = state.power->cpu_dma_latency_us;

  std::ofstream m(out_dir + "/MANIFEST");
  m << "# rtagent capture: a copy of every file `rtagent inspect` reads"
    << (also != nullptr ? std::string(" and ") + also->what + " reads" : std::string()) << ". Use it with\n"
    << "# `rtagent --root DIR inspect` (or plan). Nothing was written to the source system.\n";
  m << "captured_at: " << IsoTime(UnixNow()) << "\n";
  m << "source: " << source.Dir() << (source.IsLive() ? " (live system)" : " (a system tree)") << "\n";
  if (state.kernel) {
    m << "kernel_release: " << state.kernel->release.value_or("absent") << "\n";
    m << "kernel_version: " << state.kernel->version.value_or("absent") << "\n";
  }
  m << "command: " << command << "\n";
  m << "cpu_dma_latency_us: "
    << (result.cpu_dma_latency_us ? std::to_string(*result.cpu_dma_latency_us) : std::string("absent"))
    << "  # dev/cpu_dma_latency holds the kernel's binary 32-bit value\n";
  if (also != nullptr) {
    m << "also_read: " << also->what;
    if (!result.also_failed.empty()) m << "  # failed on the source, so not all it needs is here: " << result.also_failed;
    m << "\n";
  }
  m << "boot_files: " << boot_files.size() << "  # the boot loader's files (etc/default/grub, extlinux.conf, ...)\n";
  m << "files: " << result.files << "\n";
  for (const auto& f : files) m << "  " << f << "\n";
  m.close();
  if (!m) return MakeError("cannot write " + out_dir + "/MANIFEST", errno ? errno : EIO);
  return result;
}

}  // namespace rtagent

#include "base/pm_qos.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "base/kernel_paths.h"

namespace rtagent {

namespace {

class KernelQosDevice : public QosDevice {
 public:
  explicit KernelQosDevice(std::string path) : path_(std::move(path)) {}
  ~KernelQosDevice() override { Close(); }

  Result<void> Open(int32_t value_us) override {
    // Already open: write the new value to the same fd, so the note never lapses between
    // the old value and the new one (cpu_latency_qos_write() updates the request in place).
    bool fresh = fd_ < 0;
    int fd = fresh ? ::open(path_.c_str(), O_WRONLY | O_CLOEXEC) : fd_;
    if (fd < 0) return MakeError("cannot open " + path_ + " to hold the PM QoS note", errno);
    // cpu_latency_qos_write(): exactly sizeof(s32) bytes are taken as a binary value; the
    // request is added at open() (with the default) and updated by this write.
    ssize_t n;
    do {
      n = ::write(fd, &value_us, sizeof value_us);
    } while (n < 0 && errno == EINTR);
    int e = errno;
    if (n != static_cast<ssize_t>(sizeof value_us)) {
      if (fresh) ::close(fd);
      return MakeError("cannot write " + std::to_string(value_us) + " to " + path_, n < 0 ? e : EIO);
    }
    fd_ = fd;
    return Ok();
  }
  void Close() override {
    if (fd_ >= 0) ::close(fd_);  // cpu_latency_qos_release() drops the request
    fd_ = -1;
  }
  bool IsOpen() const override { return fd_ >= 0; }
  std::string Where() const override { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

class FixtureQosDevice : public QosDevice {
 public:
  explicit FixtureQosDevice(SysRoot& root) : root_(root) {}
  ~FixtureQosDevice() override { Close(); }

  Result<void> Open(int32_t value_us) override {
    std::string old;
    if (!open_) {
      auto r = root_.Read(kpath::kCpuDmaLatency);
      if (!r) return Wrap("cannot open " + Where() + " to hold the PM QoS note: ", r.error());
      old = *r;
    }
    if (auto w = root_.Write(kpath::kCpuDmaLatency, std::to_string(value_us) + "\n"); !w) return w.error();
    if (!open_) saved_ = old;
    open_ = true;
    return Ok();
  }
  void Close() override {
    if (!open_) return;
    // What the kernel does when the last request goes: the aggregate falls back. The bytes
    // go back as they were, not as a write to a kernel file would show them: a tree `rtagent
    // capture` made holds the kernel's 4 raw bytes, which a newline after them would make
    // unreadable to inspect.
    (void)root_.WriteDurable(kpath::kCpuDmaLatency, saved_);
    open_ = false;
  }
  bool IsOpen() const override { return open_; }
  std::string Where() const override { return root_.HostPath(kpath::kCpuDmaLatency); }

 private:
  SysRoot& root_;
  std::string saved_;
  bool open_ = false;
};

}  // namespace

std::unique_ptr<QosDevice> MakeKernelQosDevice(const SysRoot& root) {
  return std::make_unique<KernelQosDevice>(root.HostPath(kpath::kCpuDmaLatency));
}

std::unique_ptr<QosDevice> MakeFixtureQosDevice(SysRoot& root) { return std::make_unique<FixtureQosDevice>(root); }

std::unique_ptr<QosDevice> MakeQosDevice(SysRoot& root) {
  return root.IsLive() ? MakeKernelQosDevice(root) : MakeFixtureQosDevice(root);
}

Result<void> PmQosLease::Acquire(int32_t value_us) {
  if (!device_) return MakeError("no PM QoS device to hold the note on");
  if (value_us < 0) return InvalidInput("PM QoS note must be >= 0 us, got " + std::to_string(value_us));
  if (auto r = device_->Open(value_us); !r) return r;
  value_us_ = value_us;
  return Ok();
}

void PmQosLease::Release() {
  if (device_) device_->Close();
}

}  // namespace rtagent

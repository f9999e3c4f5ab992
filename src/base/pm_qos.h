// The PM QoS note on /dev/cpu_dma_latency as a lease: the kernel keeps a process's CPU latency
// request only while the file it wrote stays open (Documentation/power/pm_qos_interface.rst),
// so its holder (`hold` for its whole life, the sampler for a run) owns the fd and gives it
// back on every exit path.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "base/result.h"
#include "base/sysroot.h"

namespace rtagent {

/// The default value of the CPU latency PM QoS class (no limit): PM_QOS_CPU_LATENCY_DEFAULT_VALUE
/// in include/linux/pm_qos.h, 2000 s. /dev/cpu_dma_latency reads it when nobody holds a note.
inline constexpr int32_t kPmQosNoLimitUs = 2000 * 1000 * 1000;

/// The seam between the lease and the device. The kernel one opens the real file; the
/// fixture one writes the note into the fixture tree and puts the old contents back, and
/// never touches the real device (STYLE.md, "One door to the kernel").
class QosDevice {
 public:
  virtual ~QosDevice() = default;
  /// Opens the device and writes the request; the request holds until Close(). When already
  /// open, changes the request in place (the note never lapses).
  virtual Result<void> Open(int32_t value_us) = 0;
  /// Withdraws the request (closes the file). Safe to call when not open.
  virtual void Close() = 0;
  virtual bool IsOpen() const = 0;
  /// Where the note lives, for messages ("/dev/cpu_dma_latency").
  virtual std::string Where() const = 0;
};

/// The real device of a live root: open(2) O_WRONLY, one write(2) of the 32-bit value in host
/// byte order (kernel/power/qos.c cpu_latency_qos_write() takes 4 raw bytes or hex text).
std::unique_ptr<QosDevice> MakeKernelQosDevice(const SysRoot& root);
/// The twin for a fixture root: dev/cpu_dma_latency in the tree reads the held value (as
/// decimal text, like the fixtures) while open and its old contents after Close().
std::unique_ptr<QosDevice> MakeFixtureQosDevice(SysRoot& root);
/// The kernel device on a live root, the twin otherwise.
std::unique_ptr<QosDevice> MakeQosDevice(SysRoot& root);

/// Holds one PM QoS request for as long as the object lives (RAII). Move-only.
class PmQosLease {
 public:
  PmQosLease() = default;
  explicit PmQosLease(std::unique_ptr<QosDevice> device) : device_(std::move(device)) {}
  ~PmQosLease() { Release(); }
  PmQosLease(PmQosLease&&) noexcept = default;
  PmQosLease& operator=(PmQosLease&& other) noexcept {
    if (this != &other) {
      Release();
      device_ = std::move(other.device_);
      value_us_ = other.value_us_;
    }
    return *this;
  }
  PmQosLease(const PmQosLease&) = delete;
  PmQosLease& operator=(const PmQosLease&) = delete;

  /// Takes the note (or changes the one held): writes `value_us`. Fails naming the device and
  /// errno; a failed change keeps the note held before.
  Result<void> Acquire(int32_t value_us);
  /// Gives the note back (closes the device). Idempotent.
  void Release();
  bool Held() const { return device_ && device_->IsOpen(); }
  int32_t value_us() const { return value_us_; }
  std::string Where() const { return device_ ? device_->Where() : std::string(); }

 private:
  std::unique_ptr<QosDevice> device_;
  int32_t value_us_ = 0;
};

}  // namespace rtagent

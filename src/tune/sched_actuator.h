// The "sched" and "affinity" actuators: a thread's scheduling class and CPU affinity as
// actuator values (FormatSched text, CPU lists), read and written through a SchedSyscalls.
#pragma once

#include <memory>
#include <string>

#include "tune/executor.h"
#include "tune/sched_syscalls.h"

namespace rtagent {

/// The executor's face of a SchedSyscalls. Two of them share one syscall layer:
/// "sched" (values are FormatSched text) and "affinity" (values are CPU lists). Keys are TaskKey.
class SchedActuator : public Actuator {
 public:
  enum class Kind { kPolicy, kAffinity };
  SchedActuator(std::shared_ptr<SchedSyscalls> sys, Kind kind) : sys_(std::move(sys)), kind_(kind) {}
  Result<std::string> Read(const std::string& key) override;
  Result<void> Write(const std::string& key, const std::string& value) override;

 private:
  std::shared_ptr<SchedSyscalls> sys_;
  Kind kind_;
};

/// Actuator names used by the ranks tuner's items.
inline constexpr char kSchedActuator[] = "sched";
inline constexpr char kAffinityActuator[] = "affinity";

}  // namespace rtagent

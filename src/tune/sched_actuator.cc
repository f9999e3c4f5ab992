#include "tune/sched_actuator.h"

#include <cerrno>

namespace rtagent {

Result<std::string> SchedActuator::Read(const std::string& key) {
  auto t = ParseTaskKey(key);
  if (!t) return t.error();
  if (kind_ == Kind::kAffinity) {
    auto cpus = sys_->GetAffinity(*t);
    if (!cpus) return cpus.error();
    return cpus->ToList();
  }
  auto a = sys_->GetAttr(*t);
  if (!a) return a.error();
  return FormatSched(*a);
}

Result<void> SchedActuator::Write(const std::string& key, const std::string& value) {
  auto t = ParseTaskKey(key);
  if (!t) return t.error();
  if (kind_ == Kind::kAffinity) {
    auto cpus = CpuSet::ParseList(value);
    if (!cpus) return InvalidInput("affinity of thread " + key + ": " + cpus.error().message);
    return sys_->SetAffinity(*t, *cpus);
  }
  auto a = ParseSched(value);
  if (!a) return a.error();
  return sys_->SetAttr(*t, *a);
}

}  // namespace rtagent

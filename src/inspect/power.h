// Power management that decides wake-up latency: cpuidle states, cpufreq governors, per-CPU
// resume latency and the PM QoS CPU latency note (/dev/cpu_dma_latency).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/cpuset.h"
#include "base/sysroot.h"

namespace rtagent {

/// The value of /dev/cpu_dma_latency in microseconds. The device returns the current
/// target as a binary 32-bit integer (Documentation/power/pm_qos_interface.rst); a fixture
/// tree may hold decimal text instead. nullopt when it is neither.
std::optional<long long> ParseCpuDmaLatency(std::string_view bytes);

/// One cpuidle state of one CPU (Documentation/admin-guide/pm/cpuidle.rst, "sysfs").
struct IdleState {
  int index = 0;
  std::string name;  ///< "WFI", "C1E", "haltpoll idle"
  std::string desc;
  std::optional<long long> latency_us;    ///< exit latency
  std::optional<long long> residency_us;  ///< target residency
  std::optional<bool> disabled;           ///< the "disable" file
};

/// cpufreq of one CPU (Documentation/admin-guide/pm/cpufreq.rst).
struct CpuFreq {
  std::optional<std::string> governor;
  std::optional<std::string> driver;
  std::vector<std::string> available_governors;
  std::optional<long long> cur_khz;
  std::optional<long long> min_khz;
  std::optional<long long> max_khz;
};

/// Power facts of one online CPU.
struct CpuPower {
  int cpu = 0;
  std::vector<IdleState> idle_states;
  std::optional<CpuFreq> cpufreq;  ///< nullopt without cpufreq
  /// power/pm_qos_resume_latency_us as read: "0" is no constraint, "n/a" forbids any
  /// latency (Documentation/ABI/testing/sysfs-devices-power).
  std::optional<std::string> resume_latency_us;
};

/// What inspect's "power" section shows.
struct PowerState {
  std::optional<long long> cpu_dma_latency_us;
  /// "ok", "absent", "not_readable" or "unparsable".
  std::string cpu_dma_latency_state;
  std::optional<std::string> idle_driver;
  std::optional<std::string> idle_governor;
  std::vector<std::string> idle_governors;
  std::vector<CpuPower> cpus;
};

/// Reads the power section for the online CPUs. Reading /dev/cpu_dma_latency opens it, which
/// adds a request at the default value (no constraint) until it is closed: it changes nothing.
PowerState CollectPower(const SysRoot& root, const CpuSet& online);

}  // namespace rtagent

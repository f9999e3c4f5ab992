// What the verdict takes from the checks and from the machine's power state before a run:
// the pre-flight checks (verify's answers, one per check) and the PM QoS note in force.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/sysroot.h"
#include "check/runner.h"
#include "report/verdict.h"

namespace rtagent {

/// One pre-flight check per check of the suite, in run order: passed unless one of its
/// answers is FAIL (WARN and SKIP pass, and say so in the reason). An interrupted suite adds
/// a failed "suite" entry: checks that never ran did not pass.
std::vector<PreflightCheck> PreflightFromSuite(const check::SuiteReport& report);

/// The PM QoS note in force, from the three facts a run can know.
/// `device_us`: /dev/cpu_dma_latency's value before the run (nullopt: unreadable);
/// `hold_us`: the note `rtagent hold` says it holds (nullopt: hold is not running).
/// The sampler's own note (SamplerResult::own_pm_qos_us) is added later by AddSamplerResult.
PmQosNote JudgePmQos(std::optional<int32_t> device_us, std::optional<int32_t> hold_us);

/// The note `rtagent hold` records in run/rtagent/state.json, when the file is there and
/// names one. Read through `root`; an absent or unreadable file is "no note".
std::optional<int32_t> ReadHoldPmQos(const SysRoot& root);

/// /dev/cpu_dma_latency's current value (the strictest note of every holder) through `root`.
/// Opening the device adds a request at the default value, which asks for nothing.
std::optional<int32_t> ReadPmQosDevice(const SysRoot& root);

/// The default value of the CPU latency PM QoS class (no limit): PM_QOS_CPU_LATENCY_DEFAULT_VALUE
/// in include/linux/pm_qos.h, 2000 s.
inline constexpr int32_t kPmQosNoLimitUs = 2000 * 1000 * 1000;

}  // namespace rtagent

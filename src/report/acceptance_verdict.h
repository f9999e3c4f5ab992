// The verdict of an acceptance run: built from what the run recorded (latency/acceptance.h),
// the pre-flight answers and the profile's limits, judged, and compared with a baseline.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "latency/acceptance.h"
#include "profile/model.h"
#include "report/diff.h"
#include "report/judge.h"
#include "report/verdict.h"

namespace rtagent {

/// "sha256:" and the SHA-256 of the profile's document: the profile as read, its includes
/// merged, in canonical form (profile::Profile::document). Two runs of the same values share
/// it however the files were split or commented; a run's --duration is not part of it (the
/// verdict records the duration asked on its own).
std::string ProfileDigest(const profile::Profile& profile);

/// The profile's acceptance thresholds as limits for a run of `duration_ns`.
AcceptanceLimits LimitsOf(const profile::AcceptanceConfig& acceptance, int64_t duration_ns);

/// The PM QoS note in force, from the three facts a run can know.
/// `device_us`: /dev/cpu_dma_latency's value before the run (nullopt: unreadable);
/// `hold_us`: the note `rtagent hold` says it holds (nullopt: hold is not running).
/// The sampler's own note (SamplerResult::own_pm_qos_us) is added later by AddSamplerResult.
PmQosNote JudgePmQos(std::optional<int32_t> device_us, std::optional<int32_t> hold_us);

/// What the verdict takes besides the run's record.
struct VerdictContext {
  std::string tool_version;
  std::string profile_name;
  std::string profile_digest;
  std::optional<int32_t> pm_qos_hold_us;  ///< the note `rtagent hold` says it holds
  std::vector<PreflightCheck> preflight;  ///< the checks run before (verify's answers)
  AcceptanceLimits limits;
  bool interrupted = false;               ///< Ctrl-C stopped the run early
  /// The profile's boot arguments written for the next boot, not in effect yet (commission).
  std::vector<std::string> boot_args_pending;
};

/// The verdict of a run: its figures, the loads and where they ran (a "loads" pre-flight
/// entry when there were any), the interrupts, the clock's honesty (judged with the run's
/// median wake-up), then every criterion and warning judged (judge.h).
Verdict BuildVerdict(AcceptanceRecord record, VerdictContext context);

/// Compares `v` with a `baseline` verdict read from `baseline_path` under `rules`: adds the
/// "baseline" criterion (fails on any regression, naming each) and returns the comparison.
VerdictDiff JudgeAgainstBaseline(Verdict& v, const Verdict& baseline, const std::string& baseline_path,
                                 const DiffRules& rules = {});

}  // namespace rtagent

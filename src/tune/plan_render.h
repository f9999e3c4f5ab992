// Plan, apply, verify and revert as a person reads them (grouped by section, before -> after)
// and as JSON for a program. Pure functions of their inputs.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "tune/executor.h"
#include "tune/tuner.h"

namespace rtagent {

/// `rtagent plan`: every pending change as before -> after, grouped by section, the boot
/// items that need a reboot, then the findings.
std::string RenderPlanText(const FullPlan& plan, bool color);
nlohmann::json PlanJson(const FullPlan& plan);

/// `rtagent verify` (conformance): every item, matching or not.
std::string RenderConformanceText(const FullPlan& plan, bool color);
nlohmann::json ConformanceJson(const FullPlan& plan);

/// `rtagent apply`: what happened to each change, and what to do next.
std::string RenderApplyText(const ApplyReport& report, const FullPlan& plan, bool color);
nlohmann::json ApplyJson(const ApplyReport& report, const FullPlan& plan);

/// `rtagent revert`.
std::string RenderRevertText(const RevertReport& report);

}  // namespace rtagent

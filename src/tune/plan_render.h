// Plan, apply, verify and revert as a person reads them (grouped by section, before -> after)
// and as JSON for a program. Pure functions of their inputs.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "tune/executor.h"
#include "tune/refusals.h"
#include "tune/tuner.h"

namespace rtagent {

/// `rtagent plan`: every pending change as before -> after, grouped by section, the boot
/// items that need a reboot, then the findings. A pending change that `refusals` (the record an
/// earlier apply left, tune/refusals.h) explains is marked: the kernel refused it and keeps its
/// value, so apply will most likely report it unchangeable again.
std::string RenderPlanText(const FullPlan& plan, bool color, const std::vector<Refusal>& refusals = {});
nlohmann::json PlanJson(const FullPlan& plan, const std::vector<Refusal>& refusals = {});

/// One value of a change (its before or its after) as plan, apply and verify's conformance
/// show it, at most `width` characters: a boot loader file by its length (shown whole below a
/// table), a drop-in by its settings without the comment rtagent writes at its top, a CPU mask
/// with the CPUs it names ("f (CPUs 0-3)").
std::string ValueCell(const Change& c, const std::string& value, size_t width);

/// `rtagent apply`: what happened to each change, and what to do next.
std::string RenderApplyText(const ApplyReport& report, const FullPlan& plan, bool color);
nlohmann::json ApplyJson(const ApplyReport& report, const FullPlan& plan);

/// What a run that measures now must say when the boot arguments `pending` are not in effect:
/// where they were written (or that they were not), that the CPUs are not isolated until the
/// reboot, and that a second `rtagent commission` after it gives the verdict that counts.
/// Empty when nothing is pending.
std::string RenderRebootNotice(const FullPlan& plan, const ApplyReport& report, const std::vector<std::string>& pending,
                               bool color);

/// A command run (a boot loader's update step) as apply, revert and their --json show it:
/// CommandRunJson plus the command line and its status for people.
nlohmann::json RunJson(const CommandRun& run);

/// `rtagent revert`.
std::string RenderRevertText(const RevertReport& report);

}  // namespace rtagent

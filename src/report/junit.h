// The verdict as JUnit XML, for CI systems that show test cases.
#pragma once

#include <string>

#include "report/diff.h"
#include "report/verdict.h"

namespace rtagent {

/// JUnit XML: one <testsuite> for the run, one <testcase> per criterion and CPU
/// (classname rtagent.accept.cpuN, or rtagent.accept.run for run-wide criteria), a failing
/// criterion as <failure> with its evidence, a "completed" case that fails when the run was
/// interrupted, and the trust warnings in <system-out> and as properties. With `baseline`
/// (accept --baseline) the comparison's cases follow, one per compared statistic and role
/// (DiffJUnitCases: classes rtagent.diff.*), and its result is the property baseline_result.
std::string RenderJUnit(const Verdict& v, const VerdictDiff* baseline = nullptr);

}  // namespace rtagent

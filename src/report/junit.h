// The verdict as JUnit XML, for CI systems that show test cases.
#pragma once

#include <string>

#include "report/verdict.h"

namespace rtagent {

/// JUnit XML: one <testsuite> for the run, one <testcase> per criterion and CPU
/// (classname rtagent.accept.cpuN, or rtagent.accept.run for run-wide criteria), a failing
/// criterion as <failure> with its evidence, a "completed" case that fails when the run was
/// interrupted, and the trust warnings in <system-out> and as properties.
std::string RenderJUnit(const Verdict& v);

}  // namespace rtagent

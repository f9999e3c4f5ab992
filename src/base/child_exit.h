// How a forked child of rtagent ends: at once, and counted in a coverage build.
#pragma once

#include <unistd.h>

#ifdef RTAGENT_COVERAGE
extern "C" void __gcov_dump(void);  // libgcov: writes this process's counts now
#endif

namespace rtagent {

/// Ends a forked child with _exit(2): none of the parent's atexit handlers, no flush of stdio
/// buffers it copied from the parent. In a coverage build (tools/coverage.sh defines
/// RTAGENT_COVERAGE) the child's line counts are written first, which _exit alone would drop,
/// so code that only a load's supervisor or a bench peer runs counts as reached.
[[noreturn]] inline void ExitChild(int code) {
#ifdef RTAGENT_COVERAGE
  __gcov_dump();
#endif
  ::_exit(code);
}

}  // namespace rtagent

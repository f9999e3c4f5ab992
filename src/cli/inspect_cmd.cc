#include <iostream>

#include "base/exit_codes.h"
#include "cli/commands.h"

namespace rtagent {
int CmdInspect(const GlobalOptions&, const InspectOptions&) {
  std::cerr << "rtagent inspect: not built yet\n";
  return kExitCannotRun;
}
int CmdCapture(const GlobalOptions&, const CaptureOptions&) {
  std::cerr << "rtagent capture: not built yet\n";
  return kExitCannotRun;
}
}  // namespace rtagent

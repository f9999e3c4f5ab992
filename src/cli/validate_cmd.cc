#include <iostream>

#include "base/exit_codes.h"
#include "cli/commands.h"

namespace rtagent {
int CmdValidate(const GlobalOptions&, const ValidateOptions&) {
  std::cerr << "rtagent validate: not built yet\n";
  return kExitCannotRun;
}
}  // namespace rtagent

#include <iostream>

#include "base/exit_codes.h"
#include "cli/commands.h"

namespace rtagent {
int CmdCommission(const GlobalOptions&, const CommissionOptions&) {
  std::cerr << "rtagent commission: not built yet\n";
  return kExitCannotRun;
}
}  // namespace rtagent

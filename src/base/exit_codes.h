// Exit codes shared by every command (PRODUCT.md, "Exit codes").
#pragma once

namespace rtagent {

enum ExitCode : int {
  kExitOk = 0,           ///< success / PASS
  kExitFail = 1,         ///< a check or the acceptance criteria failed
  kExitBadInput = 2,     ///< bad input or usage; nothing was changed
  kExitCannotRun = 3,    ///< the environment cannot run it (not root, interface missing)
  kExitRolledBack = 4,   ///< partly applied, then rolled back
};

}  // namespace rtagent

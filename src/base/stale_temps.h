// What an interrupted WriteDurable leaves: its temporary twin, never renamed.
#pragma once

#include <string>

#include "base/result.h"
#include "base/sysroot.h"

namespace rtagent {

/// Removes the temporary files a WriteDurable of `path` killed before its rename left
/// (`path`.tmp.PID of another process, WriteFileAtomic's name: never renamed, so never the
/// file's contents), through root.Remove. Writes nothing when there are none or when the
/// directory is missing. Called where the file itself is written or removed for good: the
/// journal cleared, a boot file or irqbalance's file written or put back.
Result<void> RemoveStaleTemps(SysRoot& root, const std::string& path);

}  // namespace rtagent

// fs.mqueue.msgsize_max for a bench run. The 16 KiB and 64 KiB message-queue round trips send
// messages above the kernel's default limit of 8192 bytes, which mq_open refuses (EINVAL)
// without CAP_SYS_RESOURCE (ipc/mqueue.c, mq_attr_ok; Documentation/admin-guide/sysctl/fs.rst,
// "mqueue"). As root the run raises the limit through a FileLease that puts the old value back
// when the run ends, on every exit path (Ctrl-C included); without root those tests stay SKIPs
// that name the limit. Each queue holds one message, so fs.mqueue.msg_max (10) never limits them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/file_lease.h"
#include "base/sysroot.h"

namespace rtagent::bench {

/// What RaiseMqueueLimit did.
struct MqueueLimit {
  std::optional<FileLease> lease;  ///< held for the run; Restore() (or its destructor) puts the old value back
  std::string note;                ///< for the run's notes: what was raised, or why it could not be ("" when nothing was needed)
};

/// Raises fs.mqueue.msgsize_max to `bytes` for the run when it reads less. Nothing is
/// written when it already allows `bytes`. A limit that cannot be read or written (not
/// root, no CONFIG_POSIX_MQUEUE) leaves no lease and a note saying why; it is never an error,
/// as the tests it concerns then skip with their own reason.
MqueueLimit RaiseMqueueLimit(SysRoot& root, uint32_t bytes);

}  // namespace rtagent::bench

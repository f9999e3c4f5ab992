// The kernel log (what dmesg prints), read without blocking and without consuming it, for
// checks that look for a line the kernel wrote (RT throttling).
#pragma once

#include <string>

#include "base/result.h"
#include "base/sysroot.h"

namespace rtagent::check {

/// The kernel log's text. On the live system, syslog(2) SYSLOG_ACTION_READ_ALL: the whole
/// ring buffer, never blocking, consuming nothing; refused (EPERM) without CAP_SYSLOG when
/// kernel.dmesg_restrict is 1. Under a fixture root, the tree's dev/kmsg read as a file
/// (the live dev/kmsg would block at its end). Lines the ring buffer dropped are gone.
Result<std::string> ReadKernelLog(const SysRoot& root);

}  // namespace rtagent::check

// `rtagent capture`: copy every file inspect reads, and the boot loader's files (boot_files.h),
// into a tree that --root accepts.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/ethtool_port.h"
#include "base/result.h"
#include "base/sysroot.h"

namespace rtagent {

/// What a capture wrote.
struct CaptureResult {
  size_t files = 0;                          ///< files and links copied
  std::vector<std::string> copy_errors;      ///< copies that failed (the capture is incomplete)
  std::optional<long long> cpu_dma_latency_us;  ///< the PM QoS value at capture time
};

/// Runs every inspect collector over `source` through a RecordingRoot writing into `out_dir`,
/// reads the boot loader's files through it too (ReadBootFiles), then writes out_dir/MANIFEST (time, source, kernel, `command`, the PM QoS value, and the
/// list of files). Never writes to `source`. `out_dir` is created when missing; an existing
/// non-empty one is refused (error ENOTEMPTY) unless `force` (files are then overwritten,
/// others left alone).
///
/// Channel counts have no file: on the running system they come over netlink (`channels`, null
/// for MakeEthtoolPort(source)), and each NIC's counts are written as the fixture file the
/// ethtool port reads under --root (kpath::NetChannelsFixture), so the copy replays them. A NIC
/// without channel settings gets no file, which the copy answers the same way.
Result<CaptureResult> Capture(const SysRoot& source, const std::string& out_dir, bool force,
                              const std::string& command, const EthtoolPort* channels = nullptr);

}  // namespace rtagent

// `rtagent capture`: copy every file inspect reads, the boot loader's files (boot_files.h) and
// what the plan of a profile reads, into a tree that --root accepts.
#pragma once

#include <functional>
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
  std::string also_failed;                   ///< why CaptureAlso::read failed; empty when it did not
};

/// Reads to make through the recording root after inspect's, so that the copy answers them
/// too: the CLI plans the profile given to `capture` with it. `read` sees the source as a
/// tree (IsLive() false), the way `--root DIR` will see the copy: the twins of the kernel's
/// system calls (thread policies, cgroups) then read the files the copy will need.
struct CaptureAlso {
  std::string what;                           ///< for MANIFEST: "the plan of board.yaml"
  /// Its error (the plan failed on the source) goes into MANIFEST and CaptureResult::also_failed:
  /// the copy then holds what the reads before the failure took, not all the plan needs.
  std::function<Result<void>(const SysRoot&)> read;
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
                              const std::string& command, const EthtoolPort* channels = nullptr,
                              const CaptureAlso* also = nullptr);

}  // namespace rtagent

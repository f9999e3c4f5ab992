// Giving back what only start-up needed. After `hold` is READY, most of its resident memory is
// clean code and read-only data mapped from files (the rtagent binary, libstdc++, libc, yaml-cpp,
// spdlog, ...) that only the YAML parse, the command line, the apply and the first verify
// touched. Dropping those pages from the process's page tables (madvise MADV_DONTNEED) leaves the
// watch holding only what a tick touches; a page needed again refaults from the page cache as a
// minor fault, unchanged. Only mappings that can never hold the process's own data qualify.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "service/self_calls.h"

namespace rtagent::service {

/// One mapping of /proc/PID/smaps (Documentation/filesystems/proc.rst).
struct SmapsMapping {
  uint64_t start = 0;         ///< first address
  uint64_t end = 0;           ///< one past the last address
  std::string perms;          ///< "r-xp": read, write, execute, private or shared
  std::string path;           ///< the file, "[heap]", "[stack]", or "" for anonymous memory
  uint64_t rss_kb = 0;        ///< resident in this process
  uint64_t anonymous_kb = 0;  ///< pages of its own: copy-on-write copies of the file or new memory
  uint64_t locked_kb = 0;     ///< pages mlock'ed
  std::vector<std::string> vm_flags;  ///< the VmFlags line: "rd", "ex", "lo", ...
};

/// Every mapping of a smaps text, in address order. Lines it does not know are ignored.
std::vector<SmapsMapping> ParseSmaps(std::string_view text);

/// The mappings whose resident pages can be dropped and come back unchanged: backed by a file,
/// never writable, no anonymous (copy-on-write) page, nothing locked, no device memory (VmFlags
/// lo, io, pf, dd, ht), and something resident. A read-only mapping with anonymous pages (RELRO after relocation, a
/// debugger's breakpoint in text) is left alone: dropping would throw its private copy away.
std::vector<SmapsMapping> CleanFileMappings(const std::vector<SmapsMapping>& mappings);

/// What DropStartupPages did.
struct TrimReport {
  int mappings = 0;          ///< mappings dropped
  uint64_t dropped_kb = 0;   ///< their resident size before the drop
  std::string error;         ///< the first failure ("" when none)
};

/// Reads the process's own smaps, drops the resident pages of every CleanFileMappings range,
/// then trims the heap (malloc_trim). A failure on one range is recorded and the others go on.
TrimReport DropStartupPages(SelfCalls& calls);

}  // namespace rtagent::service

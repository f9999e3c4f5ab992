// Which of the daemon's mappings may give their pages back, read from smaps text taken from a
// running `rtagent hold` (shortened: the lines the choice does not use are cut from most
// blocks), and DropStartupPages against a recording twin of the syscalls.
#include "service/memory_trim.h"

#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "base/kernel_paths.h"
#include "base/skip_test_support.h"
#include "service/self_calls.h"

using namespace rtagent;
using namespace rtagent::service;

namespace {

const char* kSmaps = R"(55afa2ca7000-55afa2cbb000 r--p 00000000 fe:00 5431397                    /usr/bin/rtagent
Size:                 80 kB
KernelPageSize:        4 kB
MMUPageSize:           4 kB
Rss:                  80 kB
Pss:                  80 kB
Pss_Dirty:             0 kB
Shared_Clean:          0 kB
Shared_Dirty:          0 kB
Private_Clean:        80 kB
Private_Dirty:         0 kB
Referenced:           80 kB
Anonymous:             0 kB
KSM:                   0 kB
LazyFree:              0 kB
AnonHugePages:         0 kB
ShmemPmdMapped:        0 kB
FilePmdMapped:         0 kB
Shared_Hugetlb:        0 kB
Private_Hugetlb:       0 kB
Swap:                  0 kB
SwapPss:               0 kB
Locked:                0 kB
THPeligible:           0
VmFlags: rd mr mw me 
55afa2cbb000-55afa2fd9000 r-xp 00014000 fe:00 5431397                    /usr/bin/rtagent
Size:               3192 kB
Rss:                2624 kB
Anonymous:             0 kB
Locked:                0 kB
VmFlags: rd ex mr mw me 
55afa304d000-55afa3061000 r--p 003a6000 fe:00 5431397                    /usr/bin/rtagent
Size:                 80 kB
Rss:                  80 kB
Anonymous:            16 kB
Locked:                0 kB
VmFlags: rd mr mw me ac 
55afa3061000-55afa3063000 rw-p 003ba000 fe:00 5431397                    /usr/bin/rtagent
Size:                  8 kB
Rss:                   8 kB
Anonymous:             8 kB
Locked:                0 kB
VmFlags: rd wr mr mw me ac 
55afa3063000-55afa307c000 rw-p 00000000 00:00 0 
Size:                100 kB
Rss:                 100 kB
Anonymous:           100 kB
Locked:                0 kB
VmFlags: rd wr mr mw me ac 
55afa3a4e000-55afa3a94000 rw-p 00000000 00:00 0                          [heap]
Size:                280 kB
Rss:                 280 kB
Anonymous:           280 kB
Locked:                0 kB
VmFlags: rd wr mr mw me ac 
7f3b1c628000-7f3b1c650000 r--p 00000000 fe:00 2104227                    /usr/lib/x86_64-linux-gnu/libc.so.6
Size:                160 kB
Rss:                 160 kB
Anonymous:             0 kB
Locked:                0 kB
VmFlags: rd mr mw me 
7f3b1c650000-7f3b1c7b5000 r-xp 00028000 fe:00 2104227                    /usr/lib/x86_64-linux-gnu/libc.so.6
Size:               1428 kB
Rss:                1072 kB
Anonymous:             0 kB
Locked:                0 kB
VmFlags: rd ex mr mw me 
7f3b1c7b5000-7f3b1c80b000 r--p 0018d000 fe:00 2104227                    /usr/lib/x86_64-linux-gnu/libc.so.6
Size:                344 kB
Rss:                 160 kB
Anonymous:             0 kB
Locked:                0 kB
VmFlags: rd mr mw me 
7f3b1c80b000-7f3b1c80f000 r--p 001e2000 fe:00 2104227                    /usr/lib/x86_64-linux-gnu/libc.so.6
Size:                 16 kB
Rss:                  16 kB
Anonymous:            16 kB
Locked:                0 kB
VmFlags: rd mr mw me ac 
7f3b1c811000-7f3b1c812000 ---p 001e8000 fe:00 2104227                    /usr/lib/x86_64-linux-gnu/libc.so.6
Size:                  4 kB
Rss:                   0 kB
Anonymous:             0 kB
Locked:                0 kB
VmFlags: mr mw me 
7f3b1c900000-7f3b1c940000 r-xp 00000000 fe:00 2104301                    /opt/vendor lib/libplug.so (deleted)
Size:                256 kB
Rss:                  64 kB
Anonymous:             0 kB
Locked:                0 kB
VmFlags: rd ex mr mw me 
7f3b1c940000-7f3b1c950000 r-xp 00000000 fe:00 2104302                    /usr/lib/x86_64-linux-gnu/libpinned.so
Size:                 64 kB
Rss:                  64 kB
Anonymous:             0 kB
Locked:               64 kB
VmFlags: rd ex mr mw me lo 
7f3b1c950000-7f3b1c951000 r-xp 00000000 fe:00 2104303                    /usr/lib/x86_64-linux-gnu/libdebugged.so
Size:                  4 kB
Rss:                   4 kB
Anonymous:             4 kB
Locked:                0 kB
VmFlags: rd ex mr mw me 
7f3b1c960000-7f3b1c970000 r--s 00000000 00:06 512                        /dev/dri/card0
Size:                 64 kB
Rss:                  64 kB
Anonymous:             0 kB
Locked:                0 kB
VmFlags: rd sh mr mw me io pf 
7ffc6d1f5000-7ffc6d217000 rw-p 00000000 00:00 0                          [stack]
Size:                136 kB
Rss:                  72 kB
Anonymous:            72 kB
Locked:                0 kB
VmFlags: rd wr mr mw me gd ac 
7ffc6d3e0000-7ffc6d3e2000 r-xp 00000000 00:00 0                          [vdso]
Size:                  8 kB
Rss:                   4 kB
Anonymous:             0 kB
Locked:                0 kB
VmFlags: rd ex mr mw me de sd 
)";

// Records every call; DropPages fails with `drop_errno` at `fail_at` (an address), OwnSmaps
// with `smaps_errno` when set.
struct RecordingSelfCalls : SelfCalls {
  std::string smaps = kSmaps;
  int smaps_errno = 0;
  uint64_t fail_at = 0;
  int drop_errno = EINVAL;
  std::vector<std::pair<uint64_t, uint64_t>> dropped;
  int trims = 0;

  Result<void> SignalMask(int, const sigset_t&, sigset_t*) override { return Ok(); }
  Result<int> SignalFd(const sigset_t&) override { return MakeError("signalfd", ENOSYS); }
  Result<void> SetOtherPolicy() override { return Ok(); }
  Result<void> SetTimerSlack(uint64_t) override { return Ok(); }
  Result<void> SetAffinity(const CpuSet&) override { return Ok(); }
  Result<std::string> OwnSmaps() override {
    if (smaps_errno) return MakeError("proc/self/smaps", smaps_errno);
    return smaps;
  }
  Result<void> DropPages(uint64_t start, uint64_t length) override {
    if (start == fail_at) return MakeError("madvise(MADV_DONTNEED)", drop_errno);
    dropped.emplace_back(start, length);
    return Ok();
  }
  void TrimHeap() override { ++trims; }
};

}  // namespace

TEST_CASE("smaps text parses into mappings with their path, permissions and page counts", "[service]") {
  auto maps = ParseSmaps(kSmaps);
  REQUIRE(maps.size() == 17);
  CHECK(maps[0].start == 0x55afa2ca7000);
  CHECK(maps[0].end == 0x55afa2cbb000);
  CHECK(maps[0].perms == "r--p");
  CHECK(maps[0].path == "/usr/bin/rtagent");
  CHECK(maps[0].rss_kb == 80);
  CHECK(maps[0].vm_flags == std::vector<std::string>{"rd", "mr", "mw", "me"});
  CHECK(maps[2].anonymous_kb == 16);
  CHECK(maps[4].path.empty());  // anonymous memory has no name
  CHECK(maps[5].path == "[heap]");
  CHECK(maps[11].path == "/opt/vendor lib/libplug.so (deleted)");  // spaces kept
  CHECK(maps[12].locked_kb == 64);
  CHECK(maps[16].path == "[vdso]");
  CHECK(ParseSmaps("").empty());
  CHECK(ParseSmaps("not smaps\nRss: 4 kB\n").empty());
}

TEST_CASE("only clean, read-only, file-backed, unlocked mappings give their pages back", "[service]") {
  std::vector<uint64_t> starts;
  for (const auto& m : CleanFileMappings(ParseSmaps(kSmaps))) starts.push_back(m.start);
  CHECK(starts == std::vector<uint64_t>{
                      0x55afa2ca7000,  // rtagent's headers and read-only data
                      0x55afa2cbb000,  // rtagent's code
                      0x7f3b1c628000,  // libc's
                      0x7f3b1c650000,
                      0x7f3b1c7b5000,
                      0x7f3b1c900000,  // a deleted file still refaults from the mapping's inode
                  });
  // Left alone, each for its own reason: RELRO with relocated (anonymous) pages, .data/.bss,
  // anonymous memory, the heap, libc's RELRO, a gap with nothing resident, an mlock'ed
  // library, a text page a debugger wrote a breakpoint into, a device, the stack, the vDSO.
}

TEST_CASE("DropStartupPages drops each clean range, goes on past a failure and trims the heap", "[service]") {
  RecordingSelfCalls calls;
  SECTION("every range") {
    TrimReport r = DropStartupPages(calls);
    CHECK(r.error.empty());
    CHECK(r.mappings == 6);
    CHECK(r.dropped_kb == 80 + 2624 + 160 + 1072 + 160 + 64);
    REQUIRE(calls.dropped.size() == 6);
    CHECK(calls.dropped[1] == std::make_pair<uint64_t, uint64_t>(0x55afa2cbb000, 0x55afa2fd9000 - 0x55afa2cbb000));
    CHECK(calls.trims == 1);
  }
  SECTION("one range refused") {
    calls.fail_at = 0x7f3b1c650000;
    TrimReport r = DropStartupPages(calls);
    CHECK(r.mappings == 5);
    CHECK(r.dropped_kb == 80 + 2624 + 160 + 160 + 64);
    CHECK_THAT(r.error, Catch::StartsWith("/usr/lib/x86_64-linux-gnu/libc.so.6: madvise(MADV_DONTNEED): ") &&
                            Catch::Contains("Invalid argument"));
    CHECK(calls.trims == 1);
  }
  SECTION("smaps cannot be read") {
    calls.smaps_errno = EACCES;
    TrimReport r = DropStartupPages(calls);
    CHECK(r.mappings == 0);
    CHECK(calls.dropped.empty());
    CHECK_THAT(r.error, Catch::Contains("Permission denied"));
    CHECK(calls.trims == 1);  // the heap is trimmed all the same
  }
}

namespace {

// This process's locked memory (VmLck of its status), in kB; 0 when it cannot be read.
long LockedKb() {
  std::ifstream status("/" + kpath::TaskStatus(::getpid(), ::getpid()));
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmLck:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  }
  return 0;
}

}  // namespace

TEST_CASE("the real madvise refuses a page locked since smaps was read: EINVAL, named, the page kept", "[service]") {
  // A page of this test's own, locked as a mapping can become between the smaps read and the
  // madvise (VM_LOCKED: madvise_dontneed_free_valid_vma refuses it).
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  void* at = ::mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(at != MAP_FAILED);
  std::memset(at, 0x5a, page);
  if (::mlock(at, page) != 0) {
    const int e = errno;
    ::munmap(at, page);
    RTAGENT_SKIP("mlock of one page refused (RLIMIT_MEMLOCK): " << std::strerror(e));
  }
  // AddressSanitizer's interceptor answers mlock with 0 and locks nothing: the kernel's own
  // count of locked memory says whether the page is locked.
  if (LockedKb() == 0) {
    ::munmap(at, page);
    RTAGENT_SKIP("mlock said yes but nothing is locked (VmLck 0; a sanitizer's interceptor does this)");
  }
  auto r = RealSelfCalls().DropPages(reinterpret_cast<uint64_t>(at), page);
  const bool kept = static_cast<unsigned char*>(at)[page - 1] == 0x5a;
  ::munlock(at, page);
  ::munmap(at, page);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().err == EINVAL);
  CHECK(r.error().message == "madvise(MADV_DONTNEED): Invalid argument");
  CHECK(kept);
}

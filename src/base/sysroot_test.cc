#include "base/sysroot.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/resource.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "base/fault_root.h"
#include "base/kernel_text.h"
#include "base/sysroot_pieces.h"
#include "base/tree_test_support.h"

using namespace rtagent;

TEST_CASE("FsRoot reads, lists and writes under its directory", "[base]") {
  TempTree t;
  t.Put("proc/sys/kernel/osrelease", "6.1.0-31-rt-amd64\n");
  t.Put("proc/irq/5/smp_affinity_list", "0-3\n");
  t.Put("proc/irq/12/smp_affinity_list", "0-3\n");
  FsRoot root(t.dir() + "/");
  CHECK(root.Dir() == t.dir());
  CHECK_FALSE(root.IsLive());
  CHECK(*root.ReadTrimmed("proc/sys/kernel/osrelease") == "6.1.0-31-rt-amd64");
  auto names = root.List("proc/irq");
  REQUIRE(names.ok());
  CHECK(*names == std::vector<std::string>{"12", "5"});
  CHECK(root.IsDir("proc/irq/5"));
  CHECK(root.Exists("proc/irq/5/smp_affinity_list"));
  CHECK_FALSE(root.Exists("proc/irq/6"));

  // A fixture file holding a longer old value must not keep its tail.
  REQUIRE(root.Write("proc/irq/5/smp_affinity_list", "1\n").ok());
  CHECK(t.Get("proc/irq/5/smp_affinity_list") == "1\n");
  // A fixture reads back as the kernel would: with its newline, and a choice file with
  // its brackets moved to the value written.
  REQUIRE(root.Write("proc/irq/5/smp_affinity_list", "0-1").ok());
  CHECK(t.Get("proc/irq/5/smp_affinity_list") == "0-1\n");
  t.Put("sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n");
  REQUIRE(root.Write("sys/kernel/mm/transparent_hugepage/enabled", "never").ok());
  CHECK(t.Get("sys/kernel/mm/transparent_hugepage/enabled") == "always madvise [never]\n");
}

TEST_CASE("FsRoot reads a file whole at every size around its 64 KiB buffer", "[base]") {
  // Small files go through the buffer; past it the text is read straight into the string
  // (a big server's interrupts file is megabytes).
  TempTree t;
  FsRoot root(t.dir());
  for (size_t size : {size_t{0}, size_t{1}, size_t{65535}, size_t{65536}, size_t{65537}, size_t{131072},
                      size_t{131073}, size_t{3000001}}) {
    std::string text(size, 'x');
    for (size_t k = 0; k < size; ++k) text[k] = static_cast<char>('a' + (k * 7 + k / 4096) % 26);
    t.Put("proc/interrupts", text);
    auto r = root.Read("proc/interrupts");
    INFO(size);
    REQUIRE(r.ok());
    CHECK(r->size() == size);
    CHECK(*r == text);
  }
}

// Issue 19: on a fixture a short read ends the file (its files are regular ones); on the live
// kernel it does not, because a seq_file hands out a page of records per read. This process's
// own maps, split into 400 mappings, is a kernel file of that kind well past one page.
TEST_CASE("FsRoot reads a live kernel file whole though each read(2) returns a page of it", "[base][host]") {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t pages = 400;
  void* area = ::mmap(nullptr, pages * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(area != MAP_FAILED);
  char* base = static_cast<char*>(area);
  // Every other page readable: neighbours of different protection stay separate mappings.
  for (size_t i = 0; i < pages; i += 2) REQUIRE(::mprotect(base + i * page, page, PROT_READ) == 0);
  FsRoot live("/");
  REQUIRE(live.IsLive());
  auto maps = live.Read("proc/self/maps");
  ::munmap(area, pages * page);
  REQUIRE(maps.ok());
  CHECK(maps->size() > 4 * page);
  // Pages 2 and 398 are readable between two that are not: mappings of their own, which no
  // neighbour outside the area can merge with.
  char first[32], last[32];
  std::snprintf(first, sizeof first, "%lx-", reinterpret_cast<unsigned long>(base + 2 * page));
  std::snprintf(last, sizeof last, "%lx-", reinterpret_cast<unsigned long>(base + (pages - 2) * page));
  CHECK_THAT(*maps, Catch::Contains(first));
  CHECK_THAT(*maps, Catch::Contains(last));  // the mappings after the first page of the file
  CHECK(maps->back() == '\n');
}

// Issue 19: which live files show all they hold in one read, by the kernel's source.
TEST_CASE("KernelShowsWholeInOneRead names the kernel files of one show and no others", "[base]") {
  for (const char* one : {"proc/1/stat", "/proc/1234/status", "proc/self/comm", "proc/thread-self/stat",
                          "proc/42/task/43/stat", "proc/self/task/7/status", "proc/9/cgroup", "proc/9/task/9/sched",
                          "proc/9/schedstat", "proc/cmdline",
                          "proc/sys/kernel/osrelease", "proc/irq/17/smp_affinity_list",
                          "proc/irq/default_smp_affinity", "sys/devices/system/cpu/online",
                          "sys/devices/system/cpu/cpu3/cpufreq/scaling_governor", "sys/kernel/irq/17/type",
                          "sys/kernel/mm/transparent_hugepage/enabled", "sys/class/net/eth0/queues/rx-0/rps_cpus",
                          "sys/bus/workqueue/devices/writeback/cpumask"}) {
    INFO(one);
    CHECK(KernelShowsWholeInOneRead(one));
  }
  // Many records, handed out a page at a time; or another file system mounted under /sys.
  for (const char* many : {"proc/interrupts", "proc/self/maps", "proc/1/mountinfo", "proc/1/task/2/maps",
                           "proc/mounts", "proc/softirqs", "proc/1/task", "proc/1/stat/x", "proc/abc/stat",
                           "proc/thread-self/task/3/stat", "proc/1/task/x/stat", "proc/sys", "proc/irq",
                           "sys/fs/cgroup/rt/cgroup.procs", "sys/fs/cgroup/cpuset/cpuset.cpus",
                           "sys/kernel/debug/tracing/trace", "sys/kernel/tracing/available_tracers",
                           "sys/kernel/realtime", "sys/firmware/acpi/tables/DSDT", "sys/devices",
                           "proc/sys/../interrupts", "sys/devices/../fs/cgroup/cgroup.procs", ""}) {
    INFO(many);
    CHECK_FALSE(KernelShowsWholeInOneRead(many));
  }
}

namespace {

// How many read(2) calls this thread has made (/proc/thread-self/io, "syscr"), read with a
// loop of its own rather than the code under test.
long ReadCalls() {
  int fd = ::open("/proc/thread-self/io", O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  ::close(fd);
  const size_t at = text.find("syscr: ");
  REQUIRE(at != std::string::npos);
  return std::stol(text.substr(at + 7));
}

// The file read the way the kernel's documentation allows for any file: until a read returns 0.
std::string ReadToZero(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  std::string text;
  char buf[512];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return text;
}

// The names of the "Key:\tvalue" lines of a status file, whose values move from read to read.
std::vector<std::string> Keys(const std::string& status) {
  std::vector<std::string> keys;
  for (auto line : SplitLines(status)) keys.emplace_back(line.substr(0, line.find(':')));
  return keys;
}

}  // namespace

// Issue 19: the live root reads a thread's stat, an IRQ's affinity or a sysfs attribute with one
// read(2), not two, and still whole; a file of many records is still read to its end.
TEST_CASE("FsRoot reads a live one-show kernel file whole with one read(2)", "[base][host]") {
  FsRoot live("/");
  auto reads_of = [&](const std::string& path) {
    const long first = ReadCalls();
    const long before = ReadCalls();
    const long probe = before - first;  // what ReadCalls itself costs
    auto text = live.Read(path);
    const long calls = ReadCalls() - before - probe;
    REQUIRE(text.ok());
    return std::pair<std::string, long>(*text, calls);
  };
  const std::string tid = std::to_string(::gettid());
  for (const std::string& path : {std::string("proc/sys/kernel/ostype"), std::string("sys/devices/system/cpu/online"),
                                  std::string("proc/cmdline")}) {
    INFO(path);
    auto [text, calls] = reads_of(path);
    CHECK(calls == 1);
    CHECK(text == ReadToZero("/" + path));
    CHECK_FALSE(text.empty());
  }
  {
    auto [text, calls] = reads_of("proc/self/task/" + tid + "/status");
    CHECK(calls == 1);
    CHECK(Keys(text) == Keys(ReadToZero("/proc/self/task/" + tid + "/status")));
    CHECK(text.back() == '\n');
  }
  {
    auto [text, calls] = reads_of("proc/self/task/" + tid + "/stat");
    CHECK(calls == 1);
    CHECK(text.back() == '\n');
    // The 52 fields of proc(5), the last one (exit_code) included.
    const auto close = text.rfind(')');
    REQUIRE(close != std::string::npos);
    CHECK(std::count(text.begin() + static_cast<long>(close), text.end(), ' ') == 50);
  }
  auto irqs = live.List("proc/irq");
  REQUIRE(irqs.ok());
  for (const std::string& irq : *irqs) {
    if (irq.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string path = "proc/irq/" + irq + "/smp_affinity_list";
    if (!live.Exists(path)) continue;
    INFO(path);
    auto [text, calls] = reads_of(path);
    CHECK(calls == 1);
    CHECK(text == ReadToZero("/" + path));
    break;
  }
  // Not one show: read on to the read that returns 0.
  auto [maps, calls] = reads_of("proc/self/maps");
  CHECK(calls >= 2);
  CHECK(maps.back() == '\n');
}

// Issue 19: a large server's /proc/interrupts is parsed a line at a time as it is read.
TEST_CASE("ReadLinesFrom gives the lines SplitLines gives, whatever the 64 KiB pieces cut", "[base]") {
  TempTree t;
  FsRoot root(t.dir());
  auto lines_of = [&](const SysRoot& r) {
    std::vector<std::string> got;
    auto res = ReadLinesFrom(r, "proc/interrupts", [&](std::string_view line) { got.emplace_back(line); });
    REQUIRE(res.ok());
    return got;
  };
  auto split = [](const std::string& text) {
    std::vector<std::string> want;
    for (auto line : SplitLines(text)) want.emplace_back(line);
    return want;
  };
  // Lines of many lengths, so that a piece ends inside a line, on its '\n' and just after it;
  // a line longer than a piece; empty lines; with and without a last '\n'.
  std::string text;
  for (int k = 0; text.size() < 300000; ++k) text += std::string(static_cast<size_t>(k * 37 % 5003), 'a' + k % 26) + "\n";
  text += "\n\n" + std::string(200000, 'z') + "\n";
  for (const std::string& variant : {text, text + "tail without newline", std::string(), std::string("\n"),
                                     std::string("one"), std::string(65535, 'q') + "\n", std::string(65536, 'q') + "\nx"}) {
    t.Put("proc/interrupts", variant);
    INFO(variant.size());
    CHECK(lines_of(root) == split(variant));
    // A root that is not a plain FsRoot (a test double) is read whole through its own Read.
    FaultRoot watched(t.dir());
    CHECK(lines_of(watched) == split(variant));
  }
}

TEST_CASE("ReadLinesFrom: a file that cannot be opened or read is an error naming it", "[base]") {
  TempTree t;
  FsRoot root(t.dir());
  int taken = 0;
  auto count = [&](std::string_view) { ++taken; };
  auto missing = ReadLinesFrom(root, "proc/interrupts", count);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().err == ENOENT);
  CHECK_THAT(missing.error().message, Catch::Contains("cannot open " + t.dir() + "/proc/interrupts"));
  // A directory opens, and its first read fails: the error names it, no line was taken.
  t.Put("proc/irq/5/smp_affinity_list", "0-3\n");
  auto dir = ReadLinesFrom(root, "proc/irq", count);
  REQUIRE_FALSE(dir.ok());
  CHECK(dir.error().err == EISDIR);
  CHECK_THAT(dir.error().message, Catch::Contains("cannot read " + t.dir() + "/proc/irq"));
  // A test double's refusal comes through as it is.
  t.Put("proc/interrupts", "x\n");
  FaultRoot faulty(t.dir());
  faulty.FailReads("proc/interrupts", EIO);
  auto refused = ReadLinesFrom(faulty, "proc/interrupts", count);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().err == EIO);
  CHECK(taken == 0);
}

TEST_CASE("FsRoot errors name the path and keep the errno", "[base]") {
  TempTree t;
  t.Put("proc/sys/kernel/timer_migration", "on\n");
  FsRoot root(t.dir());
  auto missing = root.Read("proc/cmdline");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().err == ENOENT);
  CHECK_THAT(missing.error().message, Catch::Contains(t.dir() + "/proc/cmdline"));
  auto notint = root.ReadInt("proc/sys/kernel/timer_migration");
  REQUIRE_FALSE(notint.ok());
  CHECK_THAT(notint.error().message, Catch::Contains("\"on\""));
  auto nofile = root.Write("proc/irq/9/smp_affinity", "1");
  REQUIRE_FALSE(nofile.ok());
  CHECK(nofile.error().err == ENOENT);
  CHECK_THAT(nofile.error().message, Catch::Contains(t.dir() + "/proc/irq/9/smp_affinity"));
  // A directory is no attribute: EISDIR, and nothing under it changes.
  auto dir = root.Write("proc/sys/kernel", "1");
  REQUIRE_FALSE(dir.ok());
  CHECK(dir.error().err == EISDIR);
  CHECK_THAT(dir.error().message, Catch::Contains(t.dir() + "/proc/sys/kernel"));
  CHECK(t.Get("proc/sys/kernel/timer_migration") == "on\n");
}

TEST_CASE("FsRoot: a fixture file that cannot take the write keeps what it held", "[base]") {
  TempTree t;
  t.Put("proc/irq/24/smp_affinity_list", "0-7\n");
  FsRoot root(t.dir());
  // A full disk: the tree takes no byte (write(2) fails with EFBIG at offset 0).
  Result<void> w = Ok();
  {
    test::FileSizeLimit limit(0);
    w = root.Write("proc/irq/24/smp_affinity_list", "2-3");
  }
  REQUIRE_FALSE(w.ok());
  CHECK(w.error().err == EFBIG);
  CHECK_THAT(w.error().message,
             Catch::StartsWith("cannot write \"2-3\" to " + t.dir() + "/proc/irq/24/smp_affinity_list: "));
  CHECK(t.Get("proc/irq/24/smp_affinity_list") == "0-7\n");
}

TEST_CASE("FsRoot: a fixture file the disk fills in the middle of is put back as it was", "[base]") {
  TempTree t;
  t.Put("proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1\n");
  FsRoot root(t.dir());
  // The disk takes 40 bytes of the 70 written: the first write(2) is short, the next one fails.
  const std::string longer = "BOOT_IMAGE=/vmlinuz root=/dev/sda1 isolcpus=2-3 nohz_full=2-3 quiet";
  Result<void> w = Ok();
  {
    test::FileSizeLimit limit(40);
    w = root.Write("proc/cmdline", longer);
  }
  REQUIRE_FALSE(w.ok());
  CHECK(w.error().err == EFBIG);
  CHECK_THAT(w.error().message, Catch::StartsWith("cannot write \"" + longer + "\" to " + t.dir() + "/proc/cmdline: "));
  CHECK(t.Get("proc/cmdline") == "BOOT_IMAGE=/vmlinuz root=/dev/sda1\n");
}

TEST_CASE("EditFixtureFile: one edit of what the file shows, the same on an FsRoot and on a test double", "[base]") {
  TempTree t;
  const std::string stat = "proc/7/task/7/stat";
  t.Put(stat, "7 (robot) S 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0\n");
  FsRoot plain(t.dir());
  FaultRoot fault(t.dir());
  for (SysRoot* root : {static_cast<SysRoot*>(&plain), static_cast<SysRoot*>(&fault)}) {
    INFO((root == &plain ? "FsRoot" : "FaultRoot"));
    t.Put(stat, "7 (robot) S 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0\n");
    // The edit sees what the file shows; a shorter text leaves no tail of the longer one.
    std::string seen;
    auto ok = EditFixtureFile(*root, stat, [&](const std::string& now) -> Result<std::string> {
      seen = now;
      return std::string("7 (robot) S 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 -51 0\n");
    });
    REQUIRE(ok.ok());
    CHECK(seen == "7 (robot) S 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0\n");
    CHECK(t.Get(stat) == "7 (robot) S 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 -51 0\n");
    auto shorter = EditFixtureFile(*root, stat, [](const std::string&) -> Result<std::string> { return std::string("7 (r) S"); });
    REQUIRE(shorter.ok());
    CHECK(t.Get(stat) == "7 (r) S\n");  // a newline, as a kernel file shows it
    // The edit's error comes back as it is, and nothing is written.
    auto refused = EditFixtureFile(*root, stat, [](const std::string&) -> Result<std::string> {
      return MakeError("sched_setattr(7, fifo:0): bad priority", EINVAL);
    });
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().err == EINVAL);
    CHECK_THAT(refused.error().message, Catch::StartsWith("sched_setattr(7, fifo:0): bad priority"));
    CHECK(t.Get(stat) == "7 (r) S\n");
    // A missing file is ENOENT naming it; the edit is never asked.
    bool asked = false;
    auto gone = EditFixtureFile(*root, "proc/8/task/8/stat", [&](const std::string&) -> Result<std::string> {
      asked = true;
      return std::string("x");
    });
    REQUIRE_FALSE(gone.ok());
    CHECK(gone.error().err == ENOENT);
    CHECK_THAT(gone.error().message, Catch::Contains(t.dir() + "/proc/8/task/8/stat"));
    CHECK_FALSE(asked);
  }
  // A test double's faults still apply: a write it refuses is refused.
  fault.FailWrites(stat, EACCES);
  auto denied = EditFixtureFile(fault, stat, [](const std::string&) -> Result<std::string> { return std::string("y"); });
  REQUIRE_FALSE(denied.ok());
  CHECK(denied.error().err == EACCES);
  CHECK(t.Get(stat) == "7 (r) S\n");
}

TEST_CASE("WriteDurable replaces a file whole and creates its directories", "[base]") {
  TempTree t;
  FsRoot root(t.dir());
  REQUIRE(root.WriteDurable("run/rtagent/journal.json", "{\"a\":1}").ok());
  CHECK(t.Get("run/rtagent/journal.json") == "{\"a\":1}");
  REQUIRE(root.WriteDurable("run/rtagent/journal.json", "{}").ok());
  CHECK(t.Get("run/rtagent/journal.json") == "{}");
  CHECK_FALSE(root.Exists("run/rtagent/journal.json.tmp"));
  REQUIRE(root.Remove("run/rtagent/journal.json").ok());
  CHECK_FALSE(root.Exists("run/rtagent/journal.json"));
  CHECK(root.Remove("run/rtagent/journal.json").ok());  // already gone is fine

  t.Put("run/blocked", "a file where a directory should be");
  auto r = root.WriteDurable("run/blocked/state.json", "{}");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().err == ENOTDIR);
}

TEST_CASE("WriteDurable: a file that cannot be put in place is an error naming it, the old state kept", "[base]") {
  TempTree t;
  FsRoot root(t.dir());
  SECTION("a directory stands where the file goes: the rename fails, no temporary file is left") {
    t.Put("run/rtagent/journal.json/keep", "x");
    auto r = root.WriteDurable("run/rtagent/journal.json", "{}");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().err == EISDIR);
    CHECK_THAT(r.error().message, Catch::StartsWith("cannot rename " + t.dir() + "/run/rtagent/journal.json.tmp.") &&
                                      Catch::Contains(" to " + t.dir() + "/run/rtagent/journal.json: "));
    CHECK(t.Get("run/rtagent/journal.json/keep") == "x");
    CHECK(std::distance(std::filesystem::directory_iterator(t.dir() + "/run/rtagent"),
                        std::filesystem::directory_iterator{}) == 1);
  }
  SECTION("a directory that cannot be made: the error names it and the errno") {
    const std::string name(300, 'd');  // longer than a file name may be (NAME_MAX 255)
    auto r = root.WriteDurable("run/" + name + "/state.json", "{}");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().err == ENAMETOOLONG);
    CHECK_THAT(r.error().message, Catch::StartsWith("cannot create directory " + t.dir() + "/run/" + name + ": "));
    CHECK_FALSE(std::filesystem::exists(t.dir() + "/run/" + name.substr(0, 200)));
  }
  SECTION("a file stands where a directory goes: the error says so, without strerror's words after it") {
    t.Put("run/rtagent", "a file\n");
    auto r = root.WriteDurable("run/rtagent/state.json", "{}");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().err == ENOTDIR);
    CHECK(r.error().message == "cannot create directory " + t.dir() + "/run/rtagent: a file is in the way");
    CHECK(t.Get("run/rtagent") == "a file\n");
  }
  SECTION("a link planted at the temporary file's name is not written through") {
    t.Put("victim", "precious\n");
    REQUIRE(::chmod((t.dir() + "/victim").c_str(), 0600) == 0);
    const std::string tmp = t.dir() + "/run/rtagent/state.json.tmp." + std::to_string(::getpid());
    std::filesystem::create_directories(t.dir() + "/run/rtagent");
    std::filesystem::create_symlink(t.dir() + "/victim", tmp);
    REQUIRE(root.WriteDurable("run/rtagent/state.json", "{}").ok());
    CHECK(t.Get("run/rtagent/state.json") == "{}");
    CHECK(t.Get("victim") == "precious\n");
    CHECK((std::filesystem::status(t.dir() + "/victim").permissions() & std::filesystem::perms::all) ==
          (std::filesystem::perms::owner_read | std::filesystem::perms::owner_write));
    CHECK_FALSE(std::filesystem::exists(std::filesystem::symlink_status(tmp)));
    CHECK_FALSE(std::filesystem::is_symlink(t.dir() + "/run/rtagent/state.json"));
  }
}

// Issue 19: the journal of the large tree (10.6 MB) is made while it is written, never whole.
TEST_CASE("WriteDurableFrom writes the pieces in order as they are made, one file", "[base]") {
  TempTree t;
  FsRoot root(t.dir());
  REQUIRE(WriteDurableFrom(root, "run/rtagent/journal.json", [](const PutPiece& put) {
    put("{\n");
    put("");
    for (int i = 0; i < 3; ++i) put("  " + std::to_string(i) + "\n");
    put("}\n");
  }).ok());
  CHECK(t.Get("run/rtagent/journal.json") == "{\n  0\n  1\n  2\n}\n");
  REQUIRE(WriteDurableFrom(root, "run/rtagent/journal.json", [](const PutPiece&) {}).ok());
  CHECK(root.Exists("run/rtagent/journal.json"));
  CHECK(t.Get("run/rtagent/journal.json").empty());
  // A root that watches its writes (a test double) is given the whole contents, as before.
  FaultRoot watched(t.dir());
  watched.FailNthWrite(1, ENOSPC);
  auto r = WriteDurableFrom(watched, "run/rtagent/journal.json", [](const PutPiece& put) { put("{}\n"); });
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().err == ENOSPC);
  REQUIRE(watched.calls().size() == 1);
  CHECK(watched.calls()[0].kind == FaultRoot::Call::kDurable);
  REQUIRE(WriteDurableFrom(watched, "run/rtagent/journal.json", [](const PutPiece& put) { put("{}\n"); }).ok());
  CHECK(t.Get("run/rtagent/journal.json") == "{}\n");
}

TEST_CASE("WriteDurableFrom: a piece that cannot be written leaves the old file and no temporary one", "[base]") {
  TempTree t;
  FsRoot root(t.dir());
  REQUIRE(root.WriteDurable("run/rtagent/journal.json", "old journal\n").ok());
  // A full disk, as the kernel reports a file size limit: write(2) fails with EFBIG past 4 KiB.
  int pieces_made = 0;
  Result<void> r = Ok();
  {
    test::FileSizeLimit limit(4096);
    r = WriteDurableFrom(root, "run/rtagent/journal.json", [&](const PutPiece& put) {
      for (int i = 0; i < 8; ++i, ++pieces_made) put(std::string(1024, 'x'));
    });
  }
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().err == EFBIG);
  CHECK_THAT(r.error().message, Catch::Contains("cannot write " + t.dir() + "/run/rtagent/journal.json.tmp."));
  CHECK(pieces_made == 8);  // the maker runs to its end; the door skips what it cannot write
  CHECK(t.Get("run/rtagent/journal.json") == "old journal\n");
  CHECK(std::distance(std::filesystem::directory_iterator(t.dir() + "/run/rtagent"),
                      std::filesystem::directory_iterator{}) == 1);
}

TEST_CASE("OpenRoot refuses what is not a directory", "[base]") {
  TempTree t;
  t.Put("file", "x");
  CHECK(OpenRoot(t.dir()).ok());
  auto r = OpenRoot(t.dir() + "/file");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "--root " + t.dir() + "/file is not a directory");
  CHECK(r.error().err == ENOTDIR);
  CHECK_FALSE(OpenRoot(t.dir() + "/nope").ok());
  auto live = OpenRoot("/");
  REQUIRE(live.ok());
  CHECK((*live)->IsLive());
}

TEST_CASE("FaultRoot injects the kernel's refusals and logs writes", "[base]") {
  TempTree t;
  t.Put("proc/irq/0/smp_affinity_list", "0-1\n");
  t.Put("proc/irq/24/smp_affinity_list", "0-1\n");
  FaultRoot root(t.dir());
  root.FailWrites("proc/irq/0/smp_affinity_list", EIO);
  root.FailWrites("proc/irq/24/smp_affinity_list", EBUSY, 1);
  auto r = root.Write("proc/irq/0/smp_affinity_list", "0");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().err == EIO);
  CHECK(root.Write("proc/irq/24/smp_affinity_list", "0").ok());
  CHECK(root.Write("proc/irq/24/smp_affinity_list", "1").error().err == EBUSY);
  REQUIRE(root.writes().size() == 1);
  CHECK(root.writes()[0].first == "proc/irq/24/smp_affinity_list");
  root.FailReads("proc/irq/24/smp_affinity_list", EACCES);
  CHECK(root.Read("proc/irq/24/smp_affinity_list").error().err == EACCES);
}

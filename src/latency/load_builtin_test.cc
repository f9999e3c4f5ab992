#include <fcntl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <thread>

#include "base/fault_root.h"
#include "latency/load.h"
#include "latency/load_set.h"
#include "latency/load_test_util.h"

using namespace rtagent;
using namespace std::chrono_literals;

namespace {

// Options small enough for a shared 2-CPU machine: each load runs ~0.5 s.
BuiltinLoadOptions SmallOptions() {
  BuiltinLoadOptions o;
  o.memory_limit_bytes = 32 << 20;
  o.cache_buffer_bytes = 16 << 20;
  o.messaging_fds = 4;
  o.disk_block_bytes = 256 << 10;
  o.disk_file_bytes = 8 << 20;
  // Long enough that a stop which waited it out could not pass for a kill on a busy machine.
  o.stop_grace = 20s;
  return o;
}

struct Run {
  LoadReport report;
  std::vector<int> pids;  // every task's process seen during the run
  long long stop_ms = 0;
};

// Runs one built-in load on CPU 0 for ~0.5 s under a LoadSet (CPU 1 measured when it exists).
Run RunOnCpu0(const std::string& name, const BuiltinLoadOptions& o) {
  FsRoot live("/");
  auto load = MakeBuiltinLoad(name, o, live);
  REQUIRE(load.ok());
  Load* raw = load->get();
  LoadSet set(live, 50ms);
  set.Add(std::move(*load));
  CpuSet measured = std::thread::hardware_concurrency() > 1 ? CpuSet::Of({1}) : CpuSet();
  auto started = set.Start(CpuSet::Of({0}), measured);
  INFO(name << ": " << (started.ok() ? "" : started.error().message));
  REQUIRE(started.ok());
  std::this_thread::sleep_for(250ms);
  Run run;
  run.pids = load_test::TreePids(raw->RootPid());
  std::this_thread::sleep_for(250ms);
  run.stop_ms = load_test::TimeMs([&] { set.Stop(); });
  run.report = set.Reports().at(0);
  return run;
}

void CheckRan(const Run& run, const std::string& name) {
  const LoadReport& r = run.report;
  INFO(name << ": " << r.PlacementSummary() << "; detail: " << r.detail << "; ops " << r.ops << " " << r.ops_unit
            << "; bytes " << r.bytes << "; stop " << run.stop_ms << " ms; errors: "
            << (r.errors.empty() ? "" : r.errors.front()));
  CHECK(r.name == name);
  CHECK(r.kind == "builtin");
  CHECK(r.errors.empty());
  CHECK_FALSE(r.ended_early);
  CHECK(r.bytes > 0);
  CHECK(r.seconds > 0.4);
  CHECK(r.cpus_asked == CpuSet::Of({0}));
  CHECK(r.placement.seen == CpuSet::Of({0}));
  CHECK(r.placement.allowed == CpuSet::Of({0}));
  CHECK(r.PlacementProven());
  CHECK(r.PlacementSummary() == "ran on 0 (asked 0)");
  // A stop is a kill, never a wait for the grace period (about 100 ms on a quiet machine;
  // compared with the grace, not with a wall-clock figure, so a loaded machine cannot fail it).
  CHECK(run.stop_ms < 20000);
  CHECK(run.pids.size() >= 2);
  CHECK(load_test::Survivors(run.pids).empty());
}

// Whether `dir` takes an O_DIRECT write of one aligned block, asked of the kernel directly.
bool TakesODirect(const std::string& dir) {
  std::string path = dir + "/rtagent-test-odirect." + std::to_string(::getpid());
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_DIRECT, 0600);
  if (fd < 0) return false;
  ::unlink(path.c_str());
  void* buf = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  bool ok = ::pwrite(fd, buf, 4096, 0) == 4096;
  ::munmap(buf, 4096);
  ::close(fd);
  return ok;
}

}  // namespace

TEST_CASE("LastLevelCacheBytes takes the highest data or unified level from sysfs", "[latency][load]") {
  TempTree t;
  auto put = [&](int i, const char* level, const char* type, const char* size) {
    std::string d = "sys/devices/system/cpu/cpu2/cache/index" + std::to_string(i) + "/";
    t.Put(d + "level", std::string(level) + "\n");
    t.Put(d + "type", std::string(type) + "\n");
    t.Put(d + "size", std::string(size) + "\n");
  };
  put(0, "1", "Data", "48K");
  put(1, "1", "Instruction", "32K");
  put(2, "2", "Unified", "2048K");
  put(3, "3", "Unified", "266240K");
  t.Put("sys/devices/system/cpu/cpu2/cache/uevent", "");
  FsRoot root(t.dir());
  auto llc = LastLevelCacheBytes(root, 2);
  REQUIRE(llc.ok());
  CHECK(*llc == 266240ull * 1024);

  auto missing = LastLevelCacheBytes(root, 0);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().err == ENOENT);
}

TEST_CASE("MakeBuiltinLoad refuses unknown names and impossible options", "[latency][load]") {
  FsRoot live("/");
  auto unknown = MakeBuiltinLoad("hackbench", {}, live);
  REQUIRE_FALSE(unknown.ok());
  CHECK_THAT(unknown.error().message, Catch::Contains("'hackbench'") && Catch::Contains("cache, messaging, disk"));

  BuiltinLoadOptions o;
  o.disk_block_bytes = 1000;
  CHECK_FALSE(MakeBuiltinLoad("disk", o, live).ok());
  o = {};
  o.disk_dir = "/nonexistent/rtagent";
  auto nodir = MakeBuiltinLoad("disk", o, live);
  REQUIRE_FALSE(nodir.ok());
  CHECK(nodir.error().err == ENOENT);
  CHECK(nodir.error().message == "load 'disk': directory /nonexistent/rtagent: No such file or directory");
  TempTree t;
  t.Put("file", "");
  o.disk_dir = t.dir() + "/file";
  auto file = MakeBuiltinLoad("disk", o, live);
  REQUIRE_FALSE(file.ok());
  CHECK(file.error().err == ENOTDIR);
  CHECK(file.error().message == "load 'disk': " + t.dir() + "/file is not a directory");
  o = {};
  o.nice = 40;
  CHECK_FALSE(MakeBuiltinLoad("cache", o, live).ok());
  o = {};
  o.memory_limit_bytes = 1 << 20;
  CHECK_FALSE(MakeBuiltinLoad("memory", o, live).ok());
  CHECK(BuiltinLoadNames().size() == 5);
}

TEST_CASE("cache load thrashes a buffer on CPU 0 and stops at once", "[latency][load]") {
  Run run = RunOnCpu0("cache", SmallOptions());
  CheckRan(run, "cache");
  CHECK(run.report.ops_unit == "cache lines");
  // It did work; how much in its half second depends on how loaded the machine is, so no
  // figure is asserted (the throughput belongs to bench/, not to a test).
  CHECK(run.report.ops > 0);
  CHECK_THAT(run.report.detail, Catch::Contains("buffer 16 MiB (as configured)"));
}

TEST_CASE("cache load sizes its buffer from the last-level cache within the memory limit", "[latency][load]") {
  FsRoot live("/");
  BuiltinLoadOptions o;
  o.memory_limit_bytes = 32 << 20;
  auto load = MakeBuiltinLoad("cache", o, live);
  REQUIRE(load.ok());
  REQUIRE((*load)->Start(CpuSet::Of({0})).ok());
  (*load)->Stop();
  std::string detail = (*load)->Report().detail;
  auto llc = LastLevelCacheBytes(live, 0);
  if (!llc) {
    CHECK_THAT(detail, Catch::Contains("last-level cache size unknown"));
  } else if (2 * *llc > (32u << 20)) {
    CHECK_THAT(detail, Catch::StartsWith("buffer 32 MiB (2x the") && Catch::Contains("capped at the 32 MiB memory limit"));
  } else {
    CHECK_THAT(detail, Catch::Contains("2x the"));
  }
}

TEST_CASE("messaging load passes hackbench's 100-byte messages on CPU 0", "[latency][load]") {
  SECTION("socketpairs") {
    Run run = RunOnCpu0("messaging", SmallOptions());
    CheckRan(run, "messaging");
    CHECK(run.report.workers == 8);
    CHECK(run.pids.size() == 9);  // supervisor + 4 senders + 4 receivers
    CHECK(run.report.bytes == run.report.ops * 100);
    CHECK(run.report.ops > 0);  // how many depends on the machine's load: no figure asserted
  }
  SECTION("pipes") {
    BuiltinLoadOptions o = SmallOptions();
    o.messaging_pipes = true;
    o.messaging_fds = 2;
    Run run = RunOnCpu0("messaging", o);
    CheckRan(run, "messaging");
    CHECK_THAT(run.report.detail, Catch::Contains("pipes"));
    CHECK(run.report.ops > 0);  // how many depends on the machine's load: no figure asserted
  }
}

TEST_CASE("disk load writes blocks on CPU 0 with O_DIRECT where the filesystem takes it", "[latency][load]") {
  BuiltinLoadOptions o = SmallOptions();
  o.disk_dir = "/var/tmp";
  Run run = RunOnCpu0("disk", o);
  CheckRan(run, "disk");
  CHECK(run.report.ops > 0);
  CHECK(run.report.bytes == run.report.ops * (256 << 10));
  if (TakesODirect(o.disk_dir)) {
    CHECK_THAT(run.report.detail, Catch::EndsWith("; O_DIRECT"));
  } else {
    CHECK_THAT(run.report.detail, Catch::Contains("O_DIRECT refused"));
  }
}

TEST_CASE("disk load on tmpfs says which write mode the kernel gave it", "[latency][load]") {
  // tmpfs refused O_DIRECT (EINVAL) until Linux 6.6 and takes it since: the report must
  // agree with the kernel either way.
  BuiltinLoadOptions o = SmallOptions();
  o.disk_dir = "/dev/shm";
  Run run = RunOnCpu0("disk", o);
  CheckRan(run, "disk");
  if (TakesODirect(o.disk_dir)) {
    CHECK_THAT(run.report.detail, Catch::EndsWith("; O_DIRECT"));
  } else {
    CHECK_THAT(run.report.detail,
               Catch::Contains("buffered writes + fdatasync (O_DIRECT refused: Invalid argument)"));
  }
}

// The fallback on a file system that refuses O_DIRECT is covered by the /dev/shm case above
// on kernels before 6.6 (the Debian 6.1 kernels of tests/qemu); tests never mount anything
// on the machine they run on.

TEST_CASE("network load moves loopback traffic on CPU 0", "[latency][load]") {
  SECTION("tcp") {
    Run run = RunOnCpu0("network", SmallOptions());
    CheckRan(run, "network");
    CHECK(run.report.ops > 0);
    CHECK(run.report.bytes > (1u << 20));
    CHECK_THAT(run.report.detail, Catch::Contains("TCP") && Catch::Contains("127.0.0.1"));
  }
  SECTION("udp") {
    BuiltinLoadOptions o = SmallOptions();
    o.network_udp = true;
    Run run = RunOnCpu0("network", o);
    CheckRan(run, "network");
    CHECK(run.report.ops > 0);
    CHECK_THAT(run.report.detail, Catch::Contains("UDP"));
  }
}

TEST_CASE("memory load faults, fragments and unmaps regions on CPU 0", "[latency][load]") {
  Run run = RunOnCpu0("memory", SmallOptions());
  CheckRan(run, "memory");
  CHECK(run.report.ops_unit == "pages");
  CHECK(run.report.ops >= 4096);  // at least one 16 MiB region faulted in
  CHECK_THAT(run.report.detail, Catch::Contains("16 MiB regions per worker; THP enabled="));
}

// ---- Error paths: what a user sees when a built-in load cannot start or stops on its own.
// A size past any process's address space (2^60 bytes: x86-64 and arm64 give a process at
// most 2^57) makes mmap fail with ENOMEM on every machine, whatever its memory or overcommit.
// The errno is said once: the load's words wrap the mapping's error, they do not add its errno again.
namespace {

constexpr uint64_t kPastAddressSpace = 1ull << 60;

// Start on CPU 0 must fail; the error, with nothing left running.
Error StartFails(const std::string& name, const BuiltinLoadOptions& o) {
  FsRoot live("/");
  auto load = MakeBuiltinLoad(name, o, live);
  REQUIRE(load.ok());
  std::vector<int> before = load_test::MyChildren();
  auto started = (*load)->Start(CpuSet::Of({0}));
  REQUIRE_FALSE(started.ok());
  CHECK_FALSE((*load)->Running());
  CHECK(load_test::MyChildren() == before);
  return started.error();
}

}  // namespace

TEST_CASE("a cache load whose buffer cannot be mapped fails Start with its size and errno", "[latency][load]") {
  BuiltinLoadOptions o = SmallOptions();
  o.cache_buffer_bytes = kPastAddressSpace;
  o.memory_limit_bytes = kPastAddressSpace;
  Error e = StartFails("cache", o);
  CHECK(e.err == ENOMEM);
  CHECK_THAT(e.message, Catch::Equals("cache load: cannot map 1099511627776 MiB: Cannot allocate memory"));
}

TEST_CASE("a memory load whose limit leaves less than two huge pages a region is refused at Start", "[latency][load]") {
  BuiltinLoadOptions o = SmallOptions();
  o.memory_limit_bytes = 4 << 20;  // the least MakeBuiltinLoad takes: 2 MiB a region, under 2 huge pages of 2 MiB
  o.workers = 1;
  Error e = StartFails("memory", o);
  CHECK(e.err == EINVAL);
  CHECK_THAT(e.message, Catch::StartsWith("memory load: the 4 MiB memory limit leaves less than ") &&
                            Catch::Contains(" per worker"));
}

TEST_CASE("a memory load that cannot map its region stops early and says why", "[latency][load]") {
  FsRoot live("/");
  BuiltinLoadOptions o = SmallOptions();
  o.memory_limit_bytes = kPastAddressSpace;
  o.workers = 1;
  auto load = MakeBuiltinLoad("memory", o, live);
  REQUIRE(load.ok());
  LoadSet set(live, 50ms);
  set.Add(std::move(*load));
  REQUIRE(set.Start(CpuSet::Of({0}), CpuSet()).ok());  // it maps after it said it started
  for (int i = 0; i < 500 && set.EndedEarly().empty(); ++i) std::this_thread::sleep_for(10ms);
  set.Stop();
  LoadReport r = set.Reports().at(0);
  CHECK(r.ended_early);
  REQUIRE_FALSE(r.errors.empty());
  CHECK_THAT(r.errors.front(), Catch::Equals("memory load: cannot map 549755813888 MiB: Cannot allocate memory"));
}

TEST_CASE("a disk load whose block cannot be mapped fails Start with its size", "[latency][load]") {
  TempTree t;
  BuiltinLoadOptions o = SmallOptions();
  o.disk_dir = t.dir();
  o.disk_block_bytes = kPastAddressSpace;
  o.disk_file_bytes = kPastAddressSpace;
  o.memory_limit_bytes = kPastAddressSpace;
  Error e = StartFails("disk", o);
  CHECK(e.err == ENOMEM);
  CHECK_THAT(e.message, Catch::Equals("disk load: cannot map 1099511627776 MiB: Cannot allocate memory"));
}

TEST_CASE("a disk load whose directory went away before Start names the file it could not create", "[latency][load]") {
  TempTree t;
  t.Put("gone/.keep", "");
  BuiltinLoadOptions o = SmallOptions();
  o.disk_dir = t.dir() + "/gone";
  FsRoot live("/");
  auto load = MakeBuiltinLoad("disk", o, live);
  REQUIRE(load.ok());  // the directory was there when the load was made
  REQUIRE(::unlink((o.disk_dir + "/.keep").c_str()) == 0);
  REQUIRE(::rmdir(o.disk_dir.c_str()) == 0);
  std::vector<int> before = load_test::MyChildren();
  auto started = (*load)->Start(CpuSet::Of({0}));
  REQUIRE_FALSE(started.ok());
  CHECK(started.error().err == ENOENT);
  CHECK_THAT(started.error().message, Catch::StartsWith("disk load: cannot create " + o.disk_dir + "/rtagent-load-disk."));
  CHECK_FALSE((*load)->Running());
  CHECK(load_test::MyChildren() == before);
}

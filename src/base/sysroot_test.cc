#include "base/sysroot.h"

#include <catch2/catch.hpp>
#include <cerrno>

#include "base/fault_root.h"

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

TEST_CASE("OpenRoot refuses what is not a directory", "[base]") {
  TempTree t;
  t.Put("file", "x");
  CHECK(OpenRoot(t.dir()).ok());
  auto r = OpenRoot(t.dir() + "/file");
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message, Catch::Contains("not a directory"));
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

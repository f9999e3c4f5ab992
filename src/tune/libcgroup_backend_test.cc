// The libcgroup backend: it refuses any root but the running system, and on the running
// system it reads what the kernel shows (reading changes nothing, so no live-state lock).
// Its writes on this machine are exercised by the partitions [host] test.
#include "tune/libcgroup_backend.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>

#include "base/fault_root.h"
#include "base/skip_test_support.h"

using namespace rtagent;

TEST_CASE("libcgroup refuses any root but the running system", "[tune][partitions]") {
  TempTree tree(std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/arm64-rt-8cpu");
  FaultRoot root(tree.dir());
  auto h = FindCpusetHierarchy(root);
  REQUIRE(h.ok());
  auto lib = MakeLibcgroupBackend(root, &root, *h);
  REQUIRE_FALSE(lib.ok());
  CHECK(lib.error().err == EINVAL);
  CHECK_THAT(lib.error().message, Catch::Contains(tree.dir() + " is not it"));
}

TEST_CASE("libcgroup reads this machine's top cpuset and this process's cgroup, planning writes nothing",
          "[tune][partitions][host]") {
  FsRoot live("/");
  auto h = FindCpusetHierarchy(live);
  if (!h) {
    RTAGENT_SKIP(h.error().message);
  }
  auto made = MakeLibcgroupBackend(live, nullptr, *h);
  REQUIRE(made.ok());
  CgroupBackend& be = **made;
  CHECK(be.Exists("/"));
  const std::string cpus_file = h->Cpuset(kpath::kCpusetCpus);
  CHECK(be.Get("/", cpus_file).value() == live.ReadTrimmed(h->CgroupPath("/") + "/" + cpus_file).value());
  auto mine = be.CgroupOf(::getpid());
  REQUIRE(mine.ok());
  CHECK(mine->front() == '/');
  CHECK(be.Exists(*mine));
  CHECK(be.CgroupOf(-1).error().err == ESRCH);
  CHECK(be.Create("/rtagent-never").error().err == EROFS);
  CHECK(be.Set("/", cpus_file, "0").error().err == EROFS);
  CHECK(be.Move(::getpid(), "/").error().err == EROFS);
  CHECK_FALSE(be.Exists("/rtagent-never"));
}

TEST_CASE("libcgroup names the cgroup and the file it could not write, and writes nothing elsewhere",
          "[tune][partitions][host]") {
  // Writes to a cgroup that does not exist: refused by the kernel's files, nothing changes.
  FsRoot live("/");
  auto h = FindCpusetHierarchy(live);
  if (!h) {
    RTAGENT_SKIP(h.error().message);
  }
  if (::geteuid() != 0) {
    RTAGENT_SKIP("needs root: libcgroup's writes");
  }
  auto made = MakeLibcgroupBackend(live, &live, *h);
  REQUIRE(made.ok());
  CgroupBackend& be = **made;
  REQUIRE_FALSE(be.Exists("/rtagent-never"));
  const std::string cpus_file = h->Cpuset(kpath::kCpusetCpus);
  auto set = be.Set("/rtagent-never", cpus_file, "0");
  REQUIRE_FALSE(set.ok());
  CHECK(set.error().err == ENOENT);
  CHECK_THAT(set.error().message, Catch::StartsWith("libcgroup: write \"0\" to " + cpus_file + " of /rtagent-never"));
  auto mine = be.CgroupOf(::getpid());
  REQUIRE(mine.ok());
  auto move = be.Move(::getpid(), "/rtagent-never");
  REQUIRE_FALSE(move.ok());
  CHECK(move.error().err == ENOENT);
  CHECK_THAT(move.error().message,
             Catch::StartsWith("libcgroup: move process " + std::to_string(::getpid()) + " to /rtagent-never"));
  CHECK(be.CgroupOf(::getpid()).value() == *mine);
  CHECK_FALSE(be.Exists("/rtagent-never"));
}

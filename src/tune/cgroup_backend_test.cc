// Which cgroup backend a root gets: the file twin for a fixture tree, never libcgroup, which
// reads the running system's mounts whatever the root.
#include "tune/cgroup_backend.h"

#include <catch2/catch.hpp>
#include <cerrno>

#include "base/fault_root.h"
#include "tune/file_cgroup_backend.h"
#include "tune/libcgroup_backend.h"

using namespace rtagent;

TEST_CASE("a fixture root gets the file twin; libcgroup refuses any root but the running system", "[tune][partitions]") {
  TempTree tree(std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/arm64-rt-8cpu");
  FaultRoot root(tree.dir());
  auto h = FindCpusetHierarchy(root);
  REQUIRE(h.ok());
  for (SysRoot* writes : {static_cast<SysRoot*>(nullptr), static_cast<SysRoot*>(&root)}) {
    auto be = DefaultCgroupFactory()(root, writes, *h);
    REQUIRE(be.ok());
    CHECK(dynamic_cast<FileCgroupBackend*>(be->get()) != nullptr);
    CHECK((*be)->Get("/rt", "cpuset.cpus.partition").value() == "isolated");
  }
  auto lib = MakeLibcgroupBackend(root, &root, *h);
  REQUIRE_FALSE(lib.ok());
  CHECK(lib.error().err == EINVAL);
  CHECK_THAT(lib.error().message, Catch::Contains("is not it"));
}

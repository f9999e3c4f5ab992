// Which cgroup backend a root gets: the file twin for a fixture tree, never libcgroup, which
// reads the running system's mounts whatever the root (libcgroup_backend_test.cc).
#include "tune/cgroup_backend.h"

#include <catch2/catch.hpp>

#include "base/fault_root.h"
#include "tune/file_cgroup_backend.h"

using namespace rtagent;

TEST_CASE("a fixture root gets the file twin, for planning and for applying", "[tune][partitions]") {
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
}

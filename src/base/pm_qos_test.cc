// The PM QoS lease: held while it lives, given back on every path, never the real device
// under a fixture root.
#include "base/pm_qos.h"

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "base/tree_test_support.h"

using namespace rtagent;

namespace {
struct Board {
  TempTree tree;
  Board() { tree.Put(kpath::kCpuDmaLatency, "2000000000\n"); }
};
}  // namespace

TEST_CASE("the fixture twin holds the note in the tree and gives the old value back", "[base][pm_qos]") {
  Board b;
  FaultRoot root(b.tree.dir());
  {
    PmQosLease lease(MakeQosDevice(root));
    CHECK_FALSE(lease.Held());
    REQUIRE(lease.Acquire(0).ok());
    CHECK(lease.Held());
    CHECK(lease.value_us() == 0);
    CHECK(b.tree.Get(kpath::kCpuDmaLatency) == "0\n");
    // Changing the value keeps the lease; release gives back what was there before the first.
    REQUIRE(lease.Acquire(15).ok());
    CHECK(b.tree.Get(kpath::kCpuDmaLatency) == "15\n");
    lease.Release();
    CHECK_FALSE(lease.Held());
    CHECK(b.tree.Get(kpath::kCpuDmaLatency) == "2000000000\n");
    lease.Release();  // idempotent
    REQUIRE(lease.Acquire(5).ok());
  }  // the destructor gives it back
  CHECK(b.tree.Get(kpath::kCpuDmaLatency) == "2000000000\n");
}

TEST_CASE("a moved lease is given back once, by its new owner", "[base][pm_qos]") {
  Board b;
  FaultRoot root(b.tree.dir());
  PmQosLease outer;
  {
    PmQosLease inner(MakeQosDevice(root));
    REQUIRE(inner.Acquire(0).ok());
    outer = std::move(inner);
  }
  CHECK(outer.Held());
  CHECK(b.tree.Get(kpath::kCpuDmaLatency) == "0\n");
  outer = PmQosLease();
  CHECK(b.tree.Get(kpath::kCpuDmaLatency) == "2000000000\n");
}

TEST_CASE("a lease that cannot be taken holds nothing and says why", "[base][pm_qos]") {
  Board b;
  FaultRoot root(b.tree.dir());
  SECTION("the device refuses the write") {
    root.FailWrites(kpath::kCpuDmaLatency, EACCES);
    PmQosLease lease(MakeQosDevice(root));
    auto r = lease.Acquire(0);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().err == EACCES);
    CHECK_FALSE(lease.Held());
  }
  SECTION("the device is missing, for the fixture twin and the kernel device alike") {
    TempTree empty;
    FaultRoot bare(empty.dir());
    std::vector<std::unique_ptr<QosDevice>> devices;
    devices.push_back(MakeQosDevice(bare));
    devices.push_back(MakeKernelQosDevice(bare));
    for (auto& device : devices) {
      PmQosLease lease(std::move(device));
      auto r = lease.Acquire(0);
      REQUIRE_FALSE(r.ok());
      CHECK(r.error().err == ENOENT);
      CHECK_THAT(r.error().message, Catch::Contains("cpu_dma_latency"));
    }
  }
  SECTION("a negative value") {
    PmQosLease lease(MakeQosDevice(root));
    CHECK_FALSE(lease.Acquire(-1).ok());
  }
  SECTION("no device") {
    PmQosLease lease;
    CHECK_FALSE(lease.Acquire(0).ok());
  }
  CHECK(b.tree.Get(kpath::kCpuDmaLatency) == "2000000000\n");
}

TEST_CASE("the kernel device writes the value as 4 raw bytes and keeps the fd", "[base][pm_qos]") {
  // A regular file stands in for the character device: the bytes written are what the
  // kernel's cpu_latency_qos_write() would receive.
  TempTree t;
  t.Put(kpath::kCpuDmaLatency, "");
  FsRoot root(t.dir());
  auto dev = MakeKernelQosDevice(root);
  CHECK_THAT(dev->Where(), Catch::EndsWith("/dev/cpu_dma_latency"));
  PmQosLease lease(std::move(dev));
  REQUIRE(lease.Acquire(7).ok());
  std::string bytes = t.Get(kpath::kCpuDmaLatency);
  REQUIRE(bytes.size() == 4);
  int32_t v = 0;
  std::memcpy(&v, bytes.data(), 4);
  CHECK(v == 7);
  // A change goes to the same fd (appended here; the device replaces its request).
  REQUIRE(lease.Acquire(3).ok());
  CHECK(t.Get(kpath::kCpuDmaLatency).size() == 8);
  lease.Release();
  CHECK_FALSE(lease.Held());
}

TEST_CASE("the kernel device that refuses the value holds no new note and keeps the one it held", "[base][pm_qos]") {
  // A regular file stands in for the device; a file size limit makes its write(2) fail (EFBIG).
  TempTree t;
  t.Put(kpath::kCpuDmaLatency, "");
  FsRoot root(t.dir());
  PmQosLease fresh(MakeKernelQosDevice(root));
  Result<void> refused = Ok();
  {
    test::FileSizeLimit limit(0);
    refused = fresh.Acquire(7);
  }
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().err == EFBIG);
  CHECK_THAT(refused.error().message, Catch::StartsWith("cannot write 7 to " + t.dir() + "/dev/cpu_dma_latency: "));
  CHECK_FALSE(fresh.Held());
  CHECK(t.Get(kpath::kCpuDmaLatency).empty());

  // Held already: a change the device refuses leaves the note it holds, fd and value.
  PmQosLease held(MakeKernelQosDevice(root));
  REQUIRE(held.Acquire(7).ok());
  Result<void> change = Ok();
  {
    test::FileSizeLimit limit(4);
    change = held.Acquire(3);
  }
  REQUIRE_FALSE(change.ok());
  CHECK(change.error().err == EFBIG);
  CHECK_THAT(change.error().message, Catch::StartsWith("cannot write 3 to " + t.dir() + "/dev/cpu_dma_latency: "));
  CHECK(held.Held());
  CHECK(held.value_us() == 7);
  REQUIRE(held.Acquire(5).ok());  // the same fd still takes a value
  CHECK(t.Get(kpath::kCpuDmaLatency).size() == 8);
}

TEST_CASE("the fixture twin gives back a captured device's 4 raw bytes as they were", "[base][pm_qos]") {
  // What `rtagent capture` copies from the running system: the kernel's s32 in host order.
  TempTree tree;
  const int32_t kernel_value = 2000000000;
  const std::string raw(reinterpret_cast<const char*>(&kernel_value), sizeof kernel_value);
  tree.Put(kpath::kCpuDmaLatency, raw);
  FaultRoot root(tree.dir());
  {
    PmQosLease lease(MakeQosDevice(root));
    REQUIRE(lease.Acquire(20).ok());
    CHECK(tree.Get(kpath::kCpuDmaLatency) == "20\n");
  }
  CHECK(tree.Get(kpath::kCpuDmaLatency) == raw);
}

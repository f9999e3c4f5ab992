#include "inspect/clock.h"

#include <catch2/catch.hpp>

using namespace rtagent;

TEST_CASE("the hypervisor CPU flag", "[inspect]") {
  CHECK(CpuinfoHasHypervisorFlag("processor\t: 0\nflags\t\t: fpu vme hypervisor lahf_lm\n"));
  CHECK_FALSE(CpuinfoHasHypervisorFlag("processor\t: 0\nflags\t\t: fpu vme lahf_lm\n"));
  CHECK_FALSE(CpuinfoHasHypervisorFlag("processor\t: 0\nFeatures\t: fp asimd\n"));  // arm64 has none
}

TEST_CASE("virtual machine names in DMI and device trees", "[inspect]") {
  CHECK(NamesVirtualMachine("QEMU Standard PC (Q35 + ICH9, 2009)"));
  CHECK(NamesVirtualMachine("VMware, Inc. VMware Virtual Platform"));
  CHECK(NamesVirtualMachine("Microsoft Corporation Virtual Machine"));
  CHECK(NamesVirtualMachine("linux,dummy-virt"));
  CHECK_FALSE(NamesVirtualMachine("Advantech UNO-2484G"));
  CHECK_FALSE(NamesVirtualMachine("Radxa ROCK 5 Model B"));
}

// Clock honesty: the clocksource, and whether a hypervisor sits under the kernel.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/sysroot.h"

namespace rtagent {

/// The evidence for a hypervisor underneath (a virtual machine's latency figures are not
/// the board's real-time figures).
struct HypervisorInfo {
  bool present = false;
  std::vector<std::string> evidence;  ///< one line per fact that says so
  bool cpuinfo_flag = false;          ///< x86 "hypervisor" CPUID flag in cpuinfo
  std::optional<std::string> type;    ///< sys/hypervisor/type (Xen)
  std::optional<std::string> dmi_sys_vendor;
  std::optional<std::string> dmi_product_name;
  std::optional<std::string> device_tree_model;
};

/// What inspect's "clock" section shows.
struct ClockState {
  std::optional<std::string> clocksource;  ///< current_clocksource
  std::vector<std::string> available;      ///< available_clocksource
  HypervisorInfo hypervisor;
};

/// True when cpuinfo's first "flags" line holds the "hypervisor" flag (x86 CPUID leaf 1,
/// ECX bit 31, set by every mainstream hypervisor).
bool CpuinfoHasHypervisorFlag(std::string_view cpuinfo);

/// True when a DMI vendor/product or device-tree model names a virtual machine
/// ("QEMU", "KVM", "VMware", "VirtualBox", "Amazon EC2", "linux,dummy-virt", ...).
bool NamesVirtualMachine(std::string_view text);

/// Reads the clock section. `cpuinfo` is proc/cpuinfo's text, read once by the caller.
ClockState CollectClock(const SysRoot& root, std::string_view cpuinfo);

}  // namespace rtagent

#include "inspect/clock.h"

#include <algorithm>
#include <cctype>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"

namespace rtagent {
namespace {

std::optional<std::string> ReadText(const SysRoot& root, const std::string& path) {
  auto r = root.Read(path);
  if (!r) return std::nullopt;
  std::string t = Trim(*r);  // device-tree strings end with a NUL
  if (t.empty()) return std::nullopt;
  return t;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

bool CpuinfoHasHypervisorFlag(std::string_view cpuinfo) {
  for (auto line : SplitLines(cpuinfo)) {
    if (line.substr(0, 5) != "flags") continue;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    auto flags = SplitWs(line.substr(colon + 1));
    return std::find(flags.begin(), flags.end(), "hypervisor") != flags.end();
  }
  return false;
}

bool NamesVirtualMachine(std::string_view text) {
  static const char* const kNames[] = {"qemu",        "kvm",          "vmware",      "virtualbox",
                                       "innotek",     "xen",          "hvm domu",    "virtual machine",
                                       "amazon ec2",  "google compute engine", "bochs", "parallels",
                                       "openstack",   "cloud hypervisor",      "firecracker", "bhyve",
                                       "dummy-virt",  "acrn"};
  std::string t = Lower(text);
  for (const char* n : kNames) {
    if (t.find(n) != std::string::npos) return true;
  }
  return false;
}

ClockState CollectClock(const SysRoot& root, std::string_view cpuinfo) {
  ClockState c;
  c.clocksource = ReadText(root, kpath::kCurrentClocksource);
  if (auto avail = ReadText(root, kpath::kAvailableClocksource)) {
    for (auto w : SplitWs(*avail)) c.available.emplace_back(w);
  }
  HypervisorInfo& h = c.hypervisor;
  h.cpuinfo_flag = CpuinfoHasHypervisorFlag(cpuinfo);
  if (h.cpuinfo_flag) h.evidence.push_back("cpuinfo has the \"hypervisor\" CPU flag");
  h.type = ReadText(root, kpath::kHypervisorType);
  if (h.type) h.evidence.push_back(kpath::kHypervisorType + " is \"" + *h.type + "\"");
  h.dmi_sys_vendor = ReadText(root, kpath::kDmiSysVendor);
  h.dmi_product_name = ReadText(root, kpath::kDmiProductName);
  std::string dmi = h.dmi_sys_vendor.value_or("") + " " + h.dmi_product_name.value_or("");
  if (NamesVirtualMachine(dmi)) h.evidence.push_back("DMI names a virtual machine: \"" + Trim(dmi) + "\"");
  h.device_tree_model = ReadText(root, kpath::kDeviceTreeModel);
  if (h.device_tree_model && NamesVirtualMachine(*h.device_tree_model)) {
    h.evidence.push_back("device-tree model names a virtual machine: \"" + *h.device_tree_model + "\"");
  }
  // A clocksource only hypervisors provide is evidence too.
  if (c.clocksource && (*c.clocksource == "kvm-clock" || *c.clocksource == "xen" || *c.clocksource == "hyperv_clocksource_tsc_page")) {
    h.evidence.push_back("the clocksource is " + *c.clocksource);
  }
  h.present = !h.evidence.empty();
  return c;
}

}  // namespace rtagent

#include "profile/model.h"

namespace rtagent::profile {

bool Regex::Matches(const std::string& text) const {
  return compiled != nullptr && std::regex_match(text, *compiled);
}

std::string KernelVersion::ToString() const {
  std::string s = std::to_string(major) + "." + std::to_string(minor);
  if (patch != 0) s += "." + std::to_string(patch);
  return s;
}

const RankRule* Profile::FindRank(const std::string& rank_name) const {
  for (const RankRule& r : ranks.rules) {
    if (r.name == rank_name) return &r;
  }
  return nullptr;
}

// Documentation/admin-guide/kernel-parameters.txt (isolcpus=), sched(7), cgroup-v2.rst
// (cpuset.cpus.partition); the rest are rtagent's own words (docs/profile.md).
const std::vector<std::string> kBootloaderNames = {"auto", "grub", "extlinux", "rpi", "bls", "kernel-install", "print"};
const std::vector<std::string> kIsolcpusFlagNames = {"nohz", "domain", "managed_irq"};
const std::vector<std::string> kPolicyNames = {"fifo", "rr", "other", "batch", "idle", "deadline"};
const std::vector<std::string> kPartitionTypeNames = {"isolated", "root"};
const std::vector<std::string> kPreemptRtNames = {"required", "preferred", "any"};
const std::vector<std::string> kSafetyNetNames = {"keep", "isolated_only", "any"};
const std::vector<std::string> kBuiltinLoadNames = {"cache", "messaging", "disk", "network", "memory"};
const std::vector<std::string> kOnStopNames = {"keep", "revert"};
const std::vector<std::string> kIrqbalanceModeNames = {"ban", "stop", "leave"};
const std::vector<std::string> kExplainWhenNames = {"on-breach", "always", "off"};

namespace {
template <typename E>
std::string NameOf(const std::vector<std::string>& names, E v) {
  auto i = static_cast<size_t>(v);
  return i < names.size() ? names[i] : "?";
}
}  // namespace

std::string ToString(BootloaderType v) { return NameOf(kBootloaderNames, v); }
std::string ToString(IsolcpusFlag v) { return NameOf(kIsolcpusFlagNames, v); }
std::string ToString(Policy v) { return NameOf(kPolicyNames, v); }
std::string ToString(PartitionType v) { return NameOf(kPartitionTypeNames, v); }
std::string ToString(PreemptRtRequirement v) { return NameOf(kPreemptRtNames, v); }
std::string ToString(SafetyNetExpectation v) { return NameOf(kSafetyNetNames, v); }
std::string ToString(BuiltinLoad v) { return NameOf(kBuiltinLoadNames, v); }
std::string ToString(OnStop v) { return NameOf(kOnStopNames, v); }
std::string ToString(IrqbalanceMode v) { return NameOf(kIrqbalanceModeNames, v); }
std::string ToString(ExplainWhen v) { return NameOf(kExplainWhenNames, v); }

std::string DefaultBootloaderPath(BootloaderType type) {
  // Relative to the system root, like every file rtagent touches (--root).
  switch (type) {
    case BootloaderType::kGrub: return "etc/default/grub.d/90-rtagent.cfg";  // then update-grub
    case BootloaderType::kExtlinux: return "boot/extlinux/extlinux.conf";    // Jetson, U-Boot boards
    case BootloaderType::kRpi: return "boot/firmware/cmdline.txt";          // Raspberry Pi OS bookworm
    case BootloaderType::kBls: return "boot/loader/entries";                // systemd-boot entries
    case BootloaderType::kKernelInstall: return "etc/kernel/cmdline";        // then kernel-install
    case BootloaderType::kAuto:
    case BootloaderType::kPrint: return "";
  }
  return "";
}

std::vector<std::string> BootArguments(const Profile& p) {
  std::vector<std::string> args;
  const BootConfig& b = p.cores.boot;
  const CpuSet& isolated = p.cores.isolated->cpus;
  if (b.isolcpus->has_value() && !isolated.Empty()) {
    std::string a = "isolcpus=";
    for (IsolcpusFlag f : **b.isolcpus) a += ToString(f) + ",";
    args.push_back(a + isolated.ToList());
  }
  auto cpu_arg = [&](const char* key, const Marked<BootCpuArg>& arg) {
    if (arg->enabled && !arg->cpus.cpus.Empty()) args.push_back(std::string(key) + "=" + arg->cpus.cpus.ToList());
  };
  cpu_arg("nohz_full", b.nohz_full);
  cpu_arg("rcu_nocbs", b.rcu_nocbs);
  // rcu_nocb_poll only means something when callbacks are offloaded.
  if (*b.rcu_nocb_poll && b.rcu_nocbs->enabled && !b.rcu_nocbs->cpus.cpus.Empty()) args.push_back("rcu_nocb_poll");
  cpu_arg("irqaffinity", b.irqaffinity);
  cpu_arg("kthread_cpus", b.kthread_cpus);
  if (*b.skew_tick && !isolated.Empty()) args.push_back("skew_tick=1");
  for (const std::string& e : *b.extra) args.push_back(e);
  return args;
}

std::string Summary(const Profile& p) {
  int n = p.system.online.Count();
  std::string isolated = p.cores.isolated->cpus.Empty() ? "none" : p.cores.isolated->cpus.ToList();
  return std::to_string(n) + (n == 1 ? " CPU" : " CPUs") + ": housekeeping " + p.cores.housekeeping->cpus.ToList() +
         ", isolated " + isolated;
}

}  // namespace rtagent::profile

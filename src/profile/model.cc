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

long long AcceptanceConfig::WakeupsIn(Duration run) const {
  if (*interval_us <= 0) return 0;
  return run / std::chrono::microseconds(*interval_us);
}

Duration AcceptanceConfig::DurationForMinSamples() const {
  // In long double: 10^15 samples at 10 ms is more nanoseconds than a Duration holds.
  const long double ns = static_cast<long double>(*interval_us) * 1000.0L * static_cast<long double>(*min_samples);
  if (ns >= static_cast<long double>(Duration::max().count())) return Duration::max();
  return Duration(static_cast<Duration::rep>(ns));
}

const RankRule* Profile::FindRank(const std::string& rank_name) const {
  for (const RankRule& r : ranks.rules) {
    if (r.name == rank_name) return &r;
  }
  return nullptr;
}

// Documentation/admin-guide/kernel-parameters.txt (isolcpus=), sched(7), cgroup-v2.rst
// (cpuset.cpus.partition); the rest are rtagent's own words (docs/profile.md).
const std::vector<std::string>& BootloaderNames() {
  static const std::vector<std::string> k = {"auto", "grub", "extlinux", "rpi", "bls", "kernel-install", "print"};
  return k;
}
const std::vector<std::string>& IsolcpusFlagNames() {
  static const std::vector<std::string> k = {"nohz", "domain", "managed_irq"};
  return k;
}
const std::vector<std::string>& PolicyNames() {
  static const std::vector<std::string> k = {"fifo", "rr", "other", "batch", "idle", "deadline"};
  return k;
}
const std::vector<std::string>& PartitionTypeNames() {
  static const std::vector<std::string> k = {"isolated", "root"};
  return k;
}
const std::vector<std::string>& PreemptRtNames() {
  static const std::vector<std::string> k = {"required", "preferred", "any"};
  return k;
}
const std::vector<std::string>& SafetyNetNames() {
  static const std::vector<std::string> k = {"keep", "isolated_only", "any"};
  return k;
}
const std::vector<std::string>& BuiltinLoadChoices() {
  static const std::vector<std::string> k = {"cache", "messaging", "disk", "network", "memory"};
  return k;
}
const std::vector<std::string>& OnStopNames() {
  static const std::vector<std::string> k = {"keep", "revert"};
  return k;
}
const std::vector<std::string>& IrqbalanceModeNames() {
  static const std::vector<std::string> k = {"ban", "stop", "leave"};
  return k;
}
const std::vector<std::string>& ExplainWhenNames() {
  static const std::vector<std::string> k = {"on-breach", "always", "off"};
  return k;
}

namespace {
template <typename E>
std::string NameOf(const std::vector<std::string>& names, E v) {
  auto i = static_cast<size_t>(v);
  return i < names.size() ? names[i] : "?";
}
}  // namespace

std::string ToString(BootloaderType v) { return NameOf(BootloaderNames(), v); }
std::string ToString(IsolcpusFlag v) { return NameOf(IsolcpusFlagNames(), v); }
std::string ToString(Policy v) { return NameOf(PolicyNames(), v); }
std::string ToString(PartitionType v) { return NameOf(PartitionTypeNames(), v); }
std::string ToString(PreemptRtRequirement v) { return NameOf(PreemptRtNames(), v); }
std::string ToString(SafetyNetExpectation v) { return NameOf(SafetyNetNames(), v); }
std::string ToString(BuiltinLoad v) { return NameOf(BuiltinLoadChoices(), v); }
std::string ToString(OnStop v) { return NameOf(OnStopNames(), v); }
std::string ToString(IrqbalanceMode v) { return NameOf(IrqbalanceModeNames(), v); }
std::string ToString(ExplainWhen v) { return NameOf(ExplainWhenNames(), v); }

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

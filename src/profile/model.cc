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

std::string ToString(BootloaderType v) {
  switch (v) {
    case BootloaderType::kAuto: return "auto";
    case BootloaderType::kGrub: return "grub";
    case BootloaderType::kExtlinux: return "extlinux";
    case BootloaderType::kRpi: return "rpi";
    case BootloaderType::kBls: return "bls";
    case BootloaderType::kKernelInstall: return "kernel-install";
    case BootloaderType::kPrint: return "print";
  }
  return "?";
}

std::string ToString(IsolcpusFlag v) {
  switch (v) {
    case IsolcpusFlag::kNohz: return "nohz";
    case IsolcpusFlag::kDomain: return "domain";
    case IsolcpusFlag::kManagedIrq: return "managed_irq";
  }
  return "?";
}

std::string ToString(Policy v) {
  switch (v) {
    case Policy::kFifo: return "fifo";
    case Policy::kRr: return "rr";
    case Policy::kOther: return "other";
    case Policy::kBatch: return "batch";
    case Policy::kIdle: return "idle";
    case Policy::kDeadline: return "deadline";
  }
  return "?";
}

std::string ToString(PartitionType v) { return v == PartitionType::kIsolated ? "isolated" : "root"; }

std::string ToString(PreemptRtRequirement v) {
  switch (v) {
    case PreemptRtRequirement::kRequired: return "required";
    case PreemptRtRequirement::kPreferred: return "preferred";
    case PreemptRtRequirement::kAny: return "any";
  }
  return "?";
}

std::string ToString(SafetyNetExpectation v) {
  switch (v) {
    case SafetyNetExpectation::kKeep: return "keep";
    case SafetyNetExpectation::kIsolatedOnly: return "isolated_only";
    case SafetyNetExpectation::kAny: return "any";
  }
  return "?";
}

std::string ToString(BuiltinLoad v) {
  switch (v) {
    case BuiltinLoad::kCache: return "cache";
    case BuiltinLoad::kMessaging: return "messaging";
    case BuiltinLoad::kDisk: return "disk";
    case BuiltinLoad::kNetwork: return "network";
    case BuiltinLoad::kMemory: return "memory";
  }
  return "?";
}

std::string ToString(OnStop v) { return v == OnStop::kKeep ? "keep" : "revert"; }

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

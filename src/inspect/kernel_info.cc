#include "inspect/kernel_info.h"

#include <cctype>
#include <climits>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"

namespace rtagent {
namespace {

std::optional<std::string> ReadText(const SysRoot& root, const std::string& path) {
  auto r = root.ReadTrimmed(path);
  if (!r) return std::nullopt;
  return *r;
}

std::optional<long long> ReadNumber(const SysRoot& root, const std::string& path) {
  auto r = root.Read(path);
  if (!r) return std::nullopt;
  return ParseInt(*r);
}

// proc/sys/kernel/arch appeared in Linux 6.1; before that, cpuinfo's layout tells the
// two architectures rtagent targets apart.
std::optional<std::string> GuessArch(std::string_view cpuinfo) {
  if (cpuinfo.find("\nflags\t") != std::string_view::npos || cpuinfo.find("vendor_id\t") != std::string_view::npos) {
    return "x86_64";
  }
  if (cpuinfo.find("CPU implementer") != std::string_view::npos) return "aarch64";
  return std::nullopt;
}

void DecideSafetyNet(const SysRoot& root, const CpuSet& online, const KernelInfo& k, SafetyNet* net) {
  net->rt_runtime_us = ReadNumber(root, kpath::kSchedRtRuntime);
  net->rt_period_us = ReadNumber(root, kpath::kSchedRtPeriod);

  // The fair server lives in debugfs only (kernel/sched/debug.c, Linux 6.12+):
  // sched/fair_server/cpuN/{runtime,period}, in nanoseconds.
  // The first online CPU's runtime tells whether the directory is there at all; after that a
  // missing file is only a gap in that CPU's entry.
  int first_err = 0;
  for (int cpu : online.Cpus()) {
    auto runtime = root.Read(kpath::FairServerRuntime(cpu));
    if (!runtime && net->fair_server.empty()) {
      first_err = runtime.error().err;
      break;
    }
    net->fair_server.push_back({cpu, runtime ? ParseInt(*runtime) : std::nullopt,
                                ReadNumber(root, kpath::FairServerPeriod(cpu))});
  }
  bool since_612 = k.parsed && k.parsed->AtLeast(6, 12);
  if (!net->fair_server.empty()) {
    net->fair_server_state = "visible";
  } else if (first_err == EACCES || first_err == EPERM) {
    net->fair_server_state = "not_readable";
  } else {
    net->fair_server_state = since_612 ? "not_visible" : "absent";
  }

  if (net->fair_server_state == "visible") {
    bool any_on = false;
    for (const auto& f : net->fair_server) any_on |= f.runtime_ns.value_or(0) > 0;
    net->active = any_on ? "fair_server" : "none";
    net->reason = any_on ? "the fair server has a runtime on at least one CPU (debugfs sched/fair_server)"
                         : "every CPU's fair server runtime is 0: nothing keeps RT tasks from starving others";
    return;
  }
  if (since_612) {
    // 6.12 replaced RT throttling by the fair server; only CONFIG_RT_GROUP_SCHED kernels
    // still throttle the old way as well (lesson chapter 2).
    net->active = "fair_server";
    net->reason = net->fair_server_state == "not_readable"
                      ? "Linux 6.12+ has the fair server; its runtime is not readable (debugfs needs root)"
                      : "Linux 6.12+ has the fair server; mount debugfs to see its runtime per CPU";
    return;
  }
  if (!net->rt_runtime_us) {
    net->active = "unknown";
    net->reason = "sched_rt_runtime_us is not readable and the kernel predates the fair server";
  } else if (*net->rt_runtime_us < 0) {
    net->active = "none";
    net->reason = "sched_rt_runtime_us is -1: RT throttling is off";
  } else {
    net->active = "rt_throttling";
    net->reason = "kernel before 6.12: RT tasks may use sched_rt_runtime_us of every sched_rt_period_us";
  }
}

}  // namespace

std::optional<KernelVersion> ParseKernelRelease(std::string_view release) {
  KernelVersion v;
  int* parts[3] = {&v.major, &v.minor, &v.patch};
  size_t i = 0;
  int n = 0;
  for (; n < 3; ++n) {
    size_t b = i;
    int value = 0;
    while (i < release.size() && std::isdigit(static_cast<unsigned char>(release[i]))) {
      // A number past INT_MAX is no kernel version (it overflowed an int: fuzz/small_parsers_fuzz.cc).
      if (value > (INT_MAX - 9) / 10) return std::nullopt;
      value = value * 10 + (release[i] - '0');
      ++i;
    }
    if (i == b) break;
    *parts[n] = value;
    if (i >= release.size() || release[i] != '.') {
      ++n;
      break;
    }
    ++i;
  }
  if (n < 2) return std::nullopt;
  return v;
}

std::string ParsePreemptModel(std::string_view version) {
  auto words = SplitWs(version);
  bool preempt = false;
  for (size_t i = 0; i < words.size(); ++i) {
    std::string_view w = words[i];
    if (w == "PREEMPT_RT") return "PREEMPT_RT";
    if (w == "PREEMPT" && i + 1 < words.size() && words[i + 1] == "RT") return "PREEMPT_RT";  // pre-5.x RT patches
  }
  for (std::string_view w : words) {
    if (w == "PREEMPT_DYNAMIC") return "PREEMPT_DYNAMIC";
    if (w == "PREEMPT_LAZY") return "PREEMPT_LAZY";
    if (w == "PREEMPT") preempt = true;
  }
  return preempt ? "PREEMPT" : "";
}

KernelInfo CollectKernelInfo(const SysRoot& root, const CpuSet& online, std::string_view cpuinfo) {
  KernelInfo k;
  k.release = ReadText(root, kpath::kOsRelease);
  k.version = ReadText(root, kpath::kVersion);
  k.arch = ReadText(root, kpath::kArch);
  if (!k.arch) k.arch = GuessArch(cpuinfo);
  if (k.release) k.parsed = ParseKernelRelease(*k.release);
  if (k.version) k.preempt_model = ParsePreemptModel(*k.version);
  // Only PREEMPT_DYNAMIC kernels have this file, and only with debugfs mounted.
  if (auto mode = root.Read(kpath::kSchedPreempt)) k.preempt_dynamic_mode = ParseBracketChoice(*mode);
  k.realtime_sysfs = ReadNumber(root, kpath::kRealtime);
  k.preempt_rt = k.preempt_model == "PREEMPT_RT" || k.realtime_sysfs.value_or(0) == 1;
  DecideSafetyNet(root, online, k, &k.safety_net);
  return k;
}

}  // namespace rtagent

// The kernel check: is it the kernel the profile needs (PREEMPT_RT, a minimum version), and
// which RT safety net keeps real-time tasks from starving everything else (RT throttling
// before 6.12, the fair server after; lesson chapters 2 and 4). Everything comes from the
// kernel section collected once (inspect/kernel_info), nothing is read twice.
#include "base/kernel_paths.h"
#include "check/chapters.h"
#include "check/check.h"

namespace rtagent::check {
namespace {

const char* kName = "kernel";

CheckResult PreemptRt(const CheckEnv& env, const KernelInfo& k) {
  const auto& want = env.profile.kernel.preempt_rt;
  std::string measured = k.preempt_model.empty() ? "no preemption model in uname -v" : k.preempt_model;
  if (k.realtime_sysfs) measured += ", sys/kernel/realtime=" + std::to_string(*k.realtime_sysfs);
  std::string limit = "PREEMPT_RT " + profile::ToString(*want);
  CheckResult r;
  if (k.preempt_rt) {
    r = NewResult(kName, "kernel.preempt_rt", Status::kPass, "the kernel is PREEMPT_RT", kChapter4);
  } else if (!k.version && !k.realtime_sysfs) {
    r = NewResult(kName, "kernel.preempt_rt", *want == profile::PreemptRtRequirement::kAny ? Status::kPass : Status::kWarn,
                  "cannot tell the preemption model: uname -v (proc/sys/kernel/version) is not readable", kChapter4);
    if (r.status != Status::kPass) r.hint = "check that --root holds proc/sys/kernel/version";
  } else {
    switch (*want) {
      case profile::PreemptRtRequirement::kRequired:
        r = NewResult(kName, "kernel.preempt_rt", Status::kFail,
                      "the kernel is not PREEMPT_RT and the profile requires it", kChapter4);
        r.hint = "boot a PREEMPT_RT kernel (Debian: linux-image-rt-amd64 or linux-image-rt-arm64; mainline 6.12+ "
                 "with CONFIG_PREEMPT_RT=y); uname -v must show PREEMPT_RT";
        break;
      case profile::PreemptRtRequirement::kPreferred:
        r = NewResult(kName, "kernel.preempt_rt", Status::kWarn,
                      "the kernel is not PREEMPT_RT (preferred): its worst case under load is far longer", kChapter4);
        r.hint = "on a busy machine a stock kernel's worst wake-up can be a hundred times longer; install a "
                 "PREEMPT_RT kernel, or set kernel.preempt_rt: any to accept this one";
        break;
      case profile::PreemptRtRequirement::kAny:
        r = NewResult(kName, "kernel.preempt_rt", Status::kPass, "the kernel is not PREEMPT_RT; the profile accepts any",
                      kChapter4);
        break;
    }
  }
  r.measured = measured;
  r.limit = limit;
  r.mark = want.mark;
  return r;
}

CheckResult Version(const CheckEnv& env, const KernelInfo& k) {
  const auto& want = env.profile.kernel.min_version;
  std::string release = k.release.value_or("unknown");
  CheckResult r;
  if (!want->has_value()) {
    r = NewResult(kName, "kernel.version", Status::kPass, "kernel " + release + "; the profile sets no minimum",
                  kChapter4);
  } else if (!k.parsed) {
    r = NewResult(kName, "kernel.version", Status::kWarn,
                  "cannot read the kernel version (" + release + ") to compare with " + (*want)->ToString(), kChapter4);
    r.hint = "check proc/sys/kernel/osrelease";
  } else {
    profile::KernelVersion have{k.parsed->major, k.parsed->minor, k.parsed->patch};
    if (have >= **want) {
      r = NewResult(kName, "kernel.version", Status::kPass, "kernel " + release + " is at least " + (*want)->ToString(),
                    kChapter4);
    } else {
      r = NewResult(kName, "kernel.version", Status::kFail,
                    "kernel " + release + " is older than the profile's minimum " + (*want)->ToString(), kChapter4);
      r.hint = "boot a kernel " + (*want)->ToString() + " or later, or lower kernel.min_version";
    }
  }
  r.measured = release;
  r.limit = want->has_value() ? ">= " + (*want)->ToString() : "";
  r.mark = want.mark;
  return r;
}

// The CPUs where removing the safety net is tolerable: isolated by the profile or by the
// running kernel (isolcpus, nohz_full, an isolated partition). Chapter 2: "only on a core
// that runs the loop and nothing else".
CpuSet IsolatedCpus(const CheckEnv& env) {
  return env.profile.cores.isolated->cpus.Union(env.state.cpu_sets.isolated_all);
}

CheckResult SafetyNetResult(const CheckEnv& env, const KernelInfo& k) {
  const SafetyNet& net = k.safety_net;
  const auto& want = env.profile.kernel.rt_safety_net;
  using profile::SafetyNetExpectation;
  std::string measured;
  CpuSet off;  // CPUs without a safety net
  bool everywhere_off = false;
  if (net.fair_server_state == "visible") {
    for (const auto& f : net.fair_server) {
      if (f.runtime_ns && *f.runtime_ns == 0) off.Add(f.cpu);
    }
    measured = "fair server";
    if (!net.fair_server.empty() && net.fair_server.front().runtime_ns && net.fair_server.front().period_ns) {
      measured += " " + std::to_string(*net.fair_server.front().runtime_ns / 1000000) + " ms of every " +
                  std::to_string(*net.fair_server.front().period_ns / 1000000) + " ms";
    }
    measured += off.Empty() ? " on every CPU" : ", off on " + off.Named();
  } else if (net.active == "rt_throttling" || (net.active == "none" && net.rt_runtime_us)) {
    measured = "RT throttling: sched_rt_runtime_us=" + std::to_string(net.rt_runtime_us.value_or(0)) +
               " of sched_rt_period_us=" + std::to_string(net.rt_period_us.value_or(0));
    everywhere_off = net.rt_runtime_us && *net.rt_runtime_us < 0;
  } else {
    measured = net.active + ": " + net.reason;
  }

  CheckResult r;
  const std::string id = "kernel.safety_net";
  CpuSet isolated = IsolatedCpus(env);
  CpuSet online = env.state.cpu_sets.online.value_or(env.profile.system.online);
  CpuSet off_outside = everywhere_off ? online.Minus(isolated) : off.Minus(isolated);
  bool off_anywhere = everywhere_off || !off.Empty();
  if (net.active == "unknown" || (net.fair_server_state != "visible" && net.active == "fair_server" &&
                                  net.fair_server_state != "absent")) {
    // 6.12+ without debugfs: the fair server exists but its per-CPU runtime is unseen.
    r = NewResult(kName, id, *want == SafetyNetExpectation::kAny ? Status::kPass : Status::kWarn,
                  "cannot see whether the RT safety net is on: " + net.reason, kChapter2);
    if (r.status != Status::kPass) r.hint = "mount debugfs (mount -t debugfs none /sys/kernel/debug) and run as root";
  } else if (!off_anywhere) {
    r = NewResult(kName, id, Status::kPass,
                  net.active == "fair_server" ? "the fair server keeps 5% of every CPU for normal tasks"
                                              : "RT throttling keeps a slice of every second for normal tasks",
                  kChapter2);
  } else if (*want == SafetyNetExpectation::kAny) {
    r = NewResult(kName, id, Status::kPass, "the RT safety net is off on some CPUs; the profile accepts that",
                  kChapter2);
  } else if (!off_outside.Empty()) {
    r = NewResult(kName, id, Status::kFail,
                  "the RT safety net is off on " + off_outside.Named() +
                      ", which are not isolated: a runaway real-time loop there starves everything",
                  kChapter2);
    r.hint = everywhere_off ? "write 950000 to /" + kpath::kSchedRtRuntime + " (remove the sysctl that sets -1)"
                            : "give the fair server its runtime back on those CPUs (echo 50000000 > /" +
                                  kpath::FairServerRuntime(0) + ", for each CPU), or isolate them";
  } else if (*want == SafetyNetExpectation::kKeep) {
    r = NewResult(kName, id, Status::kWarn,
                  "the RT safety net is off on isolated CPUs " + off.ToList() + " but the profile says keep", kChapter2);
    r.hint = "set kernel.rt_safety_net: isolated_only if that is intended, or give the fair server its runtime back";
  } else {
    r = NewResult(kName, id, Status::kPass, "the RT safety net is off only on isolated CPUs " + off.ToList(),
                  kChapter2);
  }
  r.measured = measured;
  r.limit = "rt_safety_net: " + profile::ToString(*want);
  r.mark = want.mark;
  return r;
}

class KernelCheck : public Check {
 public:
  const CheckInfo& Info() const override {
    static const profile::CheckBlock<profile::Toggle> kSettings{kName, "PREEMPT_RT, version, safety net", {}};
    static const CheckInfo kInfo{.name = kName,
                                 .title = "PREEMPT_RT, kernel version and the RT safety net",
                                 .chapters = "2, 4",
                                 .settings = &kSettings};
    return kInfo;
  }
  std::vector<CheckResult> Run(CheckEnv& env) const override {
    if (!env.state.kernel) {
      return {NewResult(kName, "kernel", Status::kSkip, "the kernel section was not collected", kChapter4)};
    }
    const KernelInfo& k = *env.state.kernel;
    return {PreemptRt(env, k), Version(env, k), SafetyNetResult(env, k)};
  }
};

}  // namespace
std::unique_ptr<Check> MakeKernelCheck() { return std::make_unique<KernelCheck>(); }
}  // namespace rtagent::check

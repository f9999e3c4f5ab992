// hwlat: the kernel's hardware latency tracer run through tracefs. It spins with interrupts
// off reading the clock; any gap must come from below the kernel (an SMI, firmware, a
// hypervisor). Real-Time Linux, Chapter 5 ("Rule out the firmware first, with hwlat");
// Documentation/trace/hwlat_detector.rst. The tracer's state is a lease: whatever happens
// (a refused write, Ctrl-C), every file it changed is written back.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"
#include "check/chapters.h"
#include "check/check.h"
#include "check/tracer.h"

namespace rtagent::check {
namespace {


long long Micros(Duration d) { return std::chrono::duration_cast<std::chrono::microseconds>(d).count(); }

std::string Seconds(Duration d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%gs", std::chrono::duration<double>(d).count());
  return buf;
}

CheckResult Make(Status s, std::string summary) {
  CheckResult r;
  r.check = r.id = "hwlat";
  r.status = s;
  r.summary = std::move(summary);
  r.chapter = kChapter5;
  return r;
}

// A failed restore leaves the system traced: that outranks whatever the run found.
std::vector<CheckResult> WithRestore(CheckResult r, TracefsLease& lease) {
  auto restored = lease.Restore();
  if (restored) return {r};
  CheckResult bad = Make(Status::kFail, restored.error().message);
  bad.id = "hwlat.restore";
  bad.hint = "write those values back by hand (as root) before the board goes to work";
  return {r, bad};
}

class HwlatCheck : public Check {
 public:
  std::string Name() const override { return "hwlat"; }
  std::string Title() const override { return "hardware and firmware latency (the kernel's hwlat tracer)"; }

  std::vector<CheckResult> Run(CheckEnv& env) const override {
    const auto& c = env.profile.checks;
    auto tracefs = FindTracefs(env.root);
    if (!tracefs) return {Make(Status::kSkip, tracefs.error().message)};
    auto tracers = AvailableTracers(env.root, *tracefs);
    if (!tracers) return {Make(Status::kSkip, "cannot read the tracers this kernel has: " + tracers.error().message)};
    if (std::find(tracers->begin(), tracers->end(), "hwlat") == tracers->end()) {
      std::string have;
      for (const auto& t : *tracers) have += (have.empty() ? "" : " ") + t;
      return {Make(Status::kSkip, "this kernel has no hwlat tracer (CONFIG_HWLAT_TRACER is off); available_tracers: " +
                                      (have.empty() ? std::string("none") : have))};
    }

    auto taken = TracefsLease::Take(env.root, *tracefs,
                                    {kpath::kCurrentTracer, kpath::kTracingOn, kpath::kTracingThresh,
                                     kpath::kTracingCpumask, kpath::kTracingMaxLatency, kpath::kHwlatWindow,
                                     kpath::kHwlatWidth, kpath::kHwlatMode});
    if (!taken) return {Make(Status::kSkip, "cannot read the tracer state: " + taken.error().message)};
    TracefsLease& lease = *taken;
    const std::string busy = lease.Saved(kpath::kCurrentTracer);
    if (!busy.empty() && busy != "nop") {
      // Someone is tracing: taking the tracer away would end their trace (the buffer resets).
      CheckResult r = Make(Status::kSkip, "tracefs is in use (current_tracer is " + busy +
                                              "); hwlat would end that trace, so it did not run");
      r.hint = "run verify again when the other trace is over (echo nop > current_tracer)";
      return {r};
    }

    // hwlat_detector/mode (Documentation/trace/hwlat_detector.rst): "none [round-robin]
    // per-cpu", the current one bracketed; it takes one word. The file and all three modes came
    // with Linux 5.14 (trace/hwlat: Implement the mode config option, and the per-cpu mode);
    // an older kernel's single thread always moves across tracing_cpumask each window, as
    // round-robin does. The default is written whenever the file exists, so a run does not
    // depend on what someone left there; a mode the profile asks for and the kernel cannot
    // give is a SKIP, not a run in another mode.
    const std::string& mode = *c.hwlat_mode;
    const std::string mode_key = "checks.hwlat.mode: " + mode;
    std::string mode_text = mode;
    if (!lease.Has(kpath::kHwlatMode)) {
      if (c.hwlat_mode.IsSet()) {
        CheckResult r = Make(Status::kSkip, "this kernel has no " + *tracefs + "/" + kpath::kHwlatMode +
                                                " (it came with Linux 5.14), so " + mode_key +
                                                " cannot be set; hwlat did not run");
        r.mark = c.hwlat_mode.mark;
        r.hint = "remove checks.hwlat.mode to run the kernel's only mode (one thread moving across the CPUs each "
                 "window, as round-robin), or use a 5.14 or later kernel";
        return WithRestore(r, lease);
      }
      mode_text += " (no " + kpath::kHwlatMode + " on this kernel: its only mode)";
    } else {
      auto text = env.root.Read(kpath::TracefsFile(*tracefs, kpath::kHwlatMode));
      const std::vector<std::string> offered = text ? BracketChoices(*text) : std::vector<std::string>{};
      if (std::find(offered.begin(), offered.end(), mode) == offered.end()) {
        std::string have;
        for (const auto& m : offered) have += (have.empty() ? "" : " ") + m;
        CheckResult r = Make(Status::kSkip, *tracefs + "/" + kpath::kHwlatMode + " offers " +
                                                (have.empty() ? std::string("no mode") : have) + ", not " + mode +
                                                (c.hwlat_mode.IsSet() ? " (" + mode_key + ")" : " (the default)") +
                                                "; hwlat did not run, nothing was changed");
        r.mark = c.hwlat_mode.mark;
        r.hint = have.empty() ? "check that tracefs is readable (as root)"
                              : "set checks.hwlat.mode to one this kernel offers: " + have;
        return WithRestore(r, lease);
      }
    }

    const long long width = Micros(*c.hwlat_width);
    const long long window = Micros(*c.hwlat_window);
    const int thresh = *c.hwlat_threshold_us;
    const Duration duration = env.HwlatDuration();
    // Where it samples: the isolated CPUs (the loop's, as the lesson's "echo 8 >
    // tracing_cpumask"), every online CPU when none is isolated.
    CpuSet cpus = env.profile.cores.isolated->cpus;
    if (cpus.Empty()) cpus = env.profile.system.online;
    const std::string setup = "width " + std::to_string(width) + " us per " + std::to_string(window) +
                              " us window on CPUs " + cpus.ToList() + " for " + Seconds(duration) + ", " + mode_text;

    struct Step {
      std::string file;
      std::string value;
    };
    // Width before window: the kernel keeps width <= window (trace_min_max_param), so a new
    // width above the old window is refused, and written again once the window has grown.
    std::vector<Step> steps = {{kpath::kTracingOn, "0"},
                               {kpath::kTracingThresh, std::to_string(thresh)},
                               {kpath::kHwlatWidth, std::to_string(width)},
                               {kpath::kHwlatWindow, std::to_string(window)},
                               {kpath::kTracingCpumask, cpus.ToMask(env.profile.system.NrIds())},
                               {kpath::kTracingMaxLatency, "0"},
                               {kpath::kHwlatMode, mode},  // before the tracer: it picks its threads at start
                               {kpath::kCurrentTracer, "hwlat"},
                               {kpath::kTracingOn, "1"}};
    std::vector<Step> refused;
    for (const Step& s : steps) {
      if (!lease.Has(s.file)) continue;
      if (auto w = lease.Set(s.file, s.value); !w) {
        if (s.file == kpath::kHwlatWidth) {  // above the current window: retried after it
          refused.push_back(s);
          continue;
        }
        return WithRestore(Make(Status::kSkip, "cannot set up the hwlat tracer: " + w.error().message +
                                                   " (needs root and a writable tracefs); the tracer state was put back"),
                           lease);
      }
      if (s.file == kpath::kHwlatWindow) {
        for (const Step& again : refused) {
          if (auto w = lease.Set(again.file, again.value); !w) {
            return WithRestore(Make(Status::kSkip, "cannot set up the hwlat tracer: " + w.error().message +
                                                       "; the tracer state was put back"),
                               lease);
          }
        }
        refused.clear();
      }
    }

    if (!env.wait(duration)) {
      return WithRestore(Make(Status::kSkip, "interrupted before the " + Seconds(duration) +
                                                 " run ended; the tracer state was put back"),
                         lease);
    }
    // Read before restoring: switching the tracer back resets the trace buffer.
    auto trace = env.root.Read(kpath::TracefsFile(*tracefs, kpath::kTrace));
    auto max_latency = env.root.ReadInt(kpath::TracefsFile(*tracefs, kpath::kTracingMaxLatency));
    if (!trace) {
      return WithRestore(Make(Status::kSkip, "cannot read the trace: " + trace.error().message +
                                                 "; the tracer state was put back"),
                         lease);
    }
    const std::vector<HwlatGap> gaps = ParseHwlatTrace(*trace);
    long long worst = 0;
    int worst_cpu = -1;
    int above = 0;
    for (const HwlatGap& g : gaps) {
      if (g.Worst() > worst) {
        worst = g.Worst();
        worst_cpu = g.cpu;
      }
      above += g.Worst() > thresh;
    }
    if (max_latency && *max_latency > worst) worst = *max_latency;

    CheckResult r = Make(Status::kPass, "");
    r.limit = "no gap above " + std::to_string(thresh) + " us (checks.hwlat.threshold_us)";
    r.mark = c.hwlat_threshold_us.mark;
    r.measured = std::to_string(above) + " gap" + (above == 1 ? "" : "s") + " above " + std::to_string(thresh) +
                 " us, worst " + std::to_string(worst) + " us";
    if (above > 0) {
      r.status = Status::kFail;
      r.summary = std::to_string(above) + " hardware latency gap" + (above == 1 ? "" : "s") + " above " +
                  std::to_string(thresh) + " us, worst " + std::to_string(worst) + " us" +
                  (worst_cpu >= 0 ? " on CPU " + std::to_string(worst_cpu) : "") + " (" + setup +
                  "): with interrupts off only firmware (an SMI), the hardware or a hypervisor can take the CPU";
      r.hint = "look at the BIOS/firmware settings (SMI sources, power management, legacy USB) or another board; "
               "no kernel setting removes these";
    } else {
      r.summary = "no hardware latency gap above " + std::to_string(thresh) + " us (" + setup + ")";
    }
    if (env.state.clock && env.state.clock->hypervisor.present) {
      r.summary += "; this is a virtual machine, so the gaps are the host's, not a board's";
    }
    return WithRestore(r, lease);
  }
};

}  // namespace

std::unique_ptr<Check> MakeHwlatCheck() { return std::make_unique<HwlatCheck>(); }

}  // namespace rtagent::check

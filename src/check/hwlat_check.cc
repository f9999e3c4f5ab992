// hwlat: the kernel's hardware latency tracer run through tracefs. It spins with interrupts
// off reading the clock; any gap must come from below the kernel (an SMI, firmware, a
// hypervisor). Real-Time Linux, Chapter 5 ("Rule out the firmware first, with hwlat");
// Documentation/trace/hwlat_detector.rst. The tracer's state is a lease: whatever happens
// (a refused write, Ctrl-C), every file it changed is written back.
#include "check/hwlat_check.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "base/count_text.h"
#include "base/kernel_paths.h"
#include "base/kernel_text.h"
#include "check/chapters.h"
#include "check/tracer.h"
#include "profile/duration.h"

namespace rtagent::check {
namespace {

using namespace std::chrono_literals;
using profile::CrossCheck;
using profile::FormatDuration;

// The words hwlat_detector/mode takes (Documentation/trace/hwlat_detector.rst; the file and
// all three modes came with Linux 5.14, kernel/trace/trace_hwlat.c thread_mode_str).
const std::vector<std::string>& HwlatModeNames() {
  static const std::vector<std::string> k = {"none", "round-robin", "per-cpu"};
  return k;
}

constexpr Duration kMinDuration = 1s;

// Documentation/trace/hwlat_detector.rst: the tracer spins for `width` out of every `window`.
void CheckTimes(const CrossCheck& cc, const HwlatSettings& h) {
  if (*h.width >= *h.window) {
    cc.diags().Error(cc.At({h.width.mark, h.window.mark}),
                     "checks.hwlat.width " + FormatDuration(*h.width) + " is not shorter than the window " +
                         FormatDuration(*h.window),
                     "the tracer spins for 'width' out of every 'window' (the kernel refuses width >= window); the "
                     "defaults are 500ms of 1s");
  }
  if (*h.duration < *h.window) {
    cc.diags().Error(cc.At({h.duration.mark, h.window.mark}),
                     "checks.hwlat.duration " + FormatDuration(*h.duration) + " is shorter than one window (" +
                         FormatDuration(*h.window) + ")",
                     "run the tracer for many windows: 30s or more");
  }
  // A gap is measured inside one width of spinning, so it can never be longer than the width:
  // a threshold at or above it reports nothing, whatever the firmware does.
  if (std::chrono::microseconds(*h.threshold_us) >= *h.width) {
    cc.diags().Error(cc.At({h.threshold_us.mark, h.width.mark}),
                     "checks.hwlat.threshold_us " + std::to_string(*h.threshold_us) + " is not shorter than the width " +
                         FormatDuration(*h.width) + ": no gap can be longer than the width, so nothing would ever be reported",
                     "a threshold of a few microseconds (the default is 10) finds SMIs and firmware gaps");
  }
}

const profile::CheckBlock<HwlatSettings>& Settings() {
  static const profile::CheckBlock<HwlatSettings> kSettings{
      "hwlat",
      "the hwlat tracer: SMIs and firmware gaps (Chapter 5); SKIP when the kernel lacks it",
      {
          profile::Dur("width", &HwlatSettings::width, 1us, 500ms, "time spinning with interrupts off per window"),
          profile::Dur("window", &HwlatSettings::window, 1us, 1s, "`hwlat_detector/window`"),
          profile::Dur("duration", &HwlatSettings::duration, kMinDuration, 30s, "how long the tracer runs"),
          profile::Int("threshold_us", &HwlatSettings::threshold_us, {1, 1000000}, 10,
                       "gaps longer than this are reported"),
          profile::Custom<HwlatSettings>(
              "mode", profile::ChoiceType(HwlatModeNames()), profile::Code(HwlatModeNames()[1]), "`hwlat_detector/mode`",
              [](profile::LoadContext& c, HwlatSettings& h, const profile::YamlNode* v, const std::string& what) {
                h.mode.value = HwlatModeNames()[1];
                if (v == nullptr) return;
                if (auto i = c.reader().Choice(*v, what, HwlatModeNames())) Assign(&h.mode, HwlatModeNames()[static_cast<size_t>(*i)], v->mark);
              }),
      },
      {CheckTimes}};
  return kSettings;
}


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

// Why hwlat cannot run on this kernel (no tracefs, no hwlat tracer), or nullopt.
std::optional<CheckResult> NoTracer(const SysRoot& root, const Result<std::string>& tracefs) {
  if (!tracefs) return Make(Status::kSkip, tracefs.error().message);
  auto tracers = AvailableTracers(root, *tracefs);
  if (!tracers) return Make(Status::kSkip, "cannot read the tracers this kernel has: " + tracers.error().message);
  if (std::find(tracers->begin(), tracers->end(), "hwlat") != tracers->end()) return std::nullopt;
  std::string have;
  for (const auto& t : *tracers) have += (have.empty() ? "" : " ") + t;
  return Make(Status::kSkip, "this kernel has no hwlat tracer (CONFIG_HWLAT_TRACER is off); available_tracers: " +
                                 (have.empty() ? std::string("none") : have));
}

// hwlat_detector/mode (Documentation/trace/hwlat_detector.rst): "none [round-robin]
// per-cpu", the current one bracketed; it takes one word. The file and all three modes came
// with Linux 5.14 (trace/hwlat: Implement the mode config option, and the per-cpu mode);
// an older kernel's single thread always moves across tracing_cpumask each window, as
// round-robin does. The default is written whenever the file exists, so a run does not
// depend on what someone left there; a mode the profile asks for and the kernel cannot
// give is a SKIP, not a run in another mode. Returns the SKIP, or nullopt with `*text` set to
// how the summary names the mode.
std::optional<CheckResult> CheckMode(const CheckEnv& env, const HwlatSettings& c, const std::string& tracefs,
                                     const TracefsLease& lease, std::string* text) {
  const std::string& mode = *c.mode;
  const std::string mode_key = "checks.hwlat.mode: " + mode;
  *text = mode;
  if (!lease.Has(kpath::kHwlatMode)) {
    if (!c.mode.IsSet()) {
      *text += " (no " + kpath::kHwlatMode + " on this kernel: its only mode)";
      return std::nullopt;
    }
    CheckResult r = Make(Status::kSkip, "this kernel has no " + tracefs + "/" + kpath::kHwlatMode +
                                            " (it came with Linux 5.14), so " + mode_key + " cannot be set; hwlat did not run");
    r.mark = c.mode.mark;
    r.hint = "remove checks.hwlat.mode to run the kernel's only mode (one thread moving across the CPUs each "
             "window, as round-robin), or use a 5.14 or later kernel";
    return r;
  }
  auto file = env.root.Read(kpath::TracefsFile(tracefs, kpath::kHwlatMode));
  const std::vector<std::string> offered = file ? BracketChoices(*file) : std::vector<std::string>{};
  if (std::find(offered.begin(), offered.end(), mode) != offered.end()) return std::nullopt;
  std::string have;
  for (const auto& m : offered) have += (have.empty() ? "" : " ") + m;
  CheckResult r = Make(Status::kSkip, tracefs + "/" + kpath::kHwlatMode + " offers " +
                                          (have.empty() ? std::string("no mode") : have) + ", not " + mode +
                                          (c.mode.IsSet() ? " (" + mode_key + ")" : " (the default)") +
                                          "; hwlat did not run, nothing was changed");
  r.mark = c.mode.mark;
  r.hint = have.empty() ? "check that tracefs is readable (as root)" : "set checks.hwlat.mode to one this kernel offers: " + have;
  return r;
}

struct Step {
  std::string file;
  std::string value;
};

// Writes the tracer's settings through the lease, in order; the SKIP when one is refused.
// Width before window: the kernel keeps width <= window (trace_min_max_param), so a new
// width above the old window is refused, and written again once the window has grown.
std::optional<CheckResult> SetUp(TracefsLease& lease, const std::vector<Step>& steps) {
  std::vector<Step> refused;
  for (const Step& s : steps) {
    if (!lease.Has(s.file)) continue;
    if (auto w = lease.Set(s.file, s.value); !w) {
      if (s.file == kpath::kHwlatWidth) {  // above the current window: retried after it
        refused.push_back(s);
        continue;
      }
      return Make(Status::kSkip, "cannot set up the hwlat tracer: " + w.error().message +
                                     " (needs root and a writable tracefs); the tracer state was put back");
    }
    if (s.file != kpath::kHwlatWindow) continue;
    for (const Step& again : refused) {
      if (auto w = lease.Set(again.file, again.value); !w) {
        return Make(Status::kSkip, "cannot set up the hwlat tracer: " + w.error().message + "; the tracer state was put back");
      }
    }
    refused.clear();
  }
  return std::nullopt;
}

// The verdict on the gaps the trace holds (and tracing_max_latency, which may hold a larger one).
CheckResult Judge(const CheckEnv& env, const HwlatSettings& c, const std::string& trace,
                  const Result<long long>& max_latency, const std::string& setup) {
  const int thresh = *c.threshold_us;
  long long worst = 0;
  int worst_cpu = -1;
  int above = 0;
  for (const HwlatGap& g : ParseHwlatTrace(trace)) {
    if (g.Worst() > worst) {
      worst = g.Worst();
      worst_cpu = g.cpu;
    }
    above += g.Worst() > thresh;
  }
  if (max_latency && *max_latency > worst) worst = *max_latency;

  CheckResult r = Make(Status::kPass, "");
  r.limit = "no gap above " + std::to_string(thresh) + " us (checks.hwlat.threshold_us)";
  r.mark = c.threshold_us.mark;
  r.measured = CountOf(above, "gap", "gaps") + " above " + std::to_string(thresh) +
               " us, worst " + std::to_string(worst) + " us";
  if (above > 0) {
    r.status = Status::kFail;
    r.summary = CountOf(above, "hardware latency gap", "hardware latency gaps") + " above " +
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
  return r;
}

class HwlatCheck : public Check {
 public:
  const CheckInfo& Info() const override {
    static const CheckInfo kInfo{
        .name = "hwlat",
        .title = "hardware and firmware latency (the kernel's hwlat tracer)",
        .chapters = "5",
        .needs_root = true,
        .live_window = true,
        .settings = &Settings(),
        .window = WindowSetting{[](const profile::Profile& p) -> const profile::Marked<Duration>& {
                                return Settings().Of(p).duration;
                              },
                              kMinDuration}};
    return kInfo;
  }

  std::vector<CheckResult> Run(CheckEnv& env) const override {
    const HwlatSettings& c = Settings().Of(env.profile);
    // 0. A fixture's tracer never samples: its trace file is whatever was captured, not this run.
    if (auto no_time = env.NoLiveTime()) return {Make(Status::kSkip, "not run: " + *no_time)};
    // 1. The tracer, and its state taken as a lease (given back on every path below).
    auto tracefs = FindTracefs(env.root);
    if (auto skip = NoTracer(env.root, tracefs)) return {*skip};
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
    // 2. The mode the profile asks for, if this kernel has it.
    std::string mode_text;
    if (auto skip = CheckMode(env, c, *tracefs, lease, &mode_text)) return WithRestore(*skip, lease);

    // 3. Set up: where it samples is the isolated CPUs (the loop's, as the lesson's "echo 8 >
    // tracing_cpumask"), every online CPU when none is isolated.
    const long long width = Micros(*c.width);
    const long long window = Micros(*c.window);
    const Duration duration = env.Window(Info());
    CpuSet cpus = env.profile.cores.isolated->cpus;
    if (cpus.Empty()) cpus = env.profile.system.online;
    const std::string setup = "width " + std::to_string(width) + " us per " + std::to_string(window) +
                              " us window on " + cpus.Named() + " for " + Seconds(duration) + ", " + mode_text;
    const std::vector<Step> steps = {{kpath::kTracingOn, "0"},
                                     {kpath::kTracingThresh, std::to_string(*c.threshold_us)},
                                     {kpath::kHwlatWidth, std::to_string(width)},
                                     {kpath::kHwlatWindow, std::to_string(window)},
                                     {kpath::kTracingCpumask, cpus.ToMask(env.profile.system.NrIds())},
                                     {kpath::kTracingMaxLatency, "0"},
                                     {kpath::kHwlatMode, *c.mode},  // before the tracer: it picks its threads at start
                                     {kpath::kCurrentTracer, "hwlat"},
                                     {kpath::kTracingOn, "1"}};
    if (auto skip = SetUp(lease, steps)) return WithRestore(*skip, lease);

    // 4. Run for the window, read the trace before restoring (switching the tracer back resets
    // the buffer), judge.
    if (!env.wait(duration)) {
      return WithRestore(Make(Status::kSkip, "interrupted before the " + Seconds(duration) +
                                                 " run ended; the tracer state was put back"),
                         lease);
    }
    auto trace = env.root.Read(kpath::TracefsFile(*tracefs, kpath::kTrace));
    auto max_latency = env.root.ReadInt(kpath::TracefsFile(*tracefs, kpath::kTracingMaxLatency));
    if (!trace) {
      return WithRestore(Make(Status::kSkip, "cannot read the trace: " + trace.error().message +
                                                 "; the tracer state was put back"),
                         lease);
    }
    return WithRestore(Judge(env, c, *trace, max_latency, setup), lease);
  }
};

}  // namespace

const HwlatSettings& HwlatSettingsOf(const profile::Profile& p) { return Settings().Of(p); }

std::unique_ptr<Check> MakeHwlatCheck() { return std::make_unique<HwlatCheck>(); }

}  // namespace rtagent::check

#include "service/hold.h"

#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "base/count_text.h"
#include "base/cpuset.h"
#include "check/runner.h"
#include "inspect/irqbalance.h"
#include "profile/duration.h"
#include "profile/loader.h"
#include "service/memory_trim.h"
#include "tune/apply_profile.h"
#include "tune/refusals.h"
#include "tune/systemd_tuner.h"
#include "tune/tuner.h"

namespace rtagent::service {

namespace {

int64_t Now() { return static_cast<int64_t>(std::time(nullptr)); }

// How long a state file may go without a rewrite when nothing changed: `status` shows the
// tick count, but rewriting the file on every tick would be a wake-up's worth of work for nothing.
constexpr int64_t kQuietStateRewriteSeconds = 60;

std::string OneLine(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// What hold leaves to `rtagent apply`: the files read only when the machine or systemd starts
// (the boot loader's, systemd's CPUAffinity= drop-in). A daemon at every boot has no business
// rewriting them, and the unit's ProtectSystem=strict keeps /boot and /etc read-only but for
// the paths it opens (ReadWritePaths=: irqbalance's environment file is one).
bool LeftToApply(const Change& c) { return IsBootFileActuator(c.actuator) || c.actuator == kDropInActuator; }

// What hold writes: every pending change but those; their files are counted in *left and
// reported as waiting.
std::vector<Change> HeldChanges(const FullPlan& plan, std::vector<std::string>* left) {
  std::vector<Change> out;
  for (Change& c : plan.PendingChanges()) {
    if (LeftToApply(c)) {
      if (left) left->push_back("/" + c.key);
      continue;
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::optional<profile::Profile> LoadAgain(SysRoot& root, const std::string& path, std::string* why) {
  profile::Diagnostics diags;
  auto p = path.empty() ? profile::LoadDefaultProfile(root, &diags) : profile::LoadProfile(path, root, &diags);
  if (!p) {
    *why = OneLine(diags.FormatText(false));
    if (why->empty()) *why = p.error().message;
    return std::nullopt;
  }
  return std::move(*p);
}

// The plan's warnings and errors, said when a profile is taken up (start and reload): an item
// the plan could not make (a NIC's channels a sandbox keeps from rtagent, a count above a
// driver's maximum) would otherwise be left out of what is held without a word. A tick plans
// the same profile again and does not repeat them.
void LogFindings(spdlog::logger& log, const FullPlan& plan) {
  for (const SectionPlan& s : plan.sections) {
    for (const Finding& f : s.findings) {
      if (f.level == Finding::Level::kInfo) continue;
      const std::string where = f.mark.Known() ? f.mark.ToString() + ": " : "";
      if (f.level == Finding::Level::kWarning) {
        log.warn("[{}] {}{}", s.section, where, f.message);
      } else {
        log.error("[{}] {}{}; not held{}", s.section, where, f.message, f.why.empty() ? "" : " (" + f.why + ")");
      }
    }
  }
}

}  // namespace

std::shared_ptr<spdlog::logger> MakeStderrLogger() {
  auto log = std::make_shared<spdlog::logger>("hold", std::make_shared<spdlog::sinks::stderr_sink_st>());
  // JOURNAL_STREAM is set when stderr goes to the journal, which stamps every line itself.
  log->set_pattern(std::getenv("JOURNAL_STREAM") ? "%l: %v" : "%Y-%m-%d %H:%M:%S %l: %v");
  log->set_level(spdlog::level::info);
  log->flush_on(spdlog::level::info);
  return log;
}

Result<int> OpenSignalFd(SelfCalls& calls) {
  sigset_t set, old;
  sigemptyset(&set);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigemptyset(&old);
  if (auto r = calls.SignalMask(SIG_BLOCK, set, &old); !r) {
    return Wrap("cannot block SIGHUP/SIGTERM/SIGINT: ", r.error());
  }
  auto fd = calls.SignalFd(set);
  if (!fd) {
    (void)calls.SignalMask(SIG_SETMASK, old, nullptr);  // as it was: the signals kill again
    return Wrap("cannot open a signalfd for SIGHUP/SIGTERM/SIGINT: ", fd.error());
  }
  return *fd;
}

HoldDaemon::HoldDaemon(SysRoot& root, profile::Profile profile, HoldOptions options, Notifier& notifier,
                       std::unique_ptr<QosDevice> qos)
    : root_(root),
      profile_(std::move(profile)),
      options_(std::move(options)),
      notifier_(notifier),
      log_(options_.log ? options_.log : MakeStderrLogger()),
      self_(options_.self ? options_.self : root.IsLive() ? &RealSelfCalls() : nullptr),
      journal_(root, Journal::Scope::kRuntime),
      executor_(MakeTuningExecutor(root_, journal_)),
      lease_(std::move(qos)) {
  state_.pid = static_cast<int>(::getpid());
  state_.state = "starting";
  state_.profile = profile_.path;
  state_.root = root_.Dir();
}

HoldDaemon::~HoldDaemon() = default;  // the lease gives the note back in its destructor

void HoldDaemon::Notify(const std::string& msg) { notifier_.Notify(msg); }

std::string HoldDaemon::StatusLine() const {
  std::string s = state_.state + " " + (profile_.name->empty() ? profile_.path : *profile_.name) + ": " +
                  CountOf(state_.applied, "value", "values") + " written";
  if (lease_.Held()) s += ", PM QoS " + std::to_string(lease_.value_us()) + " us held";
  if (state_.last_verify.time > 0) s += ", verify " + state_.last_verify.result;
  s += ", " + std::to_string(state_.drift_total) + " drift re-asserted";
  if (state_.reboot_required) s += ", reboot required for " + std::to_string(state_.reboot_required);
  if (!left_to_apply_.empty()) {
    s += ", " + CountOf(left_to_apply_.size(), "boot-time file", "boot-time files") + " not written (rtagent apply writes " +
         (left_to_apply_.size() == 1 ? "it)" : "them)");
  }
  return s;
}

Result<void> HoldDaemon::Pin(const profile::Profile& p) {
  const profile::CpuSpec& spec = *p.service.cpus;
  if (!self_) {
    // Under --root DIR the process is a test's or a user's shell tool: never move it.
    state_.cpus = "not pinned (fixture root " + root_.Dir() + ")";
    return Ok();
  }
  // SCHED_OTHER first: a daemon started from an RT shell must not inherit FIFO.
  if (auto r = self_->SetOtherPolicy(); !r) log_->warn("cannot switch to SCHED_OTHER: {}", r.error().message);
  // Coalesce the daemon's own timer wake-ups with others' (prctl(2), PR_SET_TIMERSLACK):
  // its ticks need no precision, and fewer wake-ups is the point.
  (void)self_->SetTimerSlack(50ULL * 1000 * 1000);
  if (spec.cpus.Empty()) {
    state_.cpus = "not pinned (service.cpus is empty)";
    return Ok();
  }
  // Its wake-ups must stay off the isolated CPUs: running anywhere else is not an option.
  if (auto r = self_->SetAffinity(spec.cpus); !r) {
    return Wrap("cannot pin itself to CPUs " + spec.cpus.ToList() + " (service.cpus): ", r.error());
  }
  state_.cpus = spec.cpus.ToList();
  return Ok();
}

void HoldDaemon::GiveBackStartupMemory(bool again_after_tick) {
  if (!self_ || !options_.give_back_memory) return;
  // The first tick runs code start-up never ran (the loop's set-up, the first call of each
  // library function it uses, bound lazily through ld.so and every library's symbol tables):
  // dropping once more after it leaves what every tick touches, and no more.
  trim_after_tick_ = again_after_tick;
  TrimReport t = DropPages();
  // Logged after the drop: the log's own code comes back, and goes again after the next tick.
  log_->info("gave back {} KiB of start-up code and read-only data ({} mappings) and trimmed the heap",
             t.dropped_kb, t.mappings);
}

TrimReport HoldDaemon::DropPages() {
  TrimReport t = DropStartupPages(*self_);
  if (!t.error.empty()) log_->warn("giving start-up memory back: {}", t.error);
  return t;
}

Result<void> HoldDaemon::HoldNote(const profile::Profile& p) {
  const auto& want = *p.power.cpu_dma_latency_us;
  if (!want) {
    if (lease_.Held()) log_->info("PM QoS note given back: the profile no longer asks for one");
    lease_.Release();
    return Ok();
  }
  if (lease_.Held() && lease_.value_us() == *want) return Ok();
  if (auto r = lease_.Acquire(*want); !r) return r;
  log_->info("holding the PM QoS note: {} us on {}", *want, lease_.Where());
  return Ok();
}

namespace {

// A value of a change on one log line: a hex CPU mask with the CPUs it names ("f (CPUs 0-3)").
std::string Shown(const Change& c, const std::string& value) {
  return OneLine(c.compare == Compare::kCpuMask ? MaskWithCpus(value) : value);
}

// "before -> after" of a change, each Shown.
std::string BeforeAfter(const Change& c) { return Shown(c, c.before) + " -> " + Shown(c, c.after); }

}  // namespace

int HoldDaemon::ApplyEach(const std::vector<Change>& changes, bool as_drift, std::string* first_error) {
  int written = 0;
  // An IRQ's affinity that drifted while irqbalance runs was moved by it (it rebalances every
  // ten seconds): the drift says so (its cause in the state file, the cause and the remedy in
  // the log), irqbalance looked up once per tick.
  std::optional<IrqbalanceInfo> irqbalance;
  auto moved_by = [&](const Change& c) -> std::string {
    if (!as_drift || c.section != "irqs" || c.actuator != "file") return "";
    if (!irqbalance) irqbalance = DetectIrqbalance(root_);
    return irqbalance->running ? "irqbalance (" + irqbalance->how + ")" : "";
  };
  for (const Change& c : changes) {
    if (c.reboot) continue;
    ApplyReport r = executor_->Apply({c});
    const ChangeResult& res = r.results.front();
    DriftEvent e{Now(), c.section, c.what, c.key, c.before, c.after, ""};
    e.cpu_mask = c.compare == Compare::kCpuMask;
    switch (res.outcome) {
      case Outcome::kApplied:
        ++written;
        e.outcome = "re-asserted";
        break;
      case Outcome::kUnchangeable:
        ++state_.unchangeable;
        e.outcome = "unchangeable: " + res.detail;
        if (!as_drift) log_->info("{}: the kernel keeps {} ({})", c.what, Shown(c, c.before), res.detail);
        break;
      case Outcome::kAlreadySet:
        continue;  // it came back by itself between the plan and the write
      default:
        e.outcome = "failed: " + res.detail;
        if (first_error && first_error->empty()) *first_error = c.what + ": " + res.detail;
        if (!as_drift) log_->error("{} ({}): cannot write {}: {}", c.what, c.key, c.after, res.detail);
        break;
    }
    if (as_drift) {
      e.cause = moved_by(c);
      std::string said = e.outcome;
      if (!e.cause.empty()) {
        said += "; moved by irqbalance (" + irqbalance->how + "; irqs.irqbalance: ban or stop ends the fight)";
      }
      log_->warn("drift: {}: {} ({})", c.what, BeforeAfter(c), said);
      state_.AddDrift(std::move(e));
    }
  }
  state_.applied += written;
  return written;
}

StartResult HoldDaemon::FailStart(const std::string& log_line, const std::string& reason) {
  log_->error("{}", log_line);
  state_.state = "failed";
  state_.stop_reason = reason;
  WriteState();
  Notify("STATUS=failed: " + OneLine(reason));
  return StartResult::kRefused;
}

StartResult HoldDaemon::Start() {
  state_.since = Now();
  state_.on_stop = profile::ToString(*profile_.service.on_stop);
  state_.watch_interval = profile::FormatDuration(*profile_.service.watch_interval);
  state_.replan_interval = profile::FormatDuration(options_.replan_interval);
  if (auto r = Pin(profile_); !r) {
    state_.cpus = "not pinned";
    return FailStart(r.error().message + "; nothing was changed", r.error().message);
  }
  Notify("STATUS=applying " + profile_.path);

  if (auto r = journal_.Load(); !r) return FailStart(r.error().message + "; nothing was changed", r.error().message);
  auto plan = PlanAll(profile_, root_);
  if (!plan) {
    return FailStart("cannot plan " + profile_.path + ": " + plan.error().message + "; nothing was changed",
                     plan.error().message);
  }
  LogFindings(*log_, *plan);
  // The note first: if the device refuses, nothing has been written yet.
  if (auto r = HoldNote(profile_); !r) return FailStart(r.error().message + "; nothing was changed", r.error().message);
  state_.pm_qos_us = lease_.Held() ? std::optional<int>(lease_.value_us()) : std::nullopt;

  // Start is all-or-nothing, as `rtagent apply` is: a failed write rolls this run back.
  left_to_apply_.clear();
  std::vector<Change> pending = HeldChanges(*plan, &left_to_apply_);
  LogLeftToApply();
  ApplyReport report = executor_->Apply(pending);
  for (const auto& res : report.results) {
    if (res.outcome == Outcome::kApplied) {
      ++state_.applied;
      log_->info("{}: {}", res.change.what, BeforeAfter(res.change));
    } else if (res.outcome == Outcome::kUnchangeable) {
      ++state_.unchangeable;
      log_->info("{}: the kernel keeps {} ({})", res.change.what, Shown(res.change, res.change.before), res.detail);
    } else if (res.outcome == Outcome::kRebootRequired) {
      ++state_.reboot_required;
    } else if (res.outcome == Outcome::kFailed) {
      log_->error("{} ({}): {}", res.change.what, res.change.key, res.detail);
    }
  }
  if (state_.reboot_required) {
    log_->warn("{} from the running kernel's command line: a reboot is required "
               "(`rtagent commission` shows the bootloader change)",
               CountOf(state_.reboot_required, "boot-time item differs", "boot-time items differ"));
  }
  if (report.rolled_back) {
    lease_.Release();
    state_.pm_qos_us.reset();
    state_.state = "failed";
    state_.applied = 0;
    state_.stop_reason = "a write failed; this run's changes were rolled back" +
                         (report.rollback_errors.empty() ? std::string() : ": " + OneLine(report.rollback_errors));
    log_->error("{}", state_.stop_reason);
    WriteState();
    Notify("STATUS=failed: " + state_.stop_reason);
    return StartResult::kRolledBack;
  }

  state_.state = "holding";
  Verify();
  started_ = true;
  WriteState();
  log_->info("{}", StatusLine());
  Notify("READY=1\nSTATUS=" + StatusLine());
  // From here on only the watch runs: the parse, apply and verify code need not stay resident.
  GiveBackStartupMemory(/*again_after_tick=*/true);
  return StartResult::kHolding;
}

VerifyResult HoldDaemon::Verify() {
  VerifyResult v;
  v.time = Now();
  v.suite = options_.suite;
  auto plan = PlanAll(profile_, root_);
  if (!plan) {
    v.result = "FAIL";
    v.summary = "cannot plan: " + plan.error().message;
  } else {
    for (const Change& c : HeldChanges(*plan, nullptr)) {
      if (c.reboot) continue;
      if (RefusalRecord::Explaining(executor_->Refusals(), c)) continue;  // the kernel's known refusal
      ++v.differs;
    }
    check::Status overall = check::Status::kSkip;
    auto suite = check::LoadSuite(options_.suite);
    if (!suite) {
      v.summary = "suite " + options_.suite + ": " + suite.error().message + "; ";
      overall = check::Status::kWarn;
    } else {
      check::RunOptions ro;
      ro.wait = options_.check_wait;
      check::SuiteReport sr = check::RunSuite(profile_, root_, *suite, ro);
      v.pass = sr.Count(check::Status::kPass);
      v.warn = sr.Count(check::Status::kWarn);
      v.fail = sr.Count(check::Status::kFail);
      v.skip = sr.Count(check::Status::kSkip);
      overall = sr.Overall();
    }
    // The state matching the profile is itself a pass: an all-SKIP suite does not make it less.
    if (v.differs > 0) overall = check::Status::kFail;
    else if (overall == check::Status::kSkip) overall = check::Status::kPass;
    v.result = check::ToString(overall);
    v.summary += CountOf(v.differs, "item differs", "items differ") + " from the profile; checks (" + options_.suite + "): " +
                 std::to_string(v.pass) + " pass, " + std::to_string(v.warn) + " warn, " + std::to_string(v.fail) +
                 " fail, " + std::to_string(v.skip) + " skip";
    if (!left_to_apply_.empty()) {
      v.summary += "; " + CountOf(left_to_apply_.size(), "boot-time file waits", "boot-time files wait") +
                   " for `rtagent apply`";
    }
  }
  state_.last_verify = v;
  if (options_.verdict) state_.verdict = options_.verdict();
  (v.result == "FAIL" ? log_->warn("verify: {}: {}", v.result, v.summary) : log_->info("verify: {}: {}", v.result, v.summary));
  return v;
}

int64_t HoldDaemon::ClockMs() const {
  if (options_.clock_ms) return options_.clock_ms();
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void HoldDaemon::ArmWatch(const FullPlan& plan) {
  std::vector<WatchedFile> files;
  for (const SectionPlan& sp : plan.sections) {
    for (const Change& c : sp.items) {
      if (c.actuator != "file" || c.reboot) continue;  // sched, cgroup, boot files: the safety re-plan's
      WatchedFile f{c.key, c.compare, c.after, -1, {}};
      bool held = true;
      if (RefusalRecord::Explaining(executor_->Refusals(), c)) {
        f.value = c.before;  // the kernel keeps its value: that is what is there now
        held = false;
      }
      if (held && sp.section == "irqs") {
        if (int irq = AffinityListIrq(c.key); irq >= 0) {
          if (auto cpus = CpuSet::Parse(c.after)) {
            f.irq = irq;
            f.cpus = *cpus;
          }
        }
      }
      files.push_back(std::move(f));
    }
  }
  watch_.Arm(root_, std::move(files));
}

int HoldDaemon::Tick() {
  if (!started_ || stopped_) return 0;
  auto t0 = std::chrono::steady_clock::now();
  ++state_.ticks;
  // Cheap signals first; the whole plan only when one moved or the safety interval is up.
  const int64_t now_ms = ClockMs();
  const auto replan_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(options_.replan_interval).count();
  std::string why;
  if (!watch_.Armed()) why = unarmed_why_;
  else if (now_ms - last_plan_ms_ >= replan_ms) why = "safety interval (" + state_.replan_interval + ")";
  else why = watch_.Check(root_);
  if (why.empty()) {
    state_.last_tick_us =
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count();
    if (Now() - last_state_write_ >= kQuietStateRewriteSeconds) WriteState();
    if (trim_after_tick_) {
      trim_after_tick_ = false;
      DropPages();
    }
    return 0;
  }
  ++state_.replans;
  state_.last_replan = why;
  last_plan_ms_ = now_ms;
  watch_.Disarm();
  auto plan = PlanAll(profile_, root_);
  int events = 0;
  if (!plan) {
    log_->error("watch: cannot plan {}: {}", profile_.path, plan.error().message);
    unarmed_why_ = "the last plan failed";
  } else {
    std::vector<Change> drifted;
    for (Change& c : HeldChanges(*plan, nullptr)) {
      if (c.reboot) continue;
      if (RefusalRecord::Explaining(executor_->Refusals(), c)) continue;  // refused before, unchanged since
      drifted.push_back(std::move(c));
    }
    uint64_t before = state_.drift_total;
    std::string failed;
    if (!drifted.empty()) ApplyEach(drifted, /*as_drift=*/true, &failed);
    events = static_cast<int>(state_.drift_total - before);
    // A write that failed is tried again on the next tick: no baseline, so that tick plans.
    if (failed.empty()) ArmWatch(*plan);
    else unarmed_why_ = "a write failed on the last tick";
  }
  state_.last_tick_us =
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count();
  if (events > 0) {
    Notify("STATUS=" + StatusLine());
    WriteState();
  } else if (Now() - last_state_write_ >= kQuietStateRewriteSeconds) {
    WriteState();
  }
  if (trim_after_tick_) {
    trim_after_tick_ = false;
    DropPages();
  }
  return events;
}

bool HoldDaemon::Reload() {
  if (!started_ || stopped_) return false;
  Notify("RELOADING=1\nSTATUS=reloading " + options_.profile_path);
  log_->info("reload: reading {}", options_.profile_path.empty() ? "the built-in default profile" : options_.profile_path);
  std::string why;
  std::optional<profile::Profile> next = options_.load_profile ? options_.load_profile(&why)
                                                               : LoadAgain(root_, options_.profile_path, &why);
  auto fail = [&](const std::string& reason) {
    state_.last_reload = "failed: " + reason;
    state_.last_reload_time = Now();
    log_->error("reload failed, keeping the state of {}: {}", profile_.path, reason);
    WriteState();
    Notify("READY=1\nSTATUS=" + StatusLine() + " (reload failed)");
    GiveBackStartupMemory(/*again_after_tick=*/false);  // the parse touched the loader's code again
    return false;
  };
  if (!next) return fail(why.empty() ? "the profile is invalid" : why);
  auto plan = PlanAll(*next, root_);
  if (!plan) return fail("cannot plan: " + plan.error().message);
  LogFindings(*log_, *plan);
  // New CPUs first: a failed sched_setaffinity leaves the old pinning, and nothing is written yet.
  const std::string old_cpus = state_.cpus;
  if (auto r = Pin(*next); !r) {
    state_.cpus = old_cpus;
    return fail(r.error().message);
  }

  // The note: a changed value is written on the same fd, so it never lapses.
  const bool had_note = lease_.Held();
  const int old_note = had_note ? lease_.value_us() : 0;
  if (auto r = HoldNote(*next); !r) {
    if (auto back = Pin(profile_); !back) log_->warn("{}", back.error().message);
    return fail(r.error().message);
  }

  std::vector<std::string> left_to_apply;
  ApplyReport report = executor_->Apply(HeldChanges(*plan, &left_to_apply));
  if (report.rolled_back) {
    // Back to the old profile's values (the executor rolled this run back) and its note.
    if (had_note) (void)lease_.Acquire(old_note);
    else lease_.Release();
    if (auto r = Pin(profile_); !r) log_->warn("{}", r.error().message);
    std::string detail;
    for (const auto& res : report.results)
      if (res.outcome == Outcome::kFailed) detail = res.change.what + ": " + res.detail;
    return fail("a write failed and was rolled back (" + detail + ")");
  }
  profile_ = std::move(*next);
  watch_.Disarm();  // the new profile manages other files: the next tick plans and takes a baseline
  unarmed_why_ = "first tick after a reload";
  int written = 0, unchangeable = 0, reboot = 0;
  for (const auto& res : report.results) {
    if (res.outcome == Outcome::kApplied) {
      ++written;
      log_->info("{}: {}", res.change.what, BeforeAfter(res.change));
    } else if (res.outcome == Outcome::kUnchangeable) {
      ++unchangeable;
    } else if (res.outcome == Outcome::kRebootRequired) {
      ++reboot;
    }
  }
  state_.applied += written;
  state_.unchangeable = unchangeable;
  state_.reboot_required = reboot;
  left_to_apply_ = std::move(left_to_apply);
  LogLeftToApply();
  state_.profile = profile_.path;
  state_.on_stop = profile::ToString(*profile_.service.on_stop);
  state_.watch_interval = profile::FormatDuration(*profile_.service.watch_interval);
  state_.replan_interval = profile::FormatDuration(options_.replan_interval);
  state_.pm_qos_us = lease_.Held() ? std::optional<int>(lease_.value_us()) : std::nullopt;
  state_.last_reload = "ok";
  state_.last_reload_time = Now();
  log_->info("reload: {} applied ({} values written)", profile_.path, written);
  Verify();
  WriteState();
  Notify("READY=1\nSTATUS=" + StatusLine());
  GiveBackStartupMemory(/*again_after_tick=*/true);  // the new profile may tick through new code
  return true;
}

bool HoldDaemon::Stop(const std::string& why) {
  if (stopped_) return true;
  stopped_ = true;
  bool complete = true;
  Notify("STOPPING=1\nSTATUS=stopping: " + why);
  if (started_ && *profile_.service.on_stop == profile::OnStop::kRevert) {
    RevertReport r = executor_->Revert();
    int back = 0, failed = 0;
    for (const auto& res : r.results) {
      if (res.outcome == Outcome::kApplied) {
        ++back;
      } else if (res.outcome == Outcome::kFailed) {
        ++failed;
        log_->error("revert: {} ({}): {}", res.change.what, res.change.key, res.detail);
      }
    }
    complete = r.complete;
    state_.put_back_at_stop = RevertedSince{Now(), back, failed};
    state_.stop_reason = why + ": state reverted (" + CountOf(back, "value", "values") + " put back" +
                         (r.complete ? "" : ", some left behind: see the log") + ")";
  } else if (started_) {
    state_.stop_reason = why + ": state kept (on_stop: keep; `rtagent revert` puts it back)";
  } else if (state_.state != "failed") {
    state_.stop_reason = why;  // a failed start keeps its reason
  }
  lease_.Release();
  if (state_.state != "failed") state_.state = "stopped";
  log_->info("stopped: {}{}", state_.stop_reason,
             state_.pm_qos_us ? "; PM QoS note given back" : "");
  WriteState();
  return complete;
}

void HoldDaemon::PingWatchdog() { Notify("WATCHDOG=1"); }

void HoldDaemon::LogLeftToApply() {
  if (left_to_apply_.empty()) return;
  std::string files;
  for (const auto& f : left_to_apply_) files += (files.empty() ? "" : ", ") + f;
  log_->warn("{} {} not say what the profile asks yet; hold never writes the files read only at boot (the boot "
             "loader's, systemd's drop-in): `rtagent apply` writes them, then reboot",
             files, left_to_apply_.size() == 1 ? "does" : "do");
}

void HoldDaemon::WriteState() {
  state_.updated = Now();
  last_state_write_ = state_.updated;
  const auto& prom = *profile_.service.prometheus_textfile;
  state_.prometheus_textfile = prom.value_or("");
  if (auto w = root_.WriteDurable(StatePath(), ToJson(state_).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"); !w) {
    log_->warn("cannot write the state file: {}", w.error().message);
  }
  if (prom) {
    bool up = state_.state == "holding";
    if (auto w = WriteFileAtomic(TextfileOnHost(root_, *prom), RenderPrometheus(state_, up)); !w) {
      log_->warn("cannot write the Prometheus textfile: {}", w.error().message);
    }
  }
}

bool HoldDaemon::Run(int signal_fd) {
  using Clock = std::chrono::steady_clock;
  auto interval = std::chrono::duration_cast<Clock::duration>(*profile_.service.watch_interval);
  auto next_tick = Clock::now() + interval;
  std::optional<Clock::duration> ping_every;
  if (auto wd = notifier_.WatchdogTimeout()) ping_every = std::chrono::duration_cast<Clock::duration>(*wd / 2);
  auto next_ping = ping_every ? Clock::now() + *ping_every : Clock::time_point::max();
  if (ping_every) PingWatchdog();

  for (;;) {
    auto wake = std::min(next_tick, next_ping);
    // Rounded up: a wait truncated to 0 ms would spin on poll for the last fraction of a ms.
    auto wait = std::chrono::ceil<std::chrono::milliseconds>(wake - Clock::now()).count();
    pollfd p{signal_fd, POLLIN, 0};
    int n = ::poll(&p, 1, wait < 0 ? 0 : static_cast<int>(std::min<long long>(wait, 24LL * 3600 * 1000)));
    if (n < 0 && errno != EINTR) {
      log_->error("poll: {}", std::strerror(errno));
      return Stop("poll failed");
    }
    if (n > 0 && (p.revents & POLLIN)) {
      // Take every signal waiting now, then act once: one reload however many SIGHUPs came, and
      // a stop after it. Reloading inside the read loop, and pushing the next tick a whole
      // interval away after each reload, let SIGHUPs coming faster than a reload (a script in a
      // loop, a storm of 100 a second) keep hold in that loop: no tick ran, no drift was put
      // back while they came (test: "a SIGHUP storm faster than the watch interval ...").
      signalfd_siginfo si{};
      bool hup = false;
      int stop_signal = 0;
      while (!stop_signal && ::read(signal_fd, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
        if (si.ssi_signo == SIGHUP) hup = true;
        else stop_signal = static_cast<int>(si.ssi_signo);
      }
      if (hup) {
        Reload();
        // A reload may change the interval; only then does the next tick move.
        auto now_interval = std::chrono::duration_cast<Clock::duration>(*profile_.service.watch_interval);
        if (now_interval != interval) {
          interval = now_interval;
          next_tick = std::min(next_tick, Clock::now() + interval);
        }
      }
      if (stop_signal) return Stop(stop_signal == SIGTERM ? "SIGTERM" : "SIGINT");
    }
    auto now = Clock::now();
    if (now >= next_tick) {
      Tick();
      next_tick = now + interval;
    }
    if (ping_every && Clock::now() >= next_ping) {
      PingWatchdog();
      next_ping = Clock::now() + *ping_every;
    }
  }
}

}  // namespace rtagent::service

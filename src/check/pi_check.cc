// pi: does priority inheritance work on this kernel? The QNX codelab's experiment on Linux
// (src/bench/pi_experiment.h): a plain mutex lets a medium-ranked thread hold up a high-ranked
// one that waits for a low-ranked lock holder; PTHREAD_PRIO_INHERIT must stop that. Real-Time
// Linux, Chapter 9 ("Lend the holder the arm's rank"); the kernel's PI futexes
// (Documentation/locking/pi-futex.rst, rt-mutex.rst). It runs three SCHED_FIFO threads on the
// profile's measured CPU for about half a second (0.3 s of CPU), with no repeated run begun
// after 10 s (where periods take seconds it stops there and says so: bench::PiTimeLimitNs) and,
// where tracefs has the sched_pi_setprio event, shows the boost as the kernel recorded it.
#include <unistd.h>

#include "bench/pi_trace.h"
#include "check/chapters.h"
#include "check/check.h"
#include "profile/language.h"
#include "report/format.h"

namespace rtagent::check {
namespace {

CheckResult Make(Status s, std::string summary) { return NewResult("pi", "pi", s, std::move(summary), kChapter9); }

class PiCheck : public Check {
 public:
  const CheckInfo& Info() const override {
    static const profile::CheckBlock<profile::Toggle> kSettings{
        "pi", "priority inheritance works: a plain mutex against PTHREAD_PRIO_INHERIT on the measured CPU", {}};
    static const CheckInfo kInfo{.name = "pi",
                                 .title = "priority inheritance (a plain mutex against PTHREAD_PRIO_INHERIT)",
                                 .chapters = "9",
                                 .needs_root = true,
                                 .skips_without_root = true,
                                 .settings = &kSettings};
    return kInfo;
  }

  std::vector<CheckResult> Run(CheckEnv& env) const override {
    // The experiment is three threads racing in real time: the rule every timed check asks.
    if (auto no_time = env.NoLiveTime()) {
      return {Make(Status::kSkip, "the priority-inversion experiment runs on the live kernel only: " + *no_time)};
    }
    if (::geteuid() != 0) {
      CheckResult r = Make(Status::kSkip, "the experiment needs SCHED_FIFO threads: not root");
      r.hint = "run verify as root";
      return {r};
    }
    const profile::AcceptanceConfig& a = env.profile.acceptance;
    bench::PiOptions o;
    o.cpu = a.cpus.value.cpus.Empty() ? 0 : a.cpus.value.cpus.Cpus().front();
    o.priority = a.priority.value;
    o.stop = env.stop;
    auto ran = bench::RunPiWithEvidence(env.root, o);
    if (!ran) {
      CheckResult r = Make(Status::kFail, "the experiment could not run: " + ran.error().message);
      r.hint = "if tracefs is named, put the files back by hand (as root)";
      return {r};
    }
    const bench::PiJudgement j = bench::JudgePi(*ran);
    const Status status = j.verdict == bench::PiJudgement::Verdict::kPass   ? Status::kPass
                          : j.verdict == bench::PiJudgement::Verdict::kFail ? Status::kFail
                                                                            : Status::kWarn;
    CheckResult r = Make(status, j.summary);
    r.measured = "with inheritance " + std::to_string(ran->inherit.misses) + "/" + std::to_string(ran->inherit.periods) +
                 " missed (worst " + FormatNsShort(ran->inherit.worst_response_ns) + "), without " +
                 std::to_string(ran->none.misses) + "/" + std::to_string(ran->none.periods) + " (worst " +
                 FormatNsShort(ran->none.worst_response_ns) + ")";
    r.limit = "no inversion with PTHREAD_PRIO_INHERIT";
    const bench::PiEvidence& e = ran->evidence;
    r.summary += e.traced ? "; tracefs: the lock holder was raised " + std::to_string(e.boosts_inherit) +
                                " times (sched_pi_setprio" + (e.example.empty() ? "" : ": " + e.example) + ")"
                          : "; no tracefs evidence (" + e.why_not + ")";
    if (!ran->cgroup.empty()) {
      r.summary += "; the threads ran in cgroup " + ran->cgroup + ", the partition that holds CPU " + std::to_string(o.cpu);
    }
    r.mark = a.priority.mark;
    if (status == Status::kFail) {
      r.hint = "this kernel or C library does not boost a PI mutex's holder: check CONFIG_FUTEX_PI and the libc's "
               "PTHREAD_PRIO_INHERIT support before relying on it (rtagent bench pi shows the runs)";
    } else if (status == Status::kWarn) {
      r.hint = "run rtagent bench pi on the board itself (not a virtual machine), on a quiet CPU";
    }
    return {r};
  }
};

}  // namespace

std::unique_ptr<Check> MakePiCheck() { return std::make_unique<PiCheck>(); }

}  // namespace rtagent::check

// The priority-inversion experiment's judgement, its tracefs evidence and its report, without
// running it (the live runs are bench_host_test.cc's), and one live run cut by its time limit.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "base/kernel_paths.h"
#include "base/sysroot.h"
#include "bench/pi_child.h"
#include "bench/pi_experiment.h"
#include "bench/pi_report.h"
#include "bench/pi_trace.h"
#include "base/skip_test_support.h"
#include "inspect/cgroups.h"
#include "profile/test_support.h"

using namespace rtagent;
using namespace rtagent::bench;
using rtagent::profile::testing::TempDir;

namespace {

PiModeResult Mode(const std::string& protocol, int misses, int inversions, int64_t worst_ms) {
  PiModeResult m;
  m.protocol = protocol;
  m.periods = 10;
  m.misses = misses;
  m.inversions = inversions;
  m.contended = 10;
  m.attempts = 1;
  m.worst_response_ns = worst_ms * 1000000;
  m.worst_block_ns = (worst_ms - 1) * 1000000;
  m.worst_medium_ns = inversions > 0 ? 8000000 : 0;
  return m;
}

PiResult Both(PiModeResult none, PiModeResult inherit) {
  PiResult r;
  r.cpu = 1;
  r.priority = 90;
  r.none = std::move(none);
  r.none.low_tid = 100;
  r.inherit = std::move(inherit);
  r.inherit.low_tid = 200;
  return r;
}

const char* kTrace =
    "# tracer: nop\n"
    "#\n"
    "  rtagent-pi-high-201 [001] d..2. 10.000001: sched_pi_setprio: comm=rtagent-pi-low pid=200 oldprio=11 newprio=9\n"
    "  rtagent-pi-low-200  [001] d..2. 10.002001: sched_pi_setprio: comm=rtagent-pi-low pid=200 oldprio=9 newprio=11\n"
    "  rtagent-pi-high-201 [001] d..2. 10.025001: sched_pi_setprio: comm=rtagent-pi-low pid=200 oldprio=11 newprio=9\n"
    "  other-7             [000] d..2. 11.000000: sched_pi_setprio: comm=my worker pid=7 oldprio=120 newprio=49\n"
    "  sshd-5              [000] d..2. 11.000001: sched_switch: prev_comm=sshd prev_pid=5\n";

}  // namespace

TEST_CASE("pi: PASS when the plain mutex inverts and inheritance never does", "[bench][pi]") {
  PiJudgement j = JudgePi(Both(Mode("none", 10, 10, 11), Mode("inherit", 0, 0, 3)));
  CHECK(j.verdict == PiJudgement::Verdict::kPass);
  CHECK_THAT(j.summary, Catch::Contains("PTHREAD_PRIO_INHERIT: 0 of 10 requests missed"));
  CHECK_THAT(j.summary, Catch::Contains("plain mutex: 10 of 10 requests missed the 5.00 ms deadline"));
}

TEST_CASE("pi: FAIL when the medium thread still runs during the wait with inheritance", "[bench][pi]") {
  PiJudgement j = JudgePi(Both(Mode("none", 10, 10, 11), Mode("inherit", 9, 9, 11)));
  CHECK(j.verdict == PiJudgement::Verdict::kFail);
  CHECK_THAT(j.summary, Catch::StartsWith("priority inheritance did not hold"));
}

TEST_CASE("pi: INCONCLUSIVE when nothing inverted without inheritance, or misses came without inversion",
          "[bench][pi]") {
  PiJudgement none = JudgePi(Both(Mode("none", 0, 0, 3), Mode("inherit", 0, 0, 3)));
  CHECK(none.verdict == PiJudgement::Verdict::kInconclusive);
  CHECK_THAT(none.summary, Catch::Contains("no inversion happened without inheritance"));
  PiJudgement noisy = JudgePi(Both(Mode("none", 10, 10, 11), Mode("inherit", 1, 0, 7)));
  CHECK(noisy.verdict == PiJudgement::Verdict::kInconclusive);
  CHECK_THAT(noisy.summary, Catch::Contains("something else delayed the high thread"));
  PiResult empty;
  CHECK(JudgePi(empty).verdict == PiJudgement::Verdict::kInconclusive);
}

TEST_CASE("pi: options are checked before anything runs", "[bench][pi]") {
  PiOptions o;
  CHECK(ValidatePiOptions(o));
  o.priority = 2;
  CHECK_THAT(ValidatePiOptions(o).error().message, Catch::Contains("use 3..99"));
  o.priority = 90;
  o.periods = 0;
  CHECK_FALSE(ValidatePiOptions(o));
}

TEST_CASE("sched_pi_setprio lines parse, only the lock holders' raises count as boosts", "[bench][pi]") {
  const auto events = ParsePiSetprio(kTrace);
  REQUIRE(events.size() == 4);
  CHECK(events[0].comm == "rtagent-pi-low");
  CHECK(events[0].pid == 200);
  CHECK(events[0].oldprio == 11);
  CHECK(events[0].newprio == 9);
  CHECK(events[0].Boost());
  CHECK_FALSE(events[1].Boost());  // the fall back at unlock
  CHECK(events[3].comm == "my worker");
  const PiEvidence e = EvidenceFrom(events, Both(Mode("none", 10, 10, 11), Mode("inherit", 0, 0, 3)));
  CHECK(e.traced);
  CHECK(e.boosts_inherit == 2);
  CHECK(e.boosts_none == 0);
  CHECK_THAT(e.example, Catch::StartsWith("rtagent-pi-high-201 [001]"));
}

TEST_CASE("the trace session switches the event on and puts tracefs back as it found it", "[bench][pi]") {
  TempDir dir;
  const std::string tracefs = kpath::kTracefs;
  dir.Write(kpath::TracefsFile(tracefs, kpath::kAvailableTracers), "nop\n");
  dir.Write(kpath::TracefsFile(tracefs, kpath::kEventSchedPiSetprioEnable), "0\n");
  dir.Write(kpath::TracefsFile(tracefs, kpath::kTracingOn), "0\n");
  dir.Write(kpath::TracefsFile(tracefs, kpath::kTrace), kTrace);
  FsRoot root(dir.path());
  PiResult r = Both(Mode("none", 10, 10, 11), Mode("inherit", 0, 0, 3));
  {
    PiTraceSession s(root);
    REQUIRE(s.Tracing());
    CHECK(*root.ReadTrimmed(kpath::TracefsFile(tracefs, kpath::kEventSchedPiSetprioEnable)) == "1");
    CHECK(*root.ReadTrimmed(kpath::TracefsFile(tracefs, kpath::kTracingOn)) == "1");
    REQUIRE(s.Finish(r));
  }
  CHECK(r.evidence.traced);
  CHECK(r.evidence.boosts_inherit == 2);
  CHECK(*root.ReadTrimmed(kpath::TracefsFile(tracefs, kpath::kEventSchedPiSetprioEnable)) == "0");
  CHECK(*root.ReadTrimmed(kpath::TracefsFile(tracefs, kpath::kTracingOn)) == "0");
}

TEST_CASE("without tracefs or the event, the evidence says why and nothing is written", "[bench][pi]") {
  TempDir dir;
  FsRoot bare(dir.path());
  PiResult r;
  PiTraceSession none(bare);
  CHECK_FALSE(none.Tracing());
  REQUIRE(none.Finish(r));
  CHECK_FALSE(r.evidence.traced);
  CHECK_THAT(r.evidence.why_not, Catch::Contains("tracefs is not mounted"));

  dir.Write(kpath::TracefsFile(kpath::kTracefs, kpath::kAvailableTracers), "nop\n");
  PiTraceSession no_event(bare);
  REQUIRE(no_event.Finish(r));
  CHECK_THAT(r.evidence.why_not, Catch::Contains("no sched_pi_setprio event"));

  auto refused = RunPiWithEvidence(bare, PiOptions{});
  REQUIRE_FALSE(refused);
  CHECK_THAT(refused.error().message, Catch::Contains("measures the live machine only"));
}

TEST_CASE("the pi report: verdict first, both runs, the evidence or why there is none", "[bench][pi]") {
  PiResult r = Both(Mode("none", 10, 10, 11), Mode("inherit", 0, 0, 3));
  r.evidence.traced = true;
  r.evidence.boosts_inherit = 10;
  r.evidence.example = "sched_pi_setprio: comm=rtagent-pi-low pid=200 oldprio=11 newprio=9";
  const PiJudgement j = JudgePi(r);
  const std::string text = RenderPiText(r, j, true);
  CHECK_THAT(text, Catch::StartsWith("pi: PASS — priority inheritance works"));
  CHECK_THAT(text, Catch::Contains("warning: measured on a virtual machine"));
  CHECK_THAT(text, Catch::Contains("CPU 1, SCHED_FIFO: low 88 takes the lock at 0 and works 4.00 ms; medium 89"));
  CHECK_THAT(text, Catch::Contains("  plain mutex: 10 of 10 missed the 5.00 ms deadline"));
  CHECK_THAT(text, Catch::Contains("raised 10 times with inheritance, 0 without"));
  auto j_json = nlohmann::json::parse(RenderPiJson(r, j, true));
  CHECK(j_json["verdict"] == "PASS");
  CHECK(j_json["none"]["inversions"] == 10);
  CHECK(j_json["inherit"]["misses"] == 0);
  CHECK(j_json["priorities"]["medium"] == 89);
  CHECK(j_json["evidence"]["boosts_inherit"] == 10);
  r.evidence = {};
  r.evidence.why_not = "tracefs is not mounted";
  CHECK_THAT(RenderPiText(r, j, false), Catch::Contains("tracefs evidence: none (tracefs is not mounted)"));
}

TEST_CASE("pi: INCONCLUSIVE when a mode never found the lock held, whatever else it shows", "[bench][pi]") {
  // rt-bench under QEMU's TCG: late wake-ups let the low thread finish before the high one
  // asked in every period, so no request was contended and the kernel recorded no boost.
  PiModeResult uncontended = Mode("inherit", 0, 0, 1);
  uncontended.contended = 0;
  uncontended.periods = 50;
  uncontended.attempts = kPiMaxAttempts;
  PiJudgement j = JudgePi(Both(Mode("none", 10, 10, 11), uncontended));
  CHECK(j.verdict == PiJudgement::Verdict::kInconclusive);
  CHECK_THAT(j.summary, Catch::StartsWith("with the PTHREAD_PRIO_INHERIT mutex, the high thread never found the lock held in 50 "
                                          "periods (5 runs)"));
  PiModeResult none = Mode("none", 0, 0, 1);
  none.contended = 0;
  CHECK_THAT(JudgePi(Both(none, Mode("inherit", 0, 0, 3))).summary, Catch::StartsWith("with the plain mutex, the high thread never"));
}

TEST_CASE("pi: a repeated run adds its periods, keeps the worst figures and its lock holder's boosts count", "[bench][pi]") {
  PiModeResult first = Mode("inherit", 0, 0, 1);
  first.contended = 0;
  first.low_tid = 200;
  first.low_tids = {200};
  PiModeResult second = Mode("inherit", 1, 0, 6);
  second.contended = 3;
  second.low_tid = 300;
  second.low_tids = {300};
  MergePiRuns(first, second);
  CHECK(first.periods == 20);
  CHECK(first.misses == 1);
  CHECK(first.contended == 3);
  CHECK(first.attempts == 2);
  CHECK(first.worst_response_ns == 6000000);
  CHECK(first.low_tid == 200);
  CHECK(first.low_tids == std::vector<int>{200, 300});

  PiResult r = Both(Mode("none", 10, 10, 11), first);
  r.inherit.low_tid = 200;
  const std::string trace =
      "  rtagent-pi-high-301 [001] d..2. 10.000001: sched_pi_setprio: comm=rtagent-pi-low pid=300 oldprio=11 newprio=9\n";
  PiEvidence e = EvidenceFrom(ParsePiSetprio(trace), r);
  CHECK(e.boosts_inherit == 1);
  const std::string text = RenderPiText(r, JudgePi(r), false);
  CHECK_THAT(text, Catch::Contains("the high thread found the lock held in 3 of 20 periods (2 runs: a run without contention "
                                   "tests nothing and is repeated)"));
  CHECK(nlohmann::json::parse(RenderPiJson(r, JudgePi(r), false))["inherit"]["contended"] == 3);
}

TEST_CASE("pi: a protocol whose repeated runs the time limit ended is INCONCLUSIVE, saying so", "[bench][pi]") {
  // rt-lava under QEMU's TCG, when work was still measured with the thread CPU-time clock: on
  // the guest's nohz_full CPU (unstable TSC) it stood still for up to 1 s, one request took
  // 4.23 s, and verify's pi check ran for minutes before there was a limit.
  PiModeResult none = Mode("none", 4, 1, 4228);
  none.periods = 4;
  none.contended = 0;
  none.out_of_time = true;
  PiModeResult inherit = Mode("inherit", 2, 0, 1332);
  inherit.periods = 2;
  inherit.contended = 1;
  PiResult r = Both(none, inherit);
  r.cpu = 2;
  r.time_limit_ns = 10000000000;
  PiJudgement j = JudgePi(r);
  CHECK(j.verdict == PiJudgement::Verdict::kInconclusive);
  CHECK_THAT(j.summary, Catch::StartsWith("the experiment's time limit of 10.0 s ended its repeated runs before a period "
                                          "found the lock held, after 4 periods with the plain mutex and 2 with "
                                          "PTHREAD_PRIO_INHERIT: its periods of 25.0 ms ran far longer (the slowest "
                                          "request took 4.23 s), so on CPU 2 the threads' wake-ups lagged or "
                                          "something else held the CPU"));
  const std::string text = RenderPiText(r, j, true);
  CHECK_THAT(text, Catch::Contains("its runs were stopped at its half of the 10.0 s time limit"));
  const auto js = nlohmann::json::parse(RenderPiJson(r, j, true));
  CHECK(js["time_limit_ns"] == 10000000000LL);
  CHECK(js["none"]["out_of_time"] == true);
  CHECK(js["inherit"]["out_of_time"] == false);

  // Out of time before a single period of a mode: the limit, not "interrupted", is named.
  r.inherit = PiModeResult{};
  r.inherit.out_of_time = true;
  r.none.periods = 1;
  CHECK_THAT(JudgePi(r).summary, Catch::StartsWith("the experiment's time limit of 10.0 s ended its repeated runs before "
                                                   "a period found the lock held, after 1 period with the plain mutex "
                                                   "and 0 with PTHREAD_PRIO_INHERIT"));
}

TEST_CASE("a burn counts the short gaps between clock reads as work, not the long ones", "[bench][pi]") {
  const int64_t t0 = 1000000000;
  WorkMeter m(100000, t0);  // 100 us of work
  int64_t t = t0;
  for (int i = 0; i < 9; ++i) CHECK_FALSE(m.Observe(t += 10000));  // 90 us of running
  CHECK(m.worked_ns() == 90000);
  CHECK_FALSE(m.Observe(t += 5000000));  // preempted for 5 ms: not work
  CHECK(m.worked_ns() == 90000);
  CHECK_FALSE(m.Observe(t));  // a read within the same ns counts nothing
  CHECK(m.Observe(t += WorkMeter::kMaxGapNs));  // the longest gap still counted
  CHECK(m.worked_ns() == 90000 + WorkMeter::kMaxGapNs);
  CHECK_FALSE(m.capped());
}

TEST_CASE("a burn whose clock reads never come close together ends at its wall-clock cap", "[bench][pi]") {
  // What froze rt-lava's guest (CI of f546458): the high thread's burn counted a clock that did
  // not move and spun at SCHED_FIFO 90 for minutes. Whatever the reads show, a burn ends.
  CHECK(WorkMeter::CapNs(500000) == 1000000000);  // at least a second
  CHECK(WorkMeter::CapNs(50000000) == 5000000000LL);  // 100 times the work
  const int64_t t0 = 7;
  WorkMeter m(500000, t0);
  int64_t t = t0;
  int reads = 0;
  while (!m.Observe(t += 2 * WorkMeter::kMaxGapNs)) ++reads;
  CHECK(m.worked_ns() == 0);
  CHECK(m.capped());
  CHECK(t - t0 == 1000000000);
  CHECK(reads == 1000000000 / (2 * WorkMeter::kMaxGapNs) - 1);
  // A clock that stands still (or steps back) ends nothing and counts nothing.
  WorkMeter still(500000, t0);
  CHECK_FALSE(still.Observe(t0));
  CHECK_FALSE(still.Observe(t0 - 100));
  CHECK(still.worked_ns() == 0);
}

TEST_CASE("pi: burns ended by their cap make the verdict INCONCLUSIVE, and the report counts them", "[bench][pi]") {
  PiModeResult none = Mode("none", 10, 10, 11);
  none.capped = 3;
  PiResult r = Both(none, Mode("inherit", 0, 0, 3));
  r.cpu = 2;
  const PiJudgement j = JudgePi(r);
  CHECK(j.verdict == PiJudgement::Verdict::kInconclusive);
  CHECK_THAT(j.summary, Catch::StartsWith("3 of the threads' burns ran into their wall-clock cap (100 times their work, "
                                          "at least 1 s) before their work was counted: on CPU 2 the clock reads came "
                                          "more than 50.0 µs apart"));
  CHECK_THAT(RenderPiText(r, j, false), Catch::Contains("3 burns ended at their wall-clock cap"));
  CHECK(nlohmann::json::parse(RenderPiJson(r, j, false))["none"]["capped_burns"] == 3);
  // A FAIL stays a FAIL: the medium thread ran during a wait with inheritance, whatever the cap did.
  r.inherit = Mode("inherit", 9, 9, 11);
  r.inherit.capped = 1;
  CHECK(JudgePi(r).verdict == PiJudgement::Verdict::kFail);
  PiModeResult more = Mode("none", 0, 0, 3);
  more.capped = 2;
  MergePiRuns(none, more);
  CHECK(none.capped == 5);
}

TEST_CASE("pi: the default time limit is 20 times the experiment's own length, at least 5 s", "[bench][pi]") {
  const PiTiming t;
  CHECK(PiTimeLimitNs(10, t) == 10000000000LL);  // 2 x 10 x 25 ms = 0.5 s
  CHECK(PiTimeLimitNs(1, t) == 5000000000LL);
  CHECK(PiTimeLimitNs(1000, t) == 1000000000000LL);
}

TEST_CASE("pi on this machine: past the limit no further run begins, the run in hand finishes", "[bench][pi][host]") {
  if (::geteuid() != 0) {
    RTAGENT_SKIP("the experiment needs root (SCHED_FIFO)");
  }
  PiOptions o;
  o.cpu = 1;
  o.periods = 4;
  o.time_limit_ns = 1;  // past before the first run ends
  auto r = RunPiExperiment(o);
  REQUIRE(r);
  CHECK(r->time_limit_ns == 1);
  for (const PiModeResult* m : {&r->none, &r->inherit}) {
    INFO(m->protocol);
    CHECK(m->attempts == 1);  // without the limit, a run with no contended period is repeated
    CHECK(m->periods == 4);   // the run in hand is not cut
    CHECK(m->out_of_time == (m->contended == 0));
  }
  CHECK(r->inherit.inversions == 0);
}

namespace {

// The cgroup v2 hierarchy's top on this machine, relative to "/", or nullopt.
std::optional<std::string> V2Top(const SysRoot& live) {
  auto mounts = live.Read(kpath::kMounts);
  if (!mounts) return std::nullopt;
  auto v2 = CgroupV2Mount(ParseMounts(*mounts));
  if (!v2) return std::nullopt;
  return kpath::FromAbsolute(*v2);
}

}  // namespace

TEST_CASE("pi in a process of its own: it joins the cgroup it is given and its figures come back", "[bench][pi][host]") {
  // What a partition on the measured CPU needs (rt-accept's partition run under QEMU): the
  // caller cannot pin threads there, a child that joined the partition can. This machine has
  // no partition; the child joins the v2 hierarchy's top, which any root process may.
  if (::geteuid() != 0) {
    RTAGENT_SKIP("the experiment needs root (SCHED_FIFO, cgroup.procs)");
  }
  FsRoot live("/");
  const auto top = V2Top(live);
  if (!top) {
    RTAGENT_SKIP("no cgroup v2 hierarchy is mounted here");
  }
  PiOptions o;
  o.cpu = 1;
  o.periods = 4;
  o.time_limit_ns = 1;
  auto r = RunPiExperimentInCgroup(live, *top, o);
  REQUIRE(r);
  CHECK(r->cgroup == "/");
  CHECK(r->cpu == 1);
  CHECK(r->time_limit_ns == 1);
  CHECK_FALSE(r->interrupted);
  for (const PiModeResult* m : {&r->none, &r->inherit}) {
    INFO(m->protocol);
    CHECK(m->periods == 4);
    CHECK(m->attempts == 1);
    REQUIRE(m->low_tids.size() == 1);
    CHECK(m->low_tids.front() == m->low_tid);
    CHECK(m->low_tid > 0);
    CHECK(m->low_tid != ::getpid());
  }
  CHECK(r->none.protocol == "none");
  CHECK(r->inherit.protocol == "inherit");
  CHECK(r->inherit.inversions == 0);
  const PiJudgement j = JudgePi(*r);
  CHECK_THAT(RenderPiText(*r, j, false),
             Catch::Contains("the three threads ran in a process of their own in cgroup /, the partition that holds CPU 1"));
  CHECK(nlohmann::json::parse(RenderPiJson(*r, j, false))["cgroup"] == "/");

  // A stop asked of the caller reaches the child: its runs end early and say so.
  std::atomic<bool> stop{true};
  o.periods = 40;
  o.stop = &stop;
  auto stopped = RunPiExperimentInCgroup(live, *top, o);
  REQUIRE(stopped);
  CHECK(stopped->interrupted);
  CHECK(stopped->none.periods + stopped->inherit.periods < 80);
}

TEST_CASE("pi in a process of its own: a cgroup it cannot join, or a child that dies, is the error, named", "[bench][pi][host]") {
  if (::geteuid() != 0) {
    RTAGENT_SKIP("the experiment needs root");
  }
  FsRoot live("/");
  const auto top = V2Top(live);
  if (!top) {
    RTAGENT_SKIP("no cgroup v2 hierarchy is mounted here");
  }
  const std::string missing = *top + "/rtagent-test-no-such-cgroup";
  PiOptions o;
  o.cpu = 1;
  o.periods = 1;
  auto r = RunPiExperimentInCgroup(live, missing, o);
  REQUIRE_FALSE(r);
  CHECK(r.error().err == ENOENT);
  CHECK_THAT(r.error().message, Catch::StartsWith("cannot move the experiment's process into cgroup " + missing + ": "));
  // A child that dies before its result is an error that says how it ended.
  std::atomic<int> caller_tid{0};
  Result<PiResult> killed = MakeError("not run");
  o.periods = 40;  // a second per protocol: time to find the child
  std::thread caller([&] {
    caller_tid = static_cast<int>(::gettid());
    killed = RunPiExperimentInCgroup(live, *top, o);
  });
  int child = 0;
  for (int i = 0; i < 2000 && child == 0; ++i) {
    if (caller_tid != 0) {
      auto children = live.Read(kpath::TaskDir(::getpid()) + "/" + std::to_string(caller_tid.load()) + "/children");
      if (children && !children->empty()) child = std::stoi(*children);
    }
    if (child == 0) ::usleep(1000);
  }
  if (child != 0) ::kill(child, SIGKILL);
  caller.join();
  REQUIRE(child != 0);
  REQUIRE_FALSE(killed);
  CHECK(killed.error().message == "the experiment's process in cgroup " + *top + " ended without a result: killed by signal 9 (Killed)");

  // No process to be had (a user at its process limit): the error says what could not start.
  // Root is exempt from RLIMIT_NPROC, so a child of this test becomes nobody first.
  o.periods = 1;
  const pid_t limited = ::fork();
  REQUIRE(limited >= 0);
  if (limited == 0) {
    const rlimit none{0, 0};
    if (::setrlimit(RLIMIT_NPROC, &none) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(2);
    auto refused = RunPiExperimentInCgroup(live, *top, o);
    if (refused) ::_exit(3);
    const std::string want = "cannot start the process that would run the experiment in cgroup " + *top + " (fork): ";
    ::_exit(refused.error().err == EAGAIN && refused.error().message.rfind(want, 0) == 0 ? 0 : 4);
  }
  int limited_status = 0;
  REQUIRE(::waitpid(limited, &limited_status, 0) == limited);
  REQUIRE(WIFEXITED(limited_status));
  CHECK(WEXITSTATUS(limited_status) == 0);  // 2: could not become nobody; 3: it forked; 4: another error

  // Bad options are refused before anything forks.
  o.priority = 2;
  auto bad = RunPiExperimentInCgroup(live, missing, o);
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().message, Catch::Contains("use 3..99"));
}

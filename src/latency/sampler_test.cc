#include "latency/sampler.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "base/fault_root.h"
#include "latency/statistics.h"

using namespace rtagent;
using namespace std::chrono_literals;

namespace {

// Records every call in order and fails chosen ones with a chosen errno; changes nothing.
class FakeSyscalls : public SamplerSyscalls {
 public:
  int fail_lock = 0;
  int fail_fifo = 0;
  int fail_affinity_cpu = -1;
  int fail_affinity_err = EINVAL;
  bool fail_get_affinity = false;

  Result<void> LockMemory() override {
    Log("LockMemory");
    if (fail_lock) return MakeError("mlockall", fail_lock);
    return Ok();
  }
  Result<void> UnlockMemory() override {
    Log("UnlockMemory");
    return Ok();
  }
  Result<CpuSet> GetAffinity() override {
    Log("GetAffinity");
    if (fail_get_affinity) return MakeError("sched_getaffinity", EFAULT);
    return CpuSet::Range(0, 1);
  }
  Result<void> SetAffinity(const CpuSet& cpus) override {
    Log("SetAffinity " + cpus.ToList());
    if (cpus == CpuSet::Of({fail_affinity_cpu})) return MakeError("sched_setaffinity", fail_affinity_err);
    return Ok();
  }
  Result<SchedState> GetScheduler() override {
    Log("GetScheduler");
    return SchedState{SCHED_OTHER, 0};
  }
  Result<void> SetScheduler(const SchedState& s) override {
    Log("SetScheduler " + SchedPolicyName(s.policy) + " " + std::to_string(s.priority));
    if (fail_fifo && s.policy == SCHED_FIFO) return MakeError("sched_setscheduler", fail_fifo);
    return Ok();
  }
  Result<uint64_t> GetTimerSlack() override {
    Log("GetTimerSlack");
    return uint64_t{50000};
  }
  Result<void> SetTimerSlack(uint64_t ns) override {
    Log("SetTimerSlack " + std::to_string(ns));
    return Ok();
  }
  // A device that records its opening (with the host path the kernel one would open) and
  // closing, as "fd 42".
  std::unique_ptr<QosDevice> PmQosDevice(const SysRoot& root) override {
    class Recorder : public QosDevice {
     public:
      Recorder(FakeSyscalls& sys, std::string where) : sys_(sys), where_(std::move(where)) {}
      Result<void> Open(int32_t us) override {
        sys_.Log("OpenPmQos " + where_ + " " + std::to_string(us));
        open_ = true;
        return Ok();
      }
      void Close() override {
        if (open_) sys_.Log("ClosePmQos 42");
        open_ = false;
      }
      bool IsOpen() const override { return open_; }
      std::string Where() const override { return where_; }

     private:
      FakeSyscalls& sys_;
      std::string where_;
      bool open_ = false;
    };
    return std::make_unique<Recorder>(*this, MakeKernelQosDevice(root)->Where());
  }

  std::vector<std::string> calls() {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }
  int Count(const std::string& prefix) {
    int n = 0;
    for (const auto& c : calls()) n += c.rfind(prefix, 0) == 0 ? 1 : 0;
    return n;
  }
  size_t IndexOf(const std::string& call) {
    auto c = calls();
    return static_cast<size_t>(std::find(c.begin(), c.end(), call) - c.begin());
  }

 private:
  void Log(std::string s) {
    std::lock_guard<std::mutex> lock(mu_);
    calls_.push_back(std::move(s));
  }
  std::mutex mu_;
  std::vector<std::string> calls_;
};

// A fixture tree that claims to be the live system, to see where the PM QoS note would go.
class LiveLikeRoot : public FsRoot {
 public:
  using FsRoot::FsRoot;
  bool IsLive() const override { return true; }
};

SamplerConfig ShortConfig(CpuSet cpus = CpuSet::Of({0})) {
  SamplerConfig c;
  c.cpus = std::move(cpus);
  c.interval = 1000us;
  c.duration = 20ms;
  return c;
}

}  // namespace

TEST_CASE("a wake-up a whole period late skips the periods it missed", "[latency]") {
  // 1 ms period, deadline at 10 ms, the run's last deadline at 100 ms.
  const int64_t end = 100000000;
  NextDeadline d = AdvanceDeadline(10000000, 10000050, 1000000, end);  // 50 ns late: on time
  CHECK(d.next_ns == 11000000);
  CHECK(d.skipped == 0);
  d = AdvanceDeadline(10000000, 10999999, 1000000, end);  // just under a period late
  CHECK(d.next_ns == 11000000);
  CHECK(d.skipped == 0);
  d = AdvanceDeadline(10000000, 11000000, 1000000, end);  // exactly one period: the 11 ms one is gone
  CHECK(d.next_ns == 12000000);
  CHECK(d.skipped == 1);
  d = AdvanceDeadline(10000000, 13500000, 1000000, end);  // 3.5 periods: 11, 12, 13 ms gone
  CHECK(d.next_ns == 14000000);
  CHECK(d.skipped == 3);
}

TEST_CASE("a late wake-up near the end of a run skips only the periods the run had", "[latency]") {
  // The run's last deadline is at 100 ms; the one at 98 ms wakes 25 ms late, at 123 ms. The 99
  // and 100 ms periods were the run's and are skipped; 101 to 123 ms were never in it.
  NextDeadline d = AdvanceDeadline(98000000, 123000000, 1000000, 100000000);
  CHECK(d.next_ns == 124000000);  // past the end: the loop stops
  CHECK(d.skipped == 2);
  // The last deadline itself woke late: nothing after it belongs to the run.
  d = AdvanceDeadline(100000000, 107000000, 1000000, 100000000);
  CHECK(d.skipped == 0);
  CHECK(d.next_ns == 108000000);
  // An end between two deadlines: 99 ms is the last one in the run.
  d = AdvanceDeadline(97000000, 105000000, 1000000, 99500000);
  CHECK(d.skipped == 2);
}

TEST_CASE("sampler config problems are refused before anything is touched", "[latency]") {
  SamplerConfig c = ShortConfig();
  CHECK(Sampler::Validate(c));
  c.cpus = CpuSet();
  CHECK_THAT(Sampler::Validate(c).error().message, Catch::Contains("no CPU"));
  c = ShortConfig();
  c.duration = 0ns;
  CHECK_THAT(Sampler::Validate(c).error().message, Catch::Contains("duration"));
  c = ShortConfig();
  c.duration = 500us;
  CHECK_THAT(Sampler::Validate(c).error().message, Catch::Contains("shorter than one interval"));
  c = ShortConfig();
  c.priority = 0;
  CHECK_THAT(Sampler::Validate(c).error().message, Catch::Contains("priority 0"));
  c.priority = 100;
  CHECK_FALSE(Sampler::Validate(c));
  c = ShortConfig();
  c.interval = 0us;
  CHECK_FALSE(Sampler::Validate(c));
  // The stack must hold what is pre-faulted and 16 KiB more (the rtagent-sampler's
  // --stack-bytes and --prefault-bytes).
  c = ShortConfig();
  c.stack_bytes = 64 * 1024;
  c.stack_prefault_bytes = 64 * 1024;
  CHECK(Sampler::Validate(c).error().err == EINVAL);
  CHECK_THAT(Sampler::Validate(c).error().message,
             Catch::StartsWith("a measuring thread's stack of 65536 bytes cannot hold 65536 pre-faulted bytes"));
  c.stack_bytes = 64 * 1024 + 16384;
  CHECK(Sampler::Validate(c));

  FakeSyscalls sys;
  TempTree t;
  FaultRoot root(t.dir());
  c.cpus = CpuSet();
  Sampler s(c, root, sys);
  CHECK_FALSE(s.Start());
  CHECK(sys.calls().empty());
}

TEST_CASE("sampler setup follows the start-up ritual and gives everything back", "[latency]") {
  FakeSyscalls sys;
  TempTree t;
  FaultRoot root(t.dir());
  Sampler s(ShortConfig(), root, sys);
  auto r = s.Run();
  REQUIRE(r);
  CHECK(sys.calls() == std::vector<std::string>{
                           "LockMemory",                  // lock memory first
                           "GetAffinity", "SetAffinity 0",  // then pin the thread
                           "GetScheduler", "SetScheduler SCHED_FIFO 80",
                           "SetScheduler SCHED_OTHER 0",    // the scheduling lease gives back
                           "SetAffinity 0-1",              // the affinity lease gives back
                           "UnlockMemory",                 // and the memory lease last
                       });
  CHECK(r->fifo);
  CHECK(r->memory_locked);
  CHECK_FALSE(r->unprivileged_fallback);
  CHECK_FALSE(r->own_pm_qos_us);
  CHECK_FALSE(r->interrupted);
  REQUIRE(r->cpus.size() == 1);
  CHECK(r->cpus[0].sched == SchedState{SCHED_FIFO, 80});
  // 20 ms at 1 ms: 20 periods, each sampled or skipped (the fake does not raise the
  // priority, so a busy machine may make the thread miss some; a late last wake-up may skip
  // a period past the end).
  const Histogram& h = r->cpus[0].histogram;
  CHECK(h.samples() >= 1);
  CHECK(h.samples() + h.skipped_periods() >= 20);
  CHECK(h.samples() + h.skipped_periods() <= 25);
}

TEST_CASE("SCHED_FIFO refused with EPERM is an error value naming the way out", "[latency]") {
  FakeSyscalls sys;
  sys.fail_fifo = EPERM;
  TempTree t;
  FaultRoot root(t.dir());
  Sampler s(ShortConfig(CpuSet::Of({0, 1})), root, sys);
  auto r = s.Start();
  REQUIRE_FALSE(r);
  CHECK(r.error().err == EPERM);
  CHECK_THAT(r.error().message, Catch::Contains("SCHED_FIFO priority 80"));
  CHECK_THAT(r.error().message, Catch::Contains("run as root"));
  // Nothing measured, every lease given back.
  CHECK(sys.Count("SetAffinity 0-1") == 2);
  CHECK(sys.calls().back() == "UnlockMemory");
  CHECK(sys.Count("OpenPmQos") == 0);
}

TEST_CASE("the SCHED_OTHER fallback runs only when allowed, and says so", "[latency]") {
  FakeSyscalls sys;
  sys.fail_fifo = EPERM;
  TempTree t;
  FaultRoot root(t.dir());
  SamplerConfig c = ShortConfig();
  c.allow_unprivileged = true;
  Sampler s(c, root, sys);
  auto r = s.Run();
  REQUIRE(r);
  CHECK_FALSE(r->fifo);
  CHECK(r->unprivileged_fallback);
  CHECK(r->cpus[0].sched.policy == SCHED_OTHER);
  REQUIRE_FALSE(r->notes.empty());
  CHECK_THAT(r->notes.back(), Catch::Contains("SCHED_OTHER, not SCHED_FIFO"));
  // 1 ns timer slack for the normal-class loop, and the old slack back afterwards.
  CHECK(sys.IndexOf("SetTimerSlack 1") < sys.IndexOf("SetTimerSlack 50000"));
  CHECK(sys.IndexOf("SetTimerSlack 50000") < sys.calls().size());
  CHECK(sys.Count("SetScheduler SCHED_OTHER") == 0);  // nothing taken, nothing to give back
}

TEST_CASE("mlockall refused is an error unless the fallback is allowed", "[latency]") {
  TempTree t;
  FaultRoot root(t.dir());
  {
    FakeSyscalls sys;
    sys.fail_lock = ENOMEM;
    Sampler s(ShortConfig(), root, sys);
    auto r = s.Start();
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains("cannot lock"));
    CHECK(sys.calls() == std::vector<std::string>{"LockMemory"});  // no thread was started
  }
  {
    FakeSyscalls sys;
    sys.fail_lock = EPERM;
    SamplerConfig c = ShortConfig();
    c.allow_unprivileged = true;
    Sampler s(c, root, sys);
    auto r = s.Run();
    REQUIRE(r);
    CHECK_FALSE(r->memory_locked);
    CHECK(r->unprivileged_fallback);
    CHECK(r->fifo);
    CHECK(sys.Count("UnlockMemory") == 0);
  }
}

TEST_CASE("a CPU the machine lacks stops the whole run with its number", "[latency]") {
  FakeSyscalls sys;
  sys.fail_affinity_cpu = 7;
  TempTree t;
  FaultRoot root(t.dir());
  Sampler s(ShortConfig(CpuSet::Of({0, 7})), root, sys);
  auto r = s.Start();
  REQUIRE_FALSE(r);
  CHECK(r.error().err == EINVAL);
  CHECK_THAT(r.error().message, Catch::Contains("CPU 7"));
  CHECK(sys.calls().back() == "UnlockMemory");
}

TEST_CASE("the sampler's own PM QoS note is taken only when asked and never under a fixture", "[latency]") {
  TempTree t;
  SECTION("not asked: not taken, even live") {
    FakeSyscalls sys;
    LiveLikeRoot root(t.dir());
    Sampler s(ShortConfig(), root, sys);
    auto r = s.Run();
    REQUIRE(r);
    CHECK(sys.Count("OpenPmQos") == 0);
    CHECK_FALSE(r->own_pm_qos_us);
  }
  SECTION("asked under a fixture root: refused with a note, the run goes on") {
    FakeSyscalls sys;
    FaultRoot root(t.dir());
    SamplerConfig c = ShortConfig();
    c.hold_pm_qos_us = 0;
    Sampler s(c, root, sys);
    auto r = s.Run();
    REQUIRE(r);
    CHECK(sys.Count("OpenPmQos") == 0);
    CHECK_FALSE(r->own_pm_qos_us);
    REQUIRE(r->notes.size() == 1);
    CHECK_THAT(r->notes[0], Catch::Contains("fixture"));
  }
  SECTION("asked on the live root: held for the whole run, through the root's directory") {
    FakeSyscalls sys;
    LiveLikeRoot root(t.dir());
    SamplerConfig c = ShortConfig();
    c.hold_pm_qos_us = 0;
    Sampler s(c, root, sys);
    auto r = s.Run();
    REQUIRE(r);
    REQUIRE(r->own_pm_qos_us);
    CHECK(*r->own_pm_qos_us == 0);
    const std::string open = "OpenPmQos " + t.dir() + "/dev/cpu_dma_latency 0";
    CHECK(sys.IndexOf("SetScheduler SCHED_FIFO 80") < sys.IndexOf(open));   // after the threads are set up
    CHECK(sys.IndexOf(open) < sys.IndexOf("ClosePmQos 42"));
    CHECK(sys.IndexOf("ClosePmQos 42") < sys.IndexOf("UnlockMemory"));
    CHECK(sys.Count("ClosePmQos") == 1);
  }
}

TEST_CASE("RequestStop ends the run early and marks it interrupted", "[latency]") {
  FakeSyscalls sys;
  TempTree t;
  FaultRoot root(t.dir());
  SamplerConfig c = ShortConfig(CpuSet::Of({0, 1}));
  c.duration = 10s;
  Sampler s(c, root, sys);
  REQUIRE(s.Start());
  std::this_thread::sleep_for(30ms);
  auto progress = s.Progress();
  REQUIRE(progress.size() == 2);
  CHECK(progress[1].cpu == 1);
  s.RequestStop();
  auto r = s.Wait();
  REQUIRE(r);
  CHECK(r->interrupted);
  CHECK(r->cpus[0].stopped_early);
  CHECK(r->duration_actual < 5s);
  CHECK(r->cpus[0].histogram.samples() < 5000);
  CHECK(s.Finished());
}

namespace {

std::string StatusField(const std::string& key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) == 0) return line.substr(key.size() + 1);
  }
  return "";
}

}  // namespace

TEST_CASE("a real one-second run on this machine counts every period", "[latency][host]") {
  // Needs: root (SCHED_FIFO, mlockall) or falls back to SCHED_OTHER; at least one online CPU.
  const int nr = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  CpuSet cpus = CpuSet::Range(0, std::min(nr, 2) - 1);
  const int policy_before = sched_getscheduler(0);
  const std::string locked_before = StatusField("VmLck");
  FsRoot live("/");  // the live root, but no PM QoS is asked: nothing is written

  SamplerConfig c;
  c.cpus = cpus;
  c.interval = 1000us;
  c.duration = 1s;
  c.priority = 80;
  c.allow_unprivileged = true;  // a non-root CI still runs it, marked
  Sampler s(c, live, RealSamplerSyscalls());
  REQUIRE(s.Start());
  uint64_t seen = 0;
  while (!s.Finished()) {
    std::this_thread::sleep_for(100ms);
    for (const auto& p : s.Progress()) seen = std::max(seen, p.samples);
  }
  auto r = s.Wait();
  REQUIRE(r);
  CHECK(seen > 0);
  REQUIRE(r->cpus.size() == static_cast<size_t>(cpus.Count()));
  for (const CpuRun& run : r->cpus) {
    INFO("CPU " << run.cpu);
    const Histogram& h = run.histogram;
    // 1 s at 1 ms: 1000 periods, each either sampled or counted as skipped.
    CHECK(h.samples() + h.skipped_periods() == 1000);
    uint64_t in_bins = 0;
    for (uint64_t b : h.bins()) in_bins += b;
    CHECK(in_bins + h.overflows() == h.samples());
    LatencyStats st = ComputeStats(h);
    REQUIRE(st.min_ns);
    CHECK(*st.min_ns <= *st.max_ns);
    CHECK(*st.mean_ns >= static_cast<double>(*st.min_ns));
    CHECK(*st.mean_ns <= static_cast<double>(*st.max_ns));
    std::optional<uint32_t> last;
    for (const Percentile& p : st.percentiles) {
      if (!p.us) continue;
      CHECK(*p.us * int64_t{1000} <= *st.max_ns);
      if (last) CHECK(*p.us >= *last);
      last = p.us;
    }
    if (r->fifo) CHECK(run.sched == SchedState{SCHED_FIFO, 80});
  }
  CHECK(r->duration_actual > 900ms);
  CHECK(r->duration_actual < 10s);  // it stops at its end: the last deadline plus that wake-up's lateness
  CHECK_FALSE(r->interrupted);
  // Everything given back: this thread's class, the process's locked memory.
  CHECK(sched_getscheduler(0) == policy_before);
  CHECK(StatusField("VmLck") == locked_before);
}

TEST_CASE("the sampler joins the partition's cgroup before anything else and keeps its own thread off the measured CPUs", "[latency]") {
  TempTree t;
  t.Put("sys/fs/cgroup/rt/cgroup.procs", "");
  SamplerConfig c = ShortConfig(CpuSet::Of({1}));
  c.join_cgroup_dir = "sys/fs/cgroup/rt";
  SECTION("live: \"0\" written to cgroup.procs, then the caller's thread moved to the spare CPU") {
    FakeSyscalls sys;
    LiveLikeRoot root(t.dir());
    Sampler s(c, root, sys);
    auto r = s.Run();
    REQUIRE(r);
    CHECK(t.Get("sys/fs/cgroup/rt/cgroup.procs") == "0");
    const auto calls = sys.calls();
    REQUIRE(calls.size() >= 3);
    CHECK(calls[0] == "GetAffinity");    // what the cgroup allows (the fake: 0-1)
    CHECK(calls[1] == "SetAffinity 0");  // the reporting thread off measured CPU 1
    CHECK(calls[2] == "LockMemory");
    CHECK(r->notes.empty());
  }
  SECTION("every CPU of the cgroup measured: the reporting thread stays, and the verdict says so") {
    FakeSyscalls sys;
    LiveLikeRoot root(t.dir());
    SamplerConfig all = c;
    all.cpus = CpuSet::Range(0, 1);
    Sampler s(all, root, sys);
    auto r = s.Run();
    REQUIRE(r);
    CHECK(sys.calls()[1] == "LockMemory");
    REQUIRE(r->notes.size() == 1);
    CHECK_THAT(r->notes[0], Catch::Contains("sys/fs/cgroup/rt") && Catch::Contains("shared them"));
  }
  SECTION("the cgroup is gone: an error naming it, nothing locked or pinned") {
    FakeSyscalls sys;
    LiveLikeRoot root(t.dir());
    SamplerConfig gone = c;
    gone.join_cgroup_dir = "sys/fs/cgroup/missing";
    Sampler s(gone, root, sys);
    auto r = s.Start();
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains("cannot move the measuring process into cgroup sys/fs/cgroup/missing"));
    CHECK(sys.calls().empty());
  }
  SECTION("the CPUs after joining cannot be read: an error naming the cgroup, nothing locked") {
    FakeSyscalls sys;
    sys.fail_get_affinity = true;
    LiveLikeRoot root(t.dir());
    Sampler s(c, root, sys);
    auto r = s.Start();
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains("after joining cgroup sys/fs/cgroup/rt") && Catch::Contains("sched_getaffinity"));
    CHECK(sys.Count("LockMemory") == 0);
  }
  SECTION("the reporting thread cannot be moved off the measured CPUs: an error, nothing locked") {
    FakeSyscalls sys;
    sys.fail_affinity_cpu = 0;  // the spare CPU of 0-1 once CPU 1 is measured
    LiveLikeRoot root(t.dir());
    Sampler s(c, root, sys);
    auto r = s.Start();
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains("cannot keep the reporting thread off the measured CPUs"));
    CHECK(sys.Count("LockMemory") == 0);
  }
  SECTION("under a fixture root: not joined, with a note") {
    FakeSyscalls sys;
    FaultRoot root(t.dir());
    Sampler s(c, root, sys);
    auto r = s.Run();
    REQUIRE(r);
    CHECK(t.Get("sys/fs/cgroup/rt/cgroup.procs").empty());
    REQUIRE(r->notes.size() == 1);
    CHECK_THAT(r->notes[0], Catch::Contains("not joined") && Catch::Contains("fixture"));
  }
}

TEST_CASE("the real scheduler call's refusal names the class, the priority and the errno, and changes nothing", "[latency]") {
  // Priority 100 is past SCHED_FIFO's 1..99: the kernel refuses it with EINVAL before it
  // looks at the caller's rights (kernel/sched/syscalls.c, __sched_setscheduler), as root or not.
  SamplerSyscalls& sys = RealSamplerSyscalls();
  auto before = sys.GetScheduler();
  REQUIRE(before);
  auto r = sys.SetScheduler(SchedState{SCHED_FIFO, 100});
  REQUIRE_FALSE(r);
  CHECK(r.error().err == EINVAL);
  CHECK_THAT(r.error().message, Catch::Equals("sched_setscheduler SCHED_FIFO priority 100: Invalid argument"));
  auto after = sys.GetScheduler();
  REQUIRE(after);
  CHECK(after->policy == before->policy);
  CHECK(after->priority == before->priority);
}

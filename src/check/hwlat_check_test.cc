// The hwlat check against a fake tracefs in a scratch tree: what it writes, what it reads,
// and that every file it changed reads as before afterwards, whatever happened (a refused
// write, Ctrl-C). A [host] case runs it on this machine, which has no hwlat tracer.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <map>

#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "base/skip_test_support.h"
#include "check/check_test_support.h"
#include "check/hwlat_check.h"
#include "check/tracer.h"
#include "profile/test_support.h"

using namespace rtagent;
using namespace rtagent::check;
using namespace rtagent::check::testing;
using profile::Diagnostic;
using profile::testing::CheckAt;
using profile::testing::LoadYaml;
using profile::testing::Only;
using profile::testing::TempDir;

namespace {

const std::string kProfile =
    "cores:\n"
    "  housekeeping: 0-1\n"
    "  isolated: 2-3\n"
    "checks:\n"
    "  hwlat:\n"
    "    width: 250ms\n"
    "    window: 500ms\n"
    "    duration: 3s\n"
    "    threshold_us: 10\n";

const std::string kTraceWithGaps =
    "# tracer: hwlat\n"
    "#\n"
    "# entries-in-buffer/entries-written: 2/2   #P:4\n"
    "#           TASK-PID     CPU#  ||||   TIMESTAMP  FUNCTION\n"
    "#              | |         |   ||||      |         |\n"
    "           <...>-1729  [002] d...   678.473449: #1     inner/outer(us):   12/3    ts:1581527483.343962693 count:6\n"
    "           <...>-1729  [003] d...   689.556542: #2     inner/outer(us):   20/25   ts:1581527494.889008092 count:1\n";

// The tracefs files the check leases, as a stock kernel shows them before anyone traces.
const std::map<std::string, std::string> kInitial = {
    {kpath::kCurrentTracer, "nop\n"},
    {kpath::kTracingOn, "1\n"},
    {kpath::kTracingThresh, "0\n"},
    {kpath::kTracingCpumask, "f\n"},
    {kpath::kTracingMaxLatency, "0\n"},
    {kpath::kHwlatWidth, "500000\n"},
    {kpath::kHwlatWindow, "1000000\n"},
    {kpath::kHwlatMode, "none [round-robin] per-cpu\n"},
};

/// FaultRoot that refuses, as trace_min_max_param does, a width above the window or a window
/// below the width.
class KernelLikeRoot : public FaultRoot {
 public:
  KernelLikeRoot(std::string dir, std::string tracefs) : FaultRoot(std::move(dir)), tracefs_(std::move(tracefs)) {}
  Result<void> Write(const std::string& path, const std::string& value) override {
    auto num = [&](const std::string& f) { return std::stoll(*ReadTrimmed(kpath::TracefsFile(tracefs_, f))); };
    if (path == kpath::TracefsFile(tracefs_, kpath::kHwlatWidth) && std::stoll(value) > num(kpath::kHwlatWindow)) {
      return MakeError("width above window", EINVAL);
    }
    if (path == kpath::TracefsFile(tracefs_, kpath::kHwlatWindow) && std::stoll(value) < num(kpath::kHwlatWidth)) {
      return MakeError("window below width", EINVAL);
    }
    return FaultRoot::Write(path, value);
  }

 private:
  std::string tracefs_;
};

struct HwlatBench {
  TempTree tree;
  std::string tracefs;
  Bench bench;
  FaultRoot* root = nullptr;
  std::map<std::string, std::string> initial = kInitial;  ///< what RequireRestored expects

  explicit HwlatBench(const std::string& profile = kProfile, const std::string& where = kpath::kTracefs,
                      const std::string& tracers = "hwlat blk function nop", bool kernel_like = false)
      : tracefs(where) {
    tree.Put(kpath::kCpuPossible, "0-3\n");
    tree.Put(kpath::kCpuOnline, "0-3\n");
    if (!tracers.empty()) {
      tree.Put(kpath::TracefsFile(where, kpath::kAvailableTracers), tracers + "\n");
      for (const auto& [f, v] : kInitial) tree.Put(kpath::TracefsFile(where, f), v);
      tree.Put(kpath::TracefsFile(where, kpath::kTrace), "# tracer: nop\n#\n");
    }
    bench = LoadBench(tree.dir(), profile);
    auto fr = kernel_like ? std::make_unique<KernelLikeRoot>(tree.dir(), where) : std::make_unique<FaultRoot>(tree.dir());
    root = fr.get();
    bench.root = std::move(fr);
  }
  std::string File(const std::string& f) const { return tree.Get(kpath::TracefsFile(tracefs, f)); }
  /// Starts the run with `f` reading `v` instead of kInitial's value.
  void Initially(const std::string& f, const std::string& v) {
    tree.Put(kpath::TracefsFile(tracefs, f), v);
    initial[f] = v;
  }
  /// Starts the run without `f`, as an older kernel has no hwlat_detector/mode.
  void Without(const std::string& f) {
    std::filesystem::remove(tree.dir() + "/" + kpath::TracefsFile(tracefs, f));
    initial.erase(f);
  }
  /// The values written to `f`, in order.
  std::vector<std::string> WritesTo(const std::string& f) const {
    std::vector<std::string> out;
    for (const auto& [path, value] : root->writes()) {
      if (path == kpath::TracefsFile(tracefs, f)) out.push_back(value);
    }
    return out;
  }
  /// True when every leased file reads as it did before the check ran.
  void RequireRestored() const {
    for (const auto& [f, v] : initial) {
      INFO(f);
      CHECK(File(f) == v);
    }
  }
  std::vector<CheckResult> Run(std::function<bool(Duration)> wait) {
    auto c = FindCheck("hwlat");
    REQUIRE(c);
    // The fixture's tracer files stand for a live tracer (the wait writes the trace).
    CheckEnv env{bench.profile, *bench.root, bench.state, bench.suite, std::move(wait), nullptr, true};
    return c->Run(env);
  }
};

}  // namespace

TEST_CASE("hwlat trace: every record's CPU and inner/outer gap", "[check][hwlat]") {
  auto gaps = ParseHwlatTrace(kTraceWithGaps);
  REQUIRE(gaps.size() == 2);
  CHECK(gaps[0].cpu == 2);
  CHECK(gaps[0].inner_us == 12);
  CHECK(gaps[0].outer_us == 3);
  CHECK(gaps[1].cpu == 3);
  CHECK(gaps[1].Worst() == 25);
  CHECK(ParseHwlatTrace("# tracer: hwlat\n#\n").empty());
}

TEST_CASE("hwlat: sets width, window, threshold and CPUs from the profile, runs, reports the gaps, restores", "[check][hwlat]") {
  HwlatBench hb;
  std::map<std::string, std::string> during;
  Duration waited{};
  auto rs = hb.Run([&](Duration d) {
    waited = d;
    for (const auto& [f, v] : kInitial) during[f] = hb.File(f);
    hb.tree.Put(kpath::TracefsFile(hb.tracefs, kpath::kTrace), kTraceWithGaps);
    hb.tree.Put(kpath::TracefsFile(hb.tracefs, kpath::kTracingMaxLatency), "25\n");
    return true;
  });
  CHECK(waited == std::chrono::seconds(3));
  CHECK(during[kpath::kCurrentTracer] == "hwlat\n");
  CHECK(during[kpath::kTracingOn] == "1\n");
  CHECK(during[kpath::kTracingThresh] == "10\n");
  CHECK(during[kpath::kHwlatWidth] == "250000\n");
  CHECK(during[kpath::kHwlatWindow] == "500000\n");
  CHECK(during[kpath::kTracingCpumask] == "c\n");  // the isolated CPUs 2-3
  CHECK(during[kpath::kTracingMaxLatency] == "0\n");
  CHECK(during[kpath::kHwlatMode] == "none [round-robin] per-cpu\n");
  REQUIRE(rs.size() == 1);
  const auto& r = rs[0];
  CHECK(r.status == Status::kFail);
  CHECK(r.measured == "2 gaps above 10 us, worst 25 us");
  CHECK_THAT(r.summary, Catch::Contains("worst 25 us on CPU 3"));
  CHECK_THAT(r.summary, Catch::Contains("width 250000 us per 500000 us window on CPUs 2-3 for 3s, round-robin"));
  CHECK_THAT(r.summary, Catch::Contains("SMI"));
  CHECK(r.chapter == "Chapter 5 (Measuring the worst case)");
  CHECK(r.mark.line == 9);
  hb.RequireRestored();
  // The default mode is written even though the kernel already had it, so the run does not
  // depend on what was left there; it then reads as before, so the restore writes nothing.
  CHECK(hb.WritesTo(kpath::kHwlatMode) == std::vector<std::string>{"round-robin"});
}

TEST_CASE("hwlat: a quiet run passes and names its setup", "[check][hwlat]") {
  HwlatBench hb;
  auto rs = hb.Run([](Duration) { return true; });
  REQUIRE(rs.size() == 1);
  CHECK(rs[0].status == Status::kPass);
  CHECK(rs[0].summary ==
        "no hardware latency gap above 10 us (width 250000 us per 500000 us window on CPUs 2-3 for 3s, round-robin)");
  hb.RequireRestored();
}

// Issue 17: under --root the fixture's captured trace would be judged as if this run made it.
TEST_CASE("hwlat: under --root it does not run, says why, and leaves the fixture's tracer alone", "[check][hwlat]") {
  HwlatBench hb;
  auto rs = hb.bench.Run("hwlat");  // as the runner runs it on a fixture root: no live time
  REQUIRE(rs.size() == 1);
  CHECK(rs[0].status == Status::kSkip);
  CHECK_THAT(rs[0].summary, Catch::StartsWith("not run: --root " + hb.tree.dir() + " is a fixture tree"));
  CHECK(hb.root->writes().empty());
  hb.RequireRestored();
}

const std::string kPerCpuProfile = kProfile + "    mode: per-cpu\n";  // line 10

TEST_CASE("hwlat: checks.hwlat.mode is written before the tracer starts and named in the summary", "[check][hwlat]") {
  SECTION("per-cpu, asked by the profile") {
    HwlatBench hb(kPerCpuProfile);
    std::string mode, tracer;
    auto rs = hb.Run([&](Duration) {
      mode = hb.File(kpath::kHwlatMode);
      tracer = hb.File(kpath::kCurrentTracer);
      return true;
    });
    CHECK(mode == "none round-robin [per-cpu]\n");
    CHECK(tracer == "hwlat\n");
    REQUIRE(rs.size() == 1);
    CHECK(rs[0].status == Status::kPass);
    CHECK_THAT(rs[0].summary, Catch::EndsWith("(width 250000 us per 500000 us window on CPUs 2-3 for 3s, per-cpu)"));
    // The mode goes in before current_tracer: the tracer starts its threads for the mode it finds.
    std::vector<std::string> order;
    for (const auto& [path, value] : hb.root->writes()) order.push_back(path);
    auto at = [&](const std::string& f) {
      return std::find(order.begin(), order.end(), kpath::TracefsFile(hb.tracefs, f)) - order.begin();
    };
    CHECK(at(kpath::kHwlatMode) < at(kpath::kCurrentTracer));
    hb.RequireRestored();
  }
  SECTION("the default over a mode someone left at none") {
    HwlatBench hb;
    hb.Initially(kpath::kHwlatMode, "[none] round-robin per-cpu\n");
    std::string mode;
    auto rs = hb.Run([&](Duration) {
      mode = hb.File(kpath::kHwlatMode);
      return true;
    });
    CHECK(mode == "none [round-robin] per-cpu\n");
    REQUIRE(rs.size() == 1);
    CHECK_THAT(rs[0].summary, Catch::Contains("for 3s, round-robin)"));
    CHECK(hb.File(kpath::kHwlatMode) == "[none] round-robin per-cpu\n");
    CHECK(hb.WritesTo(kpath::kHwlatMode) == std::vector<std::string>{"round-robin", "none"});
    hb.RequireRestored();
  }
}

TEST_CASE("hwlat: the mode is put back on every exit path", "[check][hwlat]") {
  const std::string kPerCpu = "none round-robin [per-cpu]\n";
  HwlatBench hb(kPerCpuProfile);
  std::string during;
  auto seen = [&](bool completes) {
    return [&, completes](Duration) {
      during = hb.File(kpath::kHwlatMode);
      return completes;
    };
  };
  SECTION("a completed run") {
    auto rs = hb.Run(seen(true));
    CHECK(rs.size() == 1);
    CHECK(during == kPerCpu);
  }
  SECTION("Ctrl-C") {
    auto rs = hb.Run(seen(false));
    REQUIRE(rs.size() == 1);
    CHECK_THAT(rs[0].summary, Catch::Contains("interrupted"));
    CHECK(during == kPerCpu);
  }
  SECTION("an unreadable trace") {
    auto rs = hb.Run([&](Duration) {
      during = hb.File(kpath::kHwlatMode);
      hb.root->FailReads(kpath::TracefsFile(hb.tracefs, kpath::kTrace), EIO);
      return true;
    });
    REQUIRE(rs.size() == 1);
    CHECK_THAT(rs[0].summary, Catch::Contains("cannot read the trace"));
    CHECK(during == kPerCpu);
  }
  SECTION("current_tracer refused after the mode was written") {
    hb.root->FailWrites(kpath::TracefsFile(hb.tracefs, kpath::kCurrentTracer), EBUSY);
    auto rs = hb.Run(seen(true));
    CHECK(during.empty());  // never ran
    REQUIRE(rs.size() == 1);
    CHECK(rs[0].status == Status::kSkip);
    CHECK_THAT(rs[0].summary, Catch::Contains("cannot set up the hwlat tracer"));
    CHECK(hb.WritesTo(kpath::kHwlatMode) == std::vector<std::string>{"per-cpu", "round-robin"});
  }
  SECTION("the mode itself refused") {
    hb.root->FailWrites(kpath::TracefsFile(hb.tracefs, kpath::kHwlatMode), EINVAL);
    auto rs = hb.Run(seen(true));
    CHECK(during.empty());
    REQUIRE(rs.size() == 1);
    CHECK(rs[0].status == Status::kSkip);
    CHECK_THAT(rs[0].summary, Catch::Contains("cannot set up the hwlat tracer") && Catch::Contains("hwlat_detector/mode") &&
                                  Catch::Contains("Invalid argument") && Catch::Contains("put back"));
    // What was written before it (threshold, width, window, cpumask) went back: checked below.
    CHECK(hb.WritesTo(kpath::kTracingThresh) == std::vector<std::string>{"10", "0"});
  }
  SECTION("a refused restore of the tracer: the mode still goes back") {
    hb.root->FailWrites(kpath::TracefsFile(hb.tracefs, kpath::kCurrentTracer), EBUSY, 1);
    auto rs = hb.Run(seen(true));
    CHECK(during == kPerCpu);
    REQUIRE(rs.size() == 2);
    CHECK(ById(rs, "hwlat.restore").status == Status::kFail);
    hb.initial.erase(kpath::kCurrentTracer);  // left at hwlat, as hwlat.restore says
  }
  hb.RequireRestored();
}

TEST_CASE("hwlat: a mode the kernel does not offer is a SKIP naming what it offers, nothing is written", "[check][hwlat]") {
  HwlatBench hb(kPerCpuProfile);
  hb.Initially(kpath::kHwlatMode, "none [round-robin]\n");  // a kernel with the file but without per-cpu
  bool ran = false;
  auto rs = hb.Run([&](Duration) { return ran = true; });
  CHECK_FALSE(ran);
  REQUIRE(rs.size() == 1);
  CHECK(rs[0].status == Status::kSkip);
  CHECK(rs[0].summary == "sys/kernel/tracing/hwlat_detector/mode offers none round-robin, not per-cpu "
                         "(checks.hwlat.mode: per-cpu); hwlat did not run, nothing was changed");
  CHECK(rs[0].hint == "set checks.hwlat.mode to one this kernel offers: none round-robin");
  CHECK(rs[0].mark.line == 10);
  CHECK(hb.root->writes().empty());
  hb.RequireRestored();
}

TEST_CASE("hwlat: a kernel without hwlat_detector/mode (before 5.14)", "[check][hwlat]") {
  SECTION("a mode the profile asks for is a SKIP with the reason and a hint") {
    HwlatBench hb("cores:\n  isolated: 2-3\nchecks:\n  hwlat:\n    width: 250ms\n    window: 500ms\n    mode: round-robin\n");
    hb.Without(kpath::kHwlatMode);
    bool ran = false;
    auto rs = hb.Run([&](Duration) { return ran = true; });
    CHECK_FALSE(ran);
    REQUIRE(rs.size() == 1);
    CHECK(rs[0].status == Status::kSkip);
    CHECK(rs[0].summary == "this kernel has no sys/kernel/tracing/hwlat_detector/mode (it came with Linux 5.14), so "
                           "checks.hwlat.mode: round-robin cannot be set; hwlat did not run");
    CHECK_THAT(rs[0].hint, Catch::Contains("remove checks.hwlat.mode") && Catch::Contains("5.14"));
    CHECK(rs[0].mark.line == 7);
    CHECK(hb.root->writes().empty());
    hb.RequireRestored();
  }
  SECTION("the default runs without writing it, and says so") {
    HwlatBench hb;
    hb.Without(kpath::kHwlatMode);
    auto rs = hb.Run([](Duration) { return true; });
    REQUIRE(rs.size() == 1);
    CHECK(rs[0].status == Status::kPass);
    CHECK_THAT(rs[0].summary, Catch::Contains("width 250000 us per 500000 us window on CPUs 2-3 for 3s, round-robin (no "
                                              "hwlat_detector/mode on this kernel: its only mode)"));
    CHECK(hb.WritesTo(kpath::kHwlatMode).empty());
    CHECK_FALSE(hb.WritesTo(kpath::kCurrentTracer).empty());
    CHECK_FALSE(std::filesystem::exists(hb.tree.dir() + "/" + kpath::TracefsFile(hb.tracefs, kpath::kHwlatMode)));
    hb.RequireRestored();
  }
}

TEST_CASE("hwlat: the older tracefs under debugfs is found too", "[check][hwlat]") {
  HwlatBench hb(kProfile, kpath::kTracefsLegacy);
  auto rs = hb.Run([](Duration) { return true; });
  REQUIRE(rs.size() == 1);
  CHECK(rs[0].status == Status::kPass);
  hb.RequireRestored();
}

TEST_CASE("hwlat: a refused write stops the run and puts back what was already changed", "[check][hwlat]") {
  for (const std::string& file : {kpath::kTracingThresh, kpath::kCurrentTracer, kpath::kTracingOn}) {
    DYNAMIC_SECTION("refused: " << file) {
      HwlatBench hb;
      // tracing_on is written twice (off first, on last): refuse the second.
      hb.root->FailWrites(kpath::TracefsFile(hb.tracefs, file), EACCES, file == kpath::kTracingOn ? 1 : 0);
      bool ran = false;
      auto rs = hb.Run([&](Duration) { return ran = true; });
      CHECK_FALSE(ran);
      REQUIRE(!rs.empty());
      CHECK(rs[0].status == Status::kSkip);
      CHECK_THAT(rs[0].summary, Catch::Contains("cannot set up the hwlat tracer"));
      CHECK_THAT(rs[0].summary, Catch::Contains(file));
      CHECK_THAT(rs[0].summary, Catch::Contains("Permission denied"));
      if (file == kpath::kTracingOn) {
        // The refused file is the one it cannot restore either.
        REQUIRE(rs.size() == 2);
        CHECK(rs[1].status == Status::kFail);
        CHECK(rs[1].id == "hwlat.restore");
      } else {
        CHECK(rs.size() == 1);
        hb.RequireRestored();
      }
    }
  }
}

TEST_CASE("hwlat: a restore the kernel refuses is a FAIL naming the file and the value it should hold", "[check][hwlat]") {
  HwlatBench hb;
  hb.root->FailWrites(kpath::TracefsFile(hb.tracefs, kpath::kCurrentTracer), EBUSY, 1);
  auto rs = hb.Run([](Duration) { return true; });
  REQUIRE(rs.size() == 2);
  CHECK(rs[0].status == Status::kPass);
  const auto& bad = ById(rs, "hwlat.restore");
  CHECK(bad.status == Status::kFail);
  CHECK_THAT(bad.summary, Catch::Contains("current_tracer should read \"nop\""));
  CHECK_THAT(bad.summary, Catch::Contains("Device or resource busy"));
  // Everything else went back.
  CHECK(hb.File(kpath::kTracingThresh) == "0\n");
  CHECK(hb.File(kpath::kHwlatWidth) == "500000\n");
}

TEST_CASE("hwlat: Ctrl-C during the run restores the tracer and gives no verdict", "[check][hwlat]") {
  HwlatBench hb;
  std::atomic<bool> stop{false};
  auto rs = hb.Run([&](Duration) {
    hb.tree.Put(kpath::TracefsFile(hb.tracefs, kpath::kTrace), kTraceWithGaps);
    stop = true;
    return false;
  });
  REQUIRE(rs.size() == 1);
  CHECK(rs[0].status == Status::kSkip);
  CHECK_THAT(rs[0].summary, Catch::Contains("interrupted before the 3s run ended; the tracer state was put back"));
  hb.RequireRestored();
}

TEST_CASE("hwlat: a width above the current window is set once the window has grown, and restored likewise", "[check][hwlat]") {
  HwlatBench hb(
      "cores:\n  housekeeping: 0-1\n  isolated: 2-3\nchecks:\n  hwlat:\n    width: 1500ms\n    window: 3s\n    duration: 6s\n",
      kpath::kTracefs, "hwlat nop", true);
  std::string width, window;
  auto rs = hb.Run([&](Duration) {
    width = hb.File(kpath::kHwlatWidth);
    window = hb.File(kpath::kHwlatWindow);
    return true;
  });
  REQUIRE(rs.size() == 1);
  CHECK(rs[0].status == Status::kPass);
  CHECK(width == "1500000\n");
  CHECK(window == "3000000\n");
  hb.RequireRestored();
}

TEST_CASE("hwlat: a width the kernel refuses outright is a SKIP, with everything put back", "[check][hwlat]") {
  HwlatBench hb;
  hb.root->FailWrites(kpath::TracefsFile(hb.tracefs, kpath::kHwlatWidth), EINVAL);
  auto rs = hb.Run([](Duration) { return true; });
  REQUIRE(!rs.empty());
  CHECK(rs[0].status == Status::kSkip);
  CHECK_THAT(rs[0].summary, Catch::Contains("hwlat_detector/width"));
}

TEST_CASE("hwlat: a kernel without the tracer, or without tracefs, is a SKIP with that reason", "[check][hwlat]") {
  SECTION("no hwlat in available_tracers") {
    HwlatBench hb(kProfile, kpath::kTracefs, "function nop");
    auto rs = hb.Run([](Duration) { return true; });
    REQUIRE(rs.size() == 1);
    CHECK(rs[0].status == Status::kSkip);
    CHECK(rs[0].summary == "this kernel has no hwlat tracer (CONFIG_HWLAT_TRACER is off); available_tracers: function nop");
    CHECK(hb.root->writes().empty());
  }
  SECTION("tracefs not mounted") {
    HwlatBench hb(kProfile, kpath::kTracefs, "");
    auto rs = hb.Run([](Duration) { return true; });
    REQUIRE(rs.size() == 1);
    CHECK(rs[0].status == Status::kSkip);
    CHECK_THAT(rs[0].summary, Catch::StartsWith("tracefs is not mounted"));
  }
  SECTION("tracer state unreadable") {
    HwlatBench hb;
    hb.root->FailReads(kpath::TracefsFile(hb.tracefs, kpath::kTracingCpumask), EACCES);
    auto rs = hb.Run([](Duration) { return true; });
    REQUIRE(rs.size() == 1);
    CHECK(rs[0].status == Status::kSkip);
    CHECK_THAT(rs[0].summary, Catch::Contains("cannot read the tracer state"));
    CHECK(hb.root->writes().empty());
  }
  SECTION("available_tracers unreadable") {
    HwlatBench hb;
    hb.root->FailReads(kpath::TracefsFile(hb.tracefs, kpath::kAvailableTracers), EACCES);
    auto rs = hb.Run([](Duration) { return true; });
    REQUIRE(rs.size() == 1);
    CHECK_THAT(rs[0].summary, Catch::Contains("cannot read the tracers this kernel has"));
  }
}

TEST_CASE("hwlat: a tracer someone else is using is left alone", "[check][hwlat]") {
  HwlatBench hb;
  hb.tree.Put(kpath::TracefsFile(hb.tracefs, kpath::kCurrentTracer), "function\n");
  auto rs = hb.Run([](Duration) { return true; });
  REQUIRE(rs.size() == 1);
  CHECK(rs[0].status == Status::kSkip);
  CHECK_THAT(rs[0].summary, Catch::Contains("current_tracer is function"));
  CHECK(hb.root->writes().empty());
}

TEST_CASE("hwlat: an unreadable trace after the run is a SKIP, tracer restored", "[check][hwlat]") {
  HwlatBench hb;
  auto rs = hb.Run([&](Duration) {
    hb.root->FailReads(kpath::TracefsFile(hb.tracefs, kpath::kTrace), EIO);
    return true;
  });
  REQUIRE(rs.size() == 1);
  CHECK(rs[0].status == Status::kSkip);
  CHECK_THAT(rs[0].summary, Catch::Contains("cannot read the trace"));
  hb.RequireRestored();
}

TEST_CASE("tracefs lease: gives back on scope exit, skips files the kernel lacks", "[check][hwlat]") {
  HwlatBench hb;
  {
    auto lease = TracefsLease::Take(*hb.root, hb.tracefs, {kpath::kCurrentTracer, "no_such_file"});
    REQUIRE(lease);
    CHECK(lease->Has(kpath::kCurrentTracer));
    CHECK_FALSE(lease->Has("no_such_file"));
    CHECK(lease->Saved(kpath::kCurrentTracer) == "nop");
    REQUIRE(lease->Set(kpath::kCurrentTracer, "hwlat"));
    CHECK(hb.File(kpath::kCurrentTracer) == "hwlat\n");
    CHECK_FALSE(lease->Set("no_such_file", "1"));
  }
  CHECK(hb.File(kpath::kCurrentTracer) == "nop\n");
  auto mode = TracefsLease::Take(*hb.root, hb.tracefs, {kpath::kHwlatMode});
  REQUIRE(mode);
  CHECK(mode->Saved(kpath::kHwlatMode) == "round-robin");
}

TEST_CASE("hwlat on this machine: SKIP with the reason when the tracer is missing", "[check][hwlat][host]") {
  // Needs: the live system. Changes nothing unless the kernel has hwlat (then it is not run).
  FsRoot live("/");
  auto tracefs = FindTracefs(live);
  if (tracefs) {
    auto tracers = AvailableTracers(live, *tracefs);
    REQUIRE(tracers);
    if (std::find(tracers->begin(), tracers->end(), "hwlat") != tracers->end()) {
      RTAGENT_SKIP("this kernel has the hwlat tracer, so there is no missing tracer to report; the QEMU "
                   "scenario rt-verify runs it for real");
    }
  }
  Bench b = LoadBench("/", "");
  auto rs = b.Run("hwlat");
  REQUIRE(rs.size() == 1);
  CHECK(rs[0].status == Status::kSkip);
  if (!tracefs) {
    CHECK_THAT(rs[0].summary, Catch::StartsWith("tracefs is not mounted"));
  } else {
    CHECK_THAT(rs[0].summary, Catch::StartsWith("this kernel has no hwlat tracer"));
  }
}

// ---- checks.hwlat in the profile: declared with the check, read and judged when the profile loads

TEST_CASE("hwlat settings: the width must be shorter than the window", "[check][hwlat]") {
  TempDir dir;
  auto l = LoadYaml(dir, "checks:\n  hwlat:\n    width: 2s\n    window: 1s\n");
  CheckAt(Only(l, "checks.hwlat.width 2s is not shorter than the window 1s"), l.path, 3, 12);
}

TEST_CASE("hwlat settings: the duration must hold at least one window", "[check][hwlat]") {
  TempDir dir;
  auto l = LoadYaml(dir, "checks:\n  hwlat:\n    window: 5s\n    width: 1s\n    duration: 2s\n");
  const auto& d = Only(l, "checks.hwlat.duration 2s is shorter than one window (5s)");
  CheckAt(d, l.path, 5, 15);
  CHECK(d.hint == "run the tracer for many windows: 30s or more");
  CHECK_FALSE(l.result.ok());
}

TEST_CASE("hwlat settings: mode takes one of the kernel's modes, the default is round-robin, unset", "[check][hwlat]") {
  TempDir dir;
  auto def = LoadYaml(dir, "checks:\n  hwlat:\n    duration: 5s\n");
  REQUIRE(def.result);
  CHECK(*HwlatSettingsOf(*def.result).mode == "round-robin");
  CHECK_FALSE(HwlatSettingsOf(*def.result).mode.IsSet());  // the check writes it, but never SKIPs for it

  for (const std::string mode : {"none", "round-robin", "per-cpu"}) {
    auto l = LoadYaml(dir, "checks:\n  hwlat:\n    mode: " + mode + "\n");
    REQUIRE(l.result);
    CHECK(*HwlatSettingsOf(*l.result).mode == mode);
    CHECK(HwlatSettingsOf(*l.result).mode.mark.line == 3);
  }

  auto typo = LoadYaml(dir, "checks:\n  hwlat:\n    width: 200ms\n    mode: percpu\n");
  REQUIRE_FALSE(typo.result.ok());
  const Diagnostic& d = Only(typo, "bad value \"percpu\" for 'checks.hwlat.mode'");
  CheckAt(d, typo.path, 4, 11);
  CHECK_THAT(d.hint, Catch::Contains("did you mean 'per-cpu'?"));
  CHECK_THAT(d.hint, Catch::Contains("none, round-robin or per-cpu"));

  auto list = LoadYaml(dir, "checks:\n  hwlat:\n    mode: [per-cpu]\n");
  REQUIRE_FALSE(list.result.ok());
  CHECK(Only(list, "checks.hwlat.mode").mark.line == 3);
}

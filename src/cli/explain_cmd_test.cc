// `rtagent explain` as a user runs it: the built binary on a saved trace, on bad input, on a
// fixture kernel without timerlat, and on this machine.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "base/shell_test_support.h"
#include "base/skip_test_support.h"
#include "base/sysroot.h"

namespace {

struct Run {
  int code = -1;
  std::string out;
};

Run RtAgent(const std::string& args) {
  rtagent::test::ShellResult s = rtagent::test::RunShell(std::string(RTAGENT_BINARY) + " " + args + " 2>&1");
  return {s.code, s.out};
}

const std::string kTrace = std::string(RTAGENT_SOURCE_DIR) + "/tests/traces/composed-spin-irq-softirq.txt";

// The line of `out` that holds `needle` ("" when none).
std::string LineWith(const std::string& out, const std::string& needle) {
  const size_t at = out.find(needle);
  if (at == std::string::npos) return "";
  const size_t begin = out.rfind('\n', at) == std::string::npos ? 0 : out.rfind('\n', at) + 1;
  return out.substr(begin, out.find('\n', at) - begin);
}

}  // namespace

TEST_CASE("explain --from: the table of a saved trace, exit 1 past the threshold, 0 below it", "[cli][explain]") {
  rtagent::TempTree dir;
  Run r = RtAgent("explain --from " + kTrace + " --threshold 1000 --json " + dir.dir() + "/why.json");
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::StartsWith("Why the wake-up on CPU 2 was 2010.0 µs late (timerlat, timerlat/2:88):\n"));
  // The injected thread is named first.
  const size_t first_row = r.out.find('\n') + 1;
  CHECK(r.out.find("noise-spin:412 RT 98", first_row) < r.out.find("IRQ 4 (ttyS0)"));
  auto written = rtagent::FsRoot(dir.dir()).Read("why.json");
  REQUIRE(written);
  auto j = nlohmann::json::parse(*written);
  CHECK(j["schema"] == "rtagent-explain/1");
  CHECK(j["crossed"] == true);
  CHECK(j["why"]["causes"][0]["comm"] == "noise-spin");

  Run below = RtAgent("explain --from " + kTrace + " --threshold 5000");
  CHECK(below.code == 0);
  CHECK_THAT(below.out, Catch::StartsWith("No wake-up was later than 5000 µs; the latest one:\n"));
  Run no_threshold = RtAgent("explain --from " + kTrace);
  CHECK(no_threshold.code == 0);
  CHECK_THAT(no_threshold.out, Catch::Contains("noise-spin:412"));
}

TEST_CASE("explain --from: a file that is not a trace, or none, is exit 2 with the reason", "[cli][explain]") {
  rtagent::TempTree dir;
  dir.Put("junk.txt", "hello\nworld\n");
  Run junk = RtAgent("explain --from " + dir.dir() + "/junk.txt");
  CHECK(junk.code == 2);
  CHECK(junk.out == "rtagent explain: " + dir.dir() + "/junk.txt: not a kernel trace in text form: line 1 (\"hello\") " +
                        "is not an event line (COMM-PID [CPU] SECONDS: EVENT: ARGS)\n");
  Run missing = RtAgent("explain --from " + dir.dir() + "/none.txt");
  CHECK(missing.code == 2);
  CHECK_THAT(missing.out, Catch::Contains("--from " + dir.dir() + "/none.txt"));
  // A directory opens but reads as nothing: it is named as a directory, not as an empty trace.
  Run directory = RtAgent("explain --from " + dir.dir());
  CHECK(directory.code == 2);
  CHECK(directory.out == "rtagent explain: --from " + dir.dir() + ": cannot read " + dir.dir() + ": Is a directory\n");
  Run cpus = RtAgent("explain --from " + kTrace + " --cpus 3");
  CHECK(cpus.code == 2);
  CHECK_THAT(cpus.out, Catch::Contains("no wake-up to explain on CPU 3"));
  Run bad_cpus = RtAgent("explain --from " + kTrace + " --cpus x");
  CHECK(bad_cpus.code == 2);
}

TEST_CASE("explain on a kernel without timerlat exits 3 and says what it needs", "[cli][explain]") {
  rtagent::TempTree tree;
  tree.Put(rtagent::kpath::kCpuPossible, "0-3\n");
  tree.Put(rtagent::kpath::kCpuOnline, "0-3\n");
  tree.Put(rtagent::kpath::TracefsFile(rtagent::kpath::kTracefs, rtagent::kpath::kAvailableTracers), "function nop\n");
  tree.Put(rtagent::kpath::TracefsFile(rtagent::kpath::kTracefs, rtagent::kpath::kCurrentTracer), "nop\n");
  Run r = RtAgent("explain --root " + tree.dir() + " --cpus 2 --duration 1s");
  CHECK(r.code == 3);
  CHECK_THAT(r.out, Catch::Contains("rtagent explain: cannot record here: the kernel has no timerlat tracer "
                                    "(available_tracers: function nop); it needs CONFIG_TIMERLAT_TRACER"));
  CHECK(tree.Get(rtagent::kpath::TracefsFile(rtagent::kpath::kTracefs, rtagent::kpath::kCurrentTracer)) == "nop\n");
  CHECK_THAT(r.out, !Catch::Contains("hint: mount it"));  // tracefs is there; the kernel lacks the tracer

  // No tracefs at all: what to mount, and the other way to an explanation.
  rtagent::TempTree bare;
  bare.Put(rtagent::kpath::kCpuPossible, "0-3\n");
  bare.Put(rtagent::kpath::kCpuOnline, "0-3\n");
  Run m = RtAgent("explain --root " + bare.dir() + " --cpus 2 --duration 1s");
  CHECK(m.code == 3);
  CHECK_THAT(m.out, Catch::Contains("rtagent explain: cannot record here: tracefs is not mounted"));
  CHECK_THAT(m.out, Catch::Contains("hint: mount it (mount -t tracefs nodev /sys/kernel/tracing; systemd mounts it at "
                                    "boot) and run this again, or explain a trace recorded elsewhere with --from TRACE"));
}

TEST_CASE("explain on this machine: exit 3 with the reason when the kernel has no timerlat", "[cli][explain][host]") {
  // Needs: the live system. Changes nothing: on a kernel with timerlat it is not run.
  rtagent::FsRoot live("/");
  for (const std::string& dir : {rtagent::kpath::kTracefs, rtagent::kpath::kTracefsLegacy}) {
    auto tracers = live.Read(rtagent::kpath::TracefsFile(dir, rtagent::kpath::kAvailableTracers));
    if (tracers && tracers->find("timerlat") != std::string::npos) {
      RTAGENT_SKIP("this kernel has the timerlat tracer; the QEMU scenario rt-explain records it");
    }
  }
  Run r = RtAgent("explain --duration 1s");
  CHECK(r.code == 3);
  CHECK_THAT(r.out, Catch::Contains("rtagent explain: cannot record here: "));
}

TEST_CASE("explain --diff: the causes of two traces side by side, appeared and vanished", "[cli][explain][why]") {
  rtagent::TempTree dir;
  const std::string idle = std::string(RTAGENT_SOURCE_DIR) + "/tests/traces/qemu-rt-timerlat-idle.txt";
  Run r = RtAgent("explain --diff " + idle + " " + kTrace + " --json " + dir.dir() + "/diff.json");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("Why, before and after: the late wake-up was 11259.2 µs, then 2010.0 µs\n"));
  // The spinning thread appeared; the idle exit of the quiet trace vanished.
  CHECK_THAT(r.out, Catch::Contains("  1906.0  appeared  noise-spin:412 RT 98"));
  CHECK_THAT(r.out, Catch::Contains("–  vanished  timer IRQ delay: exit from idle"));
  auto j = nlohmann::json::parse(rtagent::FsRoot(dir.dir()).Read("diff.json").value());
  CHECK(j["schema"] == "rtagent-explain-diff/1");
  CHECK(j["diff"]["causes"][0]["change"] == "appeared");
  CHECK(j["diff"]["causes"][0]["before_us"].is_null());

  // The same trace against itself: every cause the same.
  Run same = RtAgent("explain --diff " + kTrace + " " + kTrace);
  CHECK(same.code == 0);
  CHECK(same.out.find("appeared") == std::string::npos);
  CHECK(same.out.find("vanished") == std::string::npos);
  CHECK_THAT(LineWith(same.out, "noise-spin:412 RT 98"), Catch::Contains(" same "));
}

TEST_CASE("explain --diff: a verdict or --json file compares as its attribution, bad input is exit 2",
          "[cli][explain][why]") {
  rtagent::TempTree dir;
  REQUIRE(RtAgent("explain --from " + kTrace + " --json " + dir.dir() + "/why.json").code == 0);
  Run r = RtAgent("explain --diff " + dir.dir() + "/why.json " + kTrace);
  CHECK(r.code == 0);
  CHECK_THAT(LineWith(r.out, "noise-spin:412 RT 98"), Catch::Contains(" same "));

  dir.Put("skip.json", R"({"schema": "rtagent-verdict/1", "why": {"status": "skip", "reason": "no tracefs"}})");
  Run skip = RtAgent("explain --diff " + dir.dir() + "/skip.json " + kTrace);
  CHECK(skip.code == 2);
  CHECK_THAT(skip.out, Catch::Contains("its why holds no attribution (status skip: no tracefs)"));
  dir.Put("broken.json", "{ not json");
  Run broken = RtAgent("explain --diff " + kTrace + " " + dir.dir() + "/broken.json");
  CHECK(broken.code == 2);
  CHECK_THAT(broken.out, Catch::Contains("broken.json: not valid JSON"));
  dir.Put("other.json", R"({"schema": "x"})");
  Run other = RtAgent("explain --diff " + kTrace + " " + dir.dir() + "/other.json");
  CHECK(other.code == 2);
  CHECK_THAT(other.out, Catch::Contains("other.json: no \"why\""));
  Run missing = RtAgent("explain --diff " + kTrace + " " + dir.dir() + "/none.txt");
  CHECK(missing.code == 2);
  CHECK_THAT(missing.out, Catch::Contains("cannot read " + dir.dir() + "/none.txt"));
  Run one = RtAgent("explain --diff " + kTrace);
  CHECK(one.code != 0);
}

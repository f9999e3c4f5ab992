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

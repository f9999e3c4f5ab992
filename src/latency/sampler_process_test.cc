#include "latency/sampler_process.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "base/fault_root.h"
#include "base/skip_test_support.h"

using namespace rtagent;
using namespace std::chrono_literals;

namespace {

// A field of /proc/PID/status ("VmLck"), "" when missing.
std::string StatusField(const std::string& pid, const std::string& key) {
  std::ifstream in("/proc/" + pid + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) == 0) {
      std::string v = line.substr(key.size() + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  }
  return "";
}

long KiB(const std::string& field) { return field.empty() ? -1 : std::atol(field.c_str()); }

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// An executable shell script in `tree` standing in for the measuring program.
std::string FakeProgram(const TempTree& tree, const std::string& name, const std::string& body) {
  tree.Put(name, "#!/bin/sh\n" + body + "\n");
  const std::string path = tree.dir() + "/" + name;
  ::chmod(path.c_str(), 0755);
  return path;
}

SamplerConfig OneCpu(std::chrono::nanoseconds duration) {
  SamplerConfig c;
  c.cpus = CpuSet::Of({0});
  c.duration = duration;
  c.allow_unprivileged = true;  // a non-root run still measures, marked
  return c;
}

bool Gone(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

}  // namespace

TEST_CASE("accept measures in a process of its own that maps libc and locks only itself",
          "[latency][sampler-process][host]") {
  const int nr = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  SamplerConfig c = OneCpu(1s);
  c.cpus = CpuSet::Range(0, std::min(nr, 2) - 1);
  c.priority = 80;
  FsRoot live("/");  // no PM QoS note asked: nothing is written
  const std::string our_locked = StatusField("self", "VmLck");

  SamplerProcess s(c, live);
  REQUIRE(s.Start());
  const pid_t pid = s.pid();
  REQUIRE(pid > 0);
  // While it measures: what it maps and what it locked.
  const std::string maps = Slurp("/proc/" + std::to_string(pid) + "/maps");
  const long child_locked = KiB(StatusField(std::to_string(pid), "VmLck"));
  const long child_rss = KiB(StatusField(std::to_string(pid), "VmRSS"));
  CHECK(StatusField("self", "VmLck") == our_locked);  // the agent itself locks nothing
  uint64_t seen = 0;
  while (!s.Finished()) {
    std::this_thread::sleep_for(100ms);
    for (const CpuProgress& p : s.Progress()) seen = std::max(seen, p.samples);
  }
  auto r = s.Wait();
  REQUIRE(r);
  CHECK(Gone(pid));
  CHECK(s.pid() == 0);

  CHECK_THAT(maps, Catch::Contains("rtagent-sampler") && Catch::Contains("libc.so"));
  for (const char* lib : {"libstdc++", "libyaml-cpp", "libspdlog", "libsystemd", "libfmt", "libcgroup"}) {
    INFO(lib);
    CHECK_THAT(maps, !Catch::Contains(lib));
  }
  INFO("measuring process: VmLck " << child_locked << " kB, VmRSS " << child_rss << " kB");
  if (r->memory_locked) {
    CHECK(child_locked > 0);
    CHECK(child_locked <= child_rss);
  }
  CHECK(seen > 0);
  REQUIRE(r->cpus.size() == static_cast<size_t>(c.cpus.Count()));
  for (const CpuRun& run : r->cpus) {
    INFO("CPU " << run.cpu);
    // 1 s at 1 ms: each of the run's 1000 periods sampled or counted as skipped, no more.
    CHECK(run.histogram.samples() + run.histogram.skipped_periods() == 1000);
    if (r->fifo) CHECK(run.sched == SchedState{SCHED_FIFO, 80});
  }
  CHECK_FALSE(r->interrupted);
  CHECK(r->duration_asked == 1s);
}

TEST_CASE("a stop request ends the measuring process early with what it measured", "[latency][sampler-process][host]") {
  FsRoot live("/");
  SamplerProcess s(OneCpu(60s), live);
  REQUIRE(s.Start());
  const pid_t pid = s.pid();
  while (s.Progress().front().samples == 0 && !s.Finished()) std::this_thread::sleep_for(20ms);
  s.RequestStop();
  auto r = s.Wait();
  REQUIRE(r);
  CHECK(r->interrupted);
  REQUIRE(r->cpus.size() == 1);
  CHECK(r->cpus[0].stopped_early);
  CHECK(r->cpus[0].histogram.samples() > 0);
  CHECK(r->duration_actual < 60s);
  CHECK(Gone(pid));
}

TEST_CASE("dropping a running measuring process stops and reaps it", "[latency][sampler-process][host]") {
  FsRoot live("/");
  pid_t pid = 0;
  {
    SamplerProcess s(OneCpu(60s), live);
    REQUIRE(s.Start());
    pid = s.pid();
    REQUIRE_FALSE(Gone(pid));
  }
  CHECK(Gone(pid));
}

TEST_CASE("a setup error in the measuring process comes back with its errno", "[latency][sampler-process][host]") {
  FsRoot live("/");
  SamplerConfig c = OneCpu(1s);
  c.cpus = CpuSet::Of({1000});  // no machine this runs on has it
  SamplerProcess s(c, live);
  auto r = s.Start();
  REQUIRE_FALSE(r);
  CHECK(r.error().err == EINVAL);
  CHECK_THAT(r.error().message, Catch::Contains("cannot pin the measuring thread to CPU 1000 (is it online?)"));
  CHECK(s.pid() == 0);
}

TEST_CASE("a bad config is refused before any process starts", "[latency][sampler-process]") {
  FsRoot live("/");
  SamplerConfig c = OneCpu(0ns);
  SamplerProcess s(c, live, "/nonexistent/rtagent-sampler");
  auto r = s.Start();
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error().message, Catch::Contains("the measuring duration must be above 0"));
}

TEST_CASE("a missing or wrong measuring program is a clear error", "[latency][sampler-process]") {
  FsRoot live("/");
  TempTree tree;
  SECTION("missing") {
    SamplerProcess s(OneCpu(1s), live, tree.dir() + "/rtagent-sampler");
    auto r = s.Start();
    REQUIRE_FALSE(r);
    CHECK(r.error().err == ENOENT);
    CHECK_THAT(r.error().message, Catch::Contains("cannot start the measuring program " + tree.dir() + "/rtagent-sampler"));
  }
  SECTION("RTAGENT_SAMPLER names nothing") {
    ::setenv("RTAGENT_SAMPLER", (tree.dir() + "/nothing").c_str(), 1);
    auto found = FindSamplerBinary();
    ::unsetenv("RTAGENT_SAMPLER");
    REQUIRE_FALSE(found);
    CHECK(found.error().err == ENOENT);
    CHECK(found.error().message == "RTAGENT_SAMPLER=" + tree.dir() + "/nothing is not an executable program");
  }
  SECTION("found beside the running program by default") {
    auto found = FindSamplerBinary();
    REQUIRE(found);
    CHECK_THAT(*found, Catch::EndsWith("/rtagent-sampler"));
  }
  SECTION("another program says nothing and exits") {
    SamplerProcess s(OneCpu(1s), live, FakeProgram(tree, "quiet", "exit 0"));
    auto r = s.Start();
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains("ended before it was ready (it exited with status 0)"));
  }
  SECTION("another program greets and never gets ready: stopped after the wait, in words") {
    SamplerProcess s(OneCpu(1s), live, FakeProgram(tree, "slow", "printf 'hello 2\\n' >&3; exec sleep 600"));
    s.set_ready_timeout(300ms);
    auto r = s.Start();
    REQUIRE_FALSE(r);
    CHECK(r.error().err == ETIMEDOUT);
    // The child starts with SIGTERM blocked (the sampler unblocks it once its handler is in
    // place), so a program that never does is killed after the grace.
    CHECK(r.error().message == "the measuring program " + tree.dir() +
                                   "/slow was not ready after 300 ms (it was killed by SIGKILL)");
    CHECK(s.pid() == 0);
  }
  SECTION("another program prints its usage") {
    SamplerProcess s(OneCpu(1s), live, FakeProgram(tree, "other", "echo 'usage: other [-v]' >&3; sleep 30"));
    auto r = s.Start();
    REQUIRE_FALSE(r);
    CHECK(r.error().err == EPROTO);
    CHECK_THAT(r.error().message, Catch::Contains("no greeting") && Catch::Contains("usage: other [-v]"));
    CHECK(s.pid() == 0);  // stopped and reaped, not left sleeping
  }
  SECTION("it talks nonsense in the middle of the run and is stopped, not waited out") {
    // It says the nonsense once the test has seen it ready (the file "go"), then hangs.
    SamplerProcess s(OneCpu(1s), live,
                     FakeProgram(tree, "garbles",
                                 "printf 'hello 2\\nready\\n' >&3; while [ ! -e '" + tree.dir() +
                                     "/go' ]; do sleep 0.05; done; printf 'progress 0:many:1\\n' >&3; exec sleep 600"));
    REQUIRE(s.Start());
    const pid_t pid = s.pid();
    tree.Put("go", "");
    auto r = s.Wait();
    REQUIRE_FALSE(r);
    CHECK(r.error().err == EPROTO);
    CHECK_THAT(r.error().message, Catch::Contains("an unreadable progress line") && Catch::Contains("0:many:1"));
    CHECK(Gone(pid));
  }
  SECTION("it dies in the middle of the run") {
    SamplerProcess s(OneCpu(1s), live, FakeProgram(tree, "dies", "printf 'hello 2\\nready\\n' >&3; kill -9 $$"));
    REQUIRE(s.Start());
    auto r = s.Wait();
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message,
               Catch::Contains("ended without sending its result (it was killed by SIGKILL)"));
  }
}

TEST_CASE("with no measuring program where it looks, the error names every place and RTAGENT_SAMPLER",
          "[latency][sampler-process]") {
  TempTree tree;  // an empty folder stands for the running program's: a broken install
  const char* env = std::getenv("RTAGENT_SAMPLER");
  const std::string saved = env ? env : "";
  ::unsetenv("RTAGENT_SAMPLER");
  auto found = FindSamplerBinary(tree.dir());
  FakeProgram(tree, "rtagent-sampler", "exit 0");
  auto beside = FindSamplerBinary(tree.dir());
  if (!saved.empty()) ::setenv("RTAGENT_SAMPLER", saved.c_str(), 1);
  if (found) RTAGENT_SKIP("an installed measuring program is found: " << *found);
  CHECK(found.error().err == ENOENT);
  CHECK_THAT(found.error().message,
             Catch::StartsWith("cannot find the measuring program rtagent-sampler (looked at " + tree.dir() +
                               "/rtagent-sampler, " + tree.dir() + "/../libexec/rtagent/rtagent-sampler") &&
                 Catch::EndsWith("; it is built and installed with rtagent, or set RTAGENT_SAMPLER to its path"));
  // Once there, it is found.
  REQUIRE(beside);
  CHECK(*beside == tree.dir() + "/rtagent-sampler");
}

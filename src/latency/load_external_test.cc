#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <thread>

#include "base/fault_root.h"
#include "latency/load.h"
#include "latency/load_set.h"
#include "latency/load_test_util.h"
#include "base/skip_test_support.h"

using namespace rtagent;
using namespace std::chrono_literals;

namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Waits up to 3 s for `needle` in the file; returns its contents.
std::string WaitFor(const std::string& path, const std::string& needle) {
  for (int i = 0; i < 300; ++i) {
    std::string s = ReadFile(path);
    if (s.find(needle) != std::string::npos) return s;
    std::this_thread::sleep_for(10ms);
  }
  return ReadFile(path);
}

// The number after "key=" in `text`, or -1.
int PidAfter(const std::string& text, const std::string& key) {
  size_t at = text.find(key + "=");
  if (at == std::string::npos) return -1;
  return std::stoi(text.substr(at + key.size() + 1));
}

ExternalLoadSpec Sh(const TempTree& t, const std::string& script, std::chrono::milliseconds grace = 2000ms) {
  ExternalLoadSpec s;
  s.name = "sh";
  s.argv = {"/bin/sh", "-c", script};
  s.log_path = t.dir() + "/load.log";
  s.stop_grace = grace;
  return s;
}

}  // namespace

TEST_CASE("FindProgram searches PATH like execvp and names what it cannot find", "[latency][load]") {
  auto sh = FindProgram("sh");
  REQUIRE(sh.ok());
  CHECK(::access(sh->c_str(), X_OK) == 0);
  CHECK(*FindProgram("/bin/sh") == "/bin/sh");
  auto missing = FindProgram("rtagent-no-such-program");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().err == ENOENT);
  const char* path = std::getenv("PATH");
  REQUIRE(path != nullptr);
  CHECK(missing.error().message ==
        "program 'rtagent-no-such-program' not found in PATH (" + std::string(path) + "): install it, or give its full path");
}

TEST_CASE("an external load that does not exist is an error naming it", "[latency][load]") {
  FsRoot live("/");
  TempTree t;
  ExternalLoadSpec s;
  s.argv = {"rtagent-no-such-program", "--cpu", "1"};
  s.log_path = t.dir() + "/x.log";
  auto load = MakeExternalLoad(s, live);
  REQUIRE_FALSE(load.ok());
  CHECK_THAT(load.error().message, Catch::Contains("rtagent-no-such-program"));

  s.argv = {};
  CHECK_FALSE(MakeExternalLoad(s, live).ok());
  s.argv = {"sleep", "1"};
  s.log_path = "";
  CHECK_FALSE(MakeExternalLoad(s, live).ok());
}

TEST_CASE("an external load whose program vanished before Start fails Start with its name", "[latency][load]") {
  FsRoot live("/");
  TempTree t;
  t.Put("tool.sh", "#!/bin/sh\nexec sleep 30\n");
  std::string tool = t.dir() + "/tool.sh";
  REQUIRE(::chmod(tool.c_str(), 0755) == 0);
  ExternalLoadSpec s;
  s.argv = {tool};
  s.log_path = t.dir() + "/tool.log";
  auto load = MakeExternalLoad(s, live);
  REQUIRE(load.ok());
  REQUIRE(::unlink(tool.c_str()) == 0);
  std::vector<int> before = load_test::MyChildren();
  auto started = (*load)->Start(CpuSet::Of({0}));
  REQUIRE_FALSE(started.ok());
  CHECK(started.error().err == ENOENT);
  CHECK_THAT(started.error().message, Catch::Contains("cannot run '" + tool + "'"));
  CHECK_FALSE((*load)->Running());
  CHECK(load_test::MyChildren() == before);
}

TEST_CASE("a program named by its path that cannot be run is refused with its path and errno", "[latency][load]") {
  FsRoot live("/");
  TempTree t;
  t.Put("notes.txt", "not a program\n");  // 0644: not executable
  const std::string notes = t.dir() + "/notes.txt";
  auto r = FindProgram(notes);
  REQUIRE_FALSE(r);
  CHECK(r.error().err == EACCES);
  CHECK_THAT(r.error().message, Catch::StartsWith("program '" + notes + "' cannot be run"));
  r = FindProgram(t.dir() + "/missing");
  REQUIRE_FALSE(r);
  CHECK(r.error().err == ENOENT);
  CHECK_THAT(r.error().message, Catch::StartsWith("program '" + t.dir() + "/missing' cannot be run"));
  ExternalLoadSpec s;
  s.argv = {notes};
  s.log_path = t.dir() + "/x.log";
  auto load = MakeExternalLoad(s, live);
  REQUIRE_FALSE(load);
  CHECK_THAT(load.error().message, Catch::StartsWith("external load 'notes.txt': program '" + notes + "' cannot be run"));
}

TEST_CASE("an external load whose log cannot be opened fails Start naming the log, and leaves nothing running", "[latency][load]") {
  FsRoot live("/");
  TempTree t;
  ExternalLoadSpec s = Sh(t, "echo never");
  s.log_path = t.dir() + "/no-such-folder/load.log";
  auto load = MakeExternalLoad(s, live);
  REQUIRE(load.ok());
  std::vector<int> before = load_test::MyChildren();
  auto started = (*load)->Start(CpuSet::Of({0}));
  REQUIRE_FALSE(started.ok());
  CHECK(started.error().err == ENOENT);
  CHECK_THAT(started.error().message, Catch::StartsWith("load 'sh': cannot open its log " + s.log_path));
  CHECK_FALSE((*load)->Running());
  CHECK(load_test::MyChildren() == before);
}

TEST_CASE("an external load logs its output and is stopped with its whole process group", "[latency][load]") {
  FsRoot live("/");
  TempTree t;
  // A child in the background, then the shell becomes a busy loop: both must go.
  auto load = MakeExternalLoad(Sh(t, "echo hello-from-load; sleep 30 & echo child=$!; while :; do :; done", 20s), live);
  REQUIRE(load.ok());
  LoadSet set(live, 50ms);
  Load* raw = load->get();
  set.Add(std::move(*load));
  REQUIRE(set.Start(CpuSet::Of({0}), CpuSet()).ok());
  std::string log = WaitFor(t.dir() + "/load.log", "child=");
  CHECK_THAT(log, Catch::Contains("hello-from-load"));
  int child = PidAfter(log, "child");
  REQUIRE(child > 0);
  CHECK_FALSE(load_test::Gone(child));
  std::this_thread::sleep_for(200ms);
  std::vector<int> pids = load_test::TreePids(raw->RootPid());
  CHECK(std::find(pids.begin(), pids.end(), child) != pids.end());
  long long ms = load_test::TimeMs([&] { set.Stop(); });
  CHECK(ms < 20000);  // the shell and sleep die on SIGTERM: the 20 s grace is not spent
  CHECK(load_test::Gone(child));
  CHECK(load_test::Survivors(pids).empty());

  LoadReport r = set.Reports().at(0);
  CHECK(r.kind == "external");
  CHECK(r.argv.size() == 3);
  CHECK(r.log_path == t.dir() + "/load.log");
  CHECK(r.exit == "killed by SIGTERM");
  CHECK_FALSE(r.ended_early);
  CHECK(r.errors.empty());
  CHECK(r.PlacementSummary() == "ran on 0 (asked 0)");
  CHECK(set.Problems().empty());
}

TEST_CASE("an external load that ignores SIGTERM is killed after its grace period", "[latency][load]") {
  FsRoot live("/");
  TempTree t;
  auto load = MakeExternalLoad(Sh(t, "trap '' TERM; sleep 30 & echo child=$!; while :; do sleep 0.05; done", 300ms), live);
  REQUIRE(load.ok());
  REQUIRE((*load)->Start(CpuSet::Of({0})).ok());
  int child = PidAfter(WaitFor(t.dir() + "/load.log", "child="), "child");
  REQUIRE(child > 0);
  std::vector<int> pids = load_test::TreePids((*load)->RootPid());
  long long ms = load_test::TimeMs([&] { (*load)->Stop(); });
  CHECK(ms >= 300);    // the grace was given
  CHECK(ms < 20000);   // then killed, not waited for until the sleep's 30 s were over
  CHECK((*load)->Report().exit == "killed by SIGKILL");
  CHECK(load_test::Gone(child));
  CHECK(load_test::Survivors(pids).empty());
}

TEST_CASE("an external load's child that left the process group is still stopped", "[latency][load]") {
  FsRoot live("/");
  TempTree t;
  // setsid(1) puts the child in a session and group of its own: kill(-group) misses it;
  // the supervisor, its subreaper, finds and kills it.
  auto load = MakeExternalLoad(Sh(t, "setsid sleep 30 & echo escaped=$!; exec sleep 30"), live);
  REQUIRE(load.ok());
  REQUIRE((*load)->Start(CpuSet::Of({0})).ok());
  int escaped = PidAfter(WaitFor(t.dir() + "/load.log", "escaped="), "escaped");
  REQUIRE(escaped > 0);
  std::this_thread::sleep_for(100ms);
  (*load)->Stop();
  CHECK(load_test::Gone(escaped));
}

TEST_CASE("an external load that exits early is reported with its status", "[latency][load]") {
  FsRoot live("/");
  TempTree t;
  auto load = MakeExternalLoad(Sh(t, "echo bye; exit 3"), live);
  REQUIRE(load.ok());
  LoadSet set(live, 50ms);
  set.Add(std::move(*load));
  REQUIRE(set.Start(CpuSet::Of({0}), CpuSet()).ok());
  for (int i = 0; i < 100 && set.EndedEarly().empty(); ++i) std::this_thread::sleep_for(10ms);
  CHECK(set.EndedEarly() == std::vector<std::string>{"sh"});
  set.Stop();
  LoadReport r = set.Reports().at(0);
  CHECK(r.ended_early);
  CHECK(r.exit == "exited 3");
  REQUIRE_FALSE(r.errors.empty());
  CHECK_THAT(r.errors.front(), Catch::Contains("'sh' ended before the load was stopped: exited 3"));
  auto problems = set.Problems();
  REQUIRE_FALSE(problems.empty());
  CHECK_THAT(problems.back(), Catch::Contains("exited 3"));
}

TEST_CASE("stress-ng runs as an external load when installed", "[latency][load]") {
  if (::access("/usr/bin/stress-ng", X_OK) != 0) {
    RTAGENT_SKIP("/usr/bin/stress-ng is not installed");
  }
  FsRoot live("/");
  TempTree t;
  ExternalLoadSpec s;
  s.argv = {"stress-ng", "--cpu", "1", "--timeout", "0"};
  s.log_path = t.dir() + "/stress-ng.log";
  auto load = MakeExternalLoad(s, live);
  REQUIRE(load.ok());
  LoadSet set(live, 50ms);
  Load* raw = load->get();
  set.Add(std::move(*load));
  REQUIRE(set.Start(CpuSet::Of({0}), CpuSet()).ok());
  std::this_thread::sleep_for(700ms);
  std::vector<int> pids = load_test::TreePids(raw->RootPid());
  set.Stop();
  LoadReport r = set.Reports().at(0);
  CHECK(pids.size() >= 3);  // supervisor, stress-ng, its cpu worker
  CHECK(r.PlacementSummary() == "ran on 0 (asked 0)");
  CHECK_FALSE(r.ended_early);
  CHECK(load_test::Survivors(pids).empty());
}

TEST_CASE("a load asked to run on CPUs the kernel does not have fails Start naming them, and leaves nothing running", "[latency][load]") {
  FsRoot live("/");
  TempTree t;
  auto load = MakeExternalLoad(Sh(t, "echo never"), live);
  REQUIRE(load.ok());
  std::vector<int> before = load_test::MyChildren();
  // CPU_SETSIZE is 1024: 4000 is no CPU on any machine these tests run on.
  auto started = (*load)->Start(CpuSet::Of({4000}));
  REQUIRE_FALSE(started.ok());
  CHECK(started.error().err == EINVAL);
  CHECK_THAT(started.error().message, Catch::StartsWith("load 'sh': cannot pin to CPUs 4000"));
  CHECK_FALSE((*load)->Running());
  CHECK(load_test::MyChildren() == before);
  CHECK(ReadFile(t.dir() + "/load.log").empty());  // the command never ran
}

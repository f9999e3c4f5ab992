// `rtagent commission` when the loop cannot finish, driven as a user meets it, through the real
// binary on a copy of a fixture: a write refused in the middle of apply (exit 4, what was rolled
// back and why, the tree as it was, no verdict), and Ctrl-C before the latency test (exit 1,
// "interrupted", the tree put back with --revert-after or kept for `rtagent revert` without it,
// no verdict), and Ctrl-C while the loop sleeps writing into a full pipe (none of its output
// lost).
//
// Ctrl-C lands at a chosen point without guessing a time: the child writes into a one-page
// pipe that the test reads byte by byte. Once the test has read a step's heading it stops
// reading and sends SIGINT; the child can be at most one pipe's worth of output further on,
// and the step prints more than that before its StopFlag() check, so the check always sees
// the signal.
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/fault_root.h"
#include "base/shell_test_support.h"
#include "base/tree_test_support.h"
#include "tune/journal.h"
#include "base/skip_test_support.h"

extern char** environ;

using namespace rtagent;
namespace fs = std::filesystem;

namespace {

const std::string kFixture = std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/arm64-rt-8cpu";
const std::string kProfile = std::string(RTAGENT_SOURCE_DIR) + "/profiles/generic-4core.yaml";
// Written in the power section, after the cores and memory sections' writes and CPU 2's and
// CPU 3's idle states; EPERM here is no refusal the kernel is known to give, so apply fails.
const std::string kGovernor = "sys/devices/system/cpu/cpu3/cpufreq/scaling_governor";

/// True when some line of `out` holds every one of `parts`.
bool HasLine(const std::string& out, const std::vector<std::string>& parts) {
  size_t begin = 0;
  while (begin < out.size()) {
    size_t end = out.find('\n', begin);
    if (end == std::string::npos) end = out.size();
    const std::string line = out.substr(begin, end - begin);
    bool all = true;
    for (const auto& p : parts) all = all && line.find(p) != std::string::npos;
    if (all) return true;
    begin = end + 1;
  }
  return false;
}

struct Interrupted {
  bool sent = false;    ///< the heading was seen and SIGINT sent
  int code = -1;        ///< exit status; -1 when it died by the signal
  std::string out;      ///< stdout and stderr, in the order written
  size_t read_at = 0;   ///< bytes the test had read when it sent SIGINT
  int pipe_size = 0;    ///< the pipe's capacity: how far the child could be ahead of read_at
};

/// A `rtagent commission ARGS` child in `cwd` whose standard output goes into a one-page pipe
/// (`out_fd`, the read end) and its standard error into `err_fd`, or into the same pipe when
/// `err_fd` is -1. SIGINT reaches it as from a terminal.
struct Child {
  pid_t pid = -1;
  int out_fd = -1;
  int pipe_size = 0;
};

Child SpawnCommission(const std::vector<std::string>& args, const std::string& cwd, int err_fd) {
  Child c;
  int fds[2];
  REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
  ::fcntl(fds[1], F_SETPIPE_SZ, 4096);  // the smallest: one page
  c.pipe_size = ::fcntl(fds[1], F_GETPIPE_SZ);
  REQUIRE(c.pipe_size > 0);
  if (err_fd < 0) err_fd = fds[1];

  // Everything the child needs is built before fork: after it, only exec-safe calls.
  std::vector<std::string> argv_s = {RTAGENT_BINARY, "commission"};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_s = {"CI=true"};
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::string(*e).rfind("CI=", 0) != 0) env_s.emplace_back(*e);
  }
  std::vector<char*> envp;
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);
  sigset_t none;
  sigemptyset(&none);

  c.pid = ::fork();
  REQUIRE(c.pid >= 0);
  if (c.pid == 0) {
    ::sigprocmask(SIG_SETMASK, &none, nullptr);  // SIGINT must reach the command as from a terminal
    if (::chdir(cwd.c_str()) != 0 || ::dup2(fds[1], STDOUT_FILENO) < 0 || ::dup2(err_fd, STDERR_FILENO) < 0) {
      ::_exit(127);
    }
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  c.out_fd = fds[0];
  return c;
}

/// Reads what is left in the child's pipe into `out` and waits for it; its exit status, -1 when
/// a signal ended it.
int Finish(const Child& c, std::string& out) {
  char buf[65536];
  ssize_t n;
  while ((n = ::read(c.out_fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  ::close(c.out_fd);
  int st = 0;
  REQUIRE(::waitpid(c.pid, &st, 0) == c.pid);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/// Runs `rtagent commission ARGS` in `cwd` and sends it SIGINT (Ctrl-C) once a line starting
/// with `heading` has been read whole; then reads the rest and waits for it.
Interrupted CommissionInterruptedAt(const std::vector<std::string>& args, const std::string& cwd,
                                    const std::string& heading) {
  Interrupted r;
  const Child c = SpawnCommission(args, cwd, -1);
  r.pipe_size = c.pipe_size;
  size_t line_begin = 0;
  char ch;
  while (!r.sent && ::read(c.out_fd, &ch, 1) == 1) {
    r.out += ch;
    if (ch != '\n') continue;
    if (r.out.compare(line_begin, heading.size(), heading) == 0) {
      r.read_at = r.out.size();
      r.sent = ::kill(c.pid, SIGINT) == 0;
    }
    line_begin = r.out.size();
  }
  r.code = Finish(c, r.out);
  return r;
}

/// True once `pid` sleeps in write(2): /proc/PID/syscall starts with the number of the call a
/// blocked task is in.
bool BlockedInWrite(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/syscall");
  long nr = -1;
  return static_cast<bool>(in >> nr) && nr == SYS_write;
}

/// True while `sig` waits to be delivered to `pid` (the SigPnd and ShdPnd masks of
/// /proc/PID/status).
bool SignalPending(pid_t pid, int sig) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("SigPnd:", 0) != 0 && line.rfind("ShdPnd:", 0) != 0) continue;
    const unsigned long long mask = std::stoull(line.substr(7), nullptr, 16);
    if (mask & (1ULL << (sig - 1))) return true;
  }
  return false;
}

/// The child could not have passed the StopFlag() check that printed `message` before SIGINT
/// came: more than a pipe's worth of output lay between what the test had read and that line.
void CheckSignalCameFirst(const Interrupted& r, const std::string& message) {
  const size_t at = r.out.find(message);
  REQUIRE(at != std::string::npos);
  INFO("output between the heading and the stop: " << at - r.read_at << " bytes; pipe: " << r.pipe_size);
  CHECK(at - r.read_at > static_cast<size_t>(r.pipe_size));
}

}  // namespace

TEST_CASE("commission: a write refused mid-apply rolls back, exits 4, says why, writes no verdict",
          "[cli][commission]") {
  for (const std::string revert_after : {"", " --revert-after"}) {
    INFO("options:" << revert_after);
    TempTree t(kFixture);
    TempTree cwd;
    rtagent::test::Immutable refuses(t.dir() + "/" + kGovernor);
    if (!refuses.ok()) {
      RTAGENT_SKIP("chattr +i does not work under " << t.dir() << " (needs root and ext4/xfs/btrfs)");
    }
    const std::string out_dir = cwd.dir() + "/verdicts";
    const std::string json = cwd.dir() + "/extra.json";
    auto r = rtagent::test::RunShell("cd '" + cwd.dir() + "' && CI=true " + RTAGENT_BINARY + " commission " + kProfile +
                                     " --root " + t.dir() + revert_after + " --out " + out_dir + " --json " + json +
                                     " 2>&1");
    INFO(r.out);
    CHECK(r.code == 4);
    // Earlier writes had reached the tree (mid-apply), and were put back.
    CHECK(HasLine(r.out, {"rolled back", "unbound workqueue cpumask"}));
    CHECK(HasLine(r.out, {"rolled back", "CPU 3 idle state cluster-sleep"}));
    CHECK(HasLine(r.out, {"failed", "CPU 3 cpufreq governor", "Operation not permitted"}));
    CHECK(HasLine(r.out, {"not run", "partition rt CPUs"}));
    CHECK_THAT(r.out, Catch::Contains("rtagent commission: apply failed at CPU 3 cpufreq governor (cannot open"));
    CHECK_THAT(r.out, Catch::Contains("the 9 values written before it were rolled back, nothing was changed; "
                                      "the loop stops here"));
    CHECK_THAT(r.out, !Catch::Contains("step 5"));
    // The rollback was complete: --revert-after has nothing to do and says nothing.
    CHECK_THAT(r.out, !Catch::Contains("putting back") && !Catch::Contains("nothing to revert"));
    CHECK_THAT(r.out, !Catch::Contains("the changes stay in place"));
    // The tree is as it was, with no journal left; no verdict anywhere.
    CHECK(rtagent::test::TreeDiff(kFixture, t.dir()).empty());
    CHECK_FALSE(fs::exists(t.dir() + "/" + Journal::Path()));
    CHECK_FALSE(fs::exists(out_dir));
    CHECK_FALSE(fs::exists(json));
    CHECK(fs::is_empty(cwd.dir()));
  }
}

TEST_CASE("commission --revert-after stopped by Ctrl-C after apply: exit 1, interrupted, the tree put back, no verdict",
          "[cli][commission]") {
  TempTree t(kFixture);
  TempTree cwd;
  const std::string out_dir = cwd.dir() + "/verdicts";
  Interrupted r = CommissionInterruptedAt({kProfile, "--root", t.dir(), "--revert-after", "--out", out_dir},
                                          cwd.dir(), "== step 4: apply");
  INFO(r.out);
  REQUIRE(r.sent);
  CheckSignalCameFirst(r, "rtagent commission: interrupted after apply");
  CHECK(r.code == 1);
  CHECK(HasLine(r.out, {"applied", "unbound workqueue cpumask"}));  // apply had written into the tree
  CHECK_THAT(r.out, Catch::Contains("rtagent commission: interrupted after apply; the loop stops here; "
                                    "--revert-after puts back what this run changed"));
  CHECK_THAT(r.out, Catch::Contains("--revert-after: putting back every value this run changed"));
  CHECK_THAT(r.out, Catch::Contains("every journaled value is back"));
  CHECK_THAT(r.out, !Catch::Contains("step 5"));
  CHECK(rtagent::test::TreeDiff(kFixture, t.dir()).empty());
  CHECK_FALSE(fs::exists(t.dir() + "/" + Journal::Path()));
  CHECK_FALSE(fs::exists(out_dir));
  CHECK(fs::is_empty(cwd.dir()));
}

TEST_CASE("commission stopped by Ctrl-C after apply keeps the changes for `rtagent revert`: exit 1, no verdict",
          "[cli][commission]") {
  TempTree t(kFixture);
  TempTree cwd;
  Interrupted r = CommissionInterruptedAt({kProfile, "--root", t.dir()}, cwd.dir(), "== step 4: apply");
  INFO(r.out);
  REQUIRE(r.sent);
  CheckSignalCameFirst(r, "rtagent commission: interrupted after apply");
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("rtagent commission: interrupted after apply; the loop stops here; "
                                    "the changes stay in place; `rtagent revert` puts them back"));
  CHECK_THAT(r.out, !Catch::Contains("putting back"));
  CHECK_THAT(r.out, !Catch::Contains("step 5"));
  // The promise without --revert-after: the applied values stay, journaled; no verdict.
  CHECK_FALSE(rtagent::test::TreeDiff(kFixture, t.dir()).empty());
  CHECK(t.Get("proc/irq/default_smp_affinity") == "03\n");
  CHECK(fs::exists(t.dir() + "/" + Journal::Path()));
  CHECK(fs::is_empty(cwd.dir()));
  // ... and `rtagent revert` puts the tree back byte for byte.
  auto rv = rtagent::test::RunShell(std::string(RTAGENT_BINARY) + " revert --root " + t.dir() + " 2>&1");
  INFO(rv.out);
  CHECK(rv.code == 0);
  CHECK(rtagent::test::TreeDiff(kFixture, t.dir()).empty());
  CHECK_FALSE(fs::exists(t.dir() + "/" + Journal::Path()));
}

TEST_CASE("commission stopped by Ctrl-C after the plan changes nothing: exit 1, interrupted", "[cli][commission]") {
  TempTree t(kFixture);
  TempTree cwd;
  Interrupted r =
      CommissionInterruptedAt({kProfile, "--root", t.dir(), "--revert-after"}, cwd.dir(), "== step 3: plan");
  INFO(r.out);
  REQUIRE(r.sent);
  CheckSignalCameFirst(r, "rtagent commission: interrupted after the plan");
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("rtagent commission: interrupted after the plan; the loop stops here; "
                                    "nothing was changed"));
  CHECK_THAT(r.out, !Catch::Contains("step 4"));
  CHECK(rtagent::test::SnapshotTree(kFixture, true) == rtagent::test::SnapshotTree(t.dir(), true));  // not even run/
  CHECK(fs::is_empty(cwd.dir()));
}

TEST_CASE("commission: Ctrl-C while its output pipe is full loses no line of the output", "[cli][commission]") {
  // `rtagent commission ... | tee log` with a slow reader, or into a CI log: the signal comes
  // while the loop is blocked writing. What it had to say must still all come out, in order.
  {
    std::ifstream self("/proc/self/syscall");  // this read(2) itself, when the kernel shows it
    long nr = -1;
    if (!(self >> nr)) RTAGENT_SKIP("/proc/PID/syscall cannot be read here (a kernel without it, or no ptrace access)");
  }
  TempTree t(kFixture);
  TempTree cwd;
  const std::vector<std::string> args = {kProfile, "--root", t.dir(), "--revert-after"};
  std::string all;
  for (const auto& a : args) all += " " + a;
  auto ref = rtagent::test::RunShell("cd '" + cwd.dir() + "' && CI=true " + RTAGENT_BINARY + " commission" + all +
                                     " 2>/dev/null");
  const size_t step4 = ref.out.find("== step 4");
  REQUIRE(step4 != std::string::npos);
  REQUIRE(rtagent::test::TreeDiff(kFixture, t.dir()).empty());  // --revert-after put it back
  const auto tree_before = rtagent::test::SnapshotTree(t.dir(), true);
  // The steps before the plan's StopFlag() check print more than the pipe holds.
  const std::string before_stop = ref.out.substr(0, step4);

  TempTree err_dir;
  const std::string err_path = err_dir.dir() + "/stderr";
  const int err_fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  REQUIRE(err_fd >= 0);
  const Child c = SpawnCommission(args, cwd.dir(), err_fd);
  ::close(err_fd);
  REQUIRE(before_stop.size() > static_cast<size_t>(c.pipe_size));
  // Nobody reads: the child fills the pipe and sleeps in write(2). Then Ctrl-C.
  bool blocked = false;
  for (int i = 0; i < 2000 && !(blocked = BlockedInWrite(c.pid)); ++i) ::usleep(5000);
  CHECK(blocked);
  CHECK(::kill(c.pid, SIGINT) == 0);
  // Still nobody reads until the signal has been taken: else the reader could make room and
  // the write go on before the child ever sees it.
  bool taken = false;
  for (int i = 0; i < 2000 && !(taken = !SignalPending(c.pid, SIGINT)); ++i) ::usleep(5000);
  CHECK(taken);  // delivered on the way out of write(2): restarted or failed, it is decided
  std::string out;
  const int code = Finish(c, out);
  std::ifstream err_in(err_path);
  const std::string err((std::istreambuf_iterator<char>(err_in)), std::istreambuf_iterator<char>());
  INFO("stderr: " << err);
  CHECK(code == 1);
  CHECK_THAT(err, Catch::Contains("rtagent commission: interrupted after the plan; the loop stops here; "
                                  "nothing was changed"));
  // Every byte the loop printed up to the stop, none lost where the write was cut off.
  CHECK(out == before_stop);
  CHECK(rtagent::test::SnapshotTree(t.dir(), true) == tree_before);
}

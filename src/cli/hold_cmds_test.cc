// `rtagent hold` and `rtagent status` as a user runs them, against copies of a fixture tree:
// exit codes, the status text and JSON, and the daemon driven by real signals.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "base/shell_test_support.h"
#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "service/hold_state.h"
#include "base/skip_test_support.h"

using namespace rtagent;

namespace {

const std::string kIrq = kpath::ProcIrqFile(125, kpath::kIrqSmpAffinityList);
const std::string kStat = kpath::Sysctl("vm.stat_interval");

int Rt(const std::string& args, std::string* out) {
  std::string cmd = std::string(RTAGENT_BINARY) + " " + args + " 2>&1";
  rtagent::test::ShellResult s = rtagent::test::RunShell(cmd);
  *out += s.out;
  return s.code;
}

std::string Profile(const std::string& service_extra = "", int stat_interval = 10) {
  return "version: 1\nname: cli-held\ncores:\n  housekeeping: 0\n  isolated: 1-3\nirqs:\n  default: housekeeping\n"
         "power:\n  cpu_dma_latency_us: 0\nmemory:\n  sysctl:\n    vm.stat_interval: " +
         std::to_string(stat_interval) + "\nservice:\n  watch_interval: 100ms\n" + service_extra;
}

struct Board {
  TempTree tree{std::string(RTAGENT_SOURCE_DIR) + "/tests/sysroots/x86-ipc-4cpu"};
  TempTree files;
  std::string profile = files.dir() + "/p.yaml";
  std::string Root() const { return "--root " + tree.dir(); }
  nlohmann::json State() const {
    auto j = nlohmann::json::parse(tree.Get(service::StatePath()), nullptr, false);
    return j.is_object() ? j : nlohmann::json::object();
  }
};

// Polls `ok` every 20 ms for up to 30 s (a loaded CI machine); never a timing assertion.
template <typename F>
bool WaitFor(F ok) {
  for (int i = 0; i < 1500; ++i) {
    if (ok()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return ok();
}

// `rtagent hold` as a child process, its output in a file.
struct Daemon {
  pid_t pid = -1;
  std::string log;
  Daemon(const Board& b, const std::string& args) {
    log = b.files.dir() + "/hold.log";
    pid = ::fork();
    if (pid == 0) {
      FILE* f = std::freopen(log.c_str(), "w", stderr);
      (void)f;
      ::execl(RTAGENT_BINARY, RTAGENT_BINARY, "--root", b.tree.dir().c_str(), "hold", args.c_str(), (char*)nullptr);
      ::_exit(127);
    }
  }
  int Wait() {
    int st = 0;
    for (int i = 0; i < 1500; ++i) {
      if (::waitpid(pid, &st, WNOHANG) == pid) {
        pid = -1;
        return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -1;
  }
  ~Daemon() {
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }
  std::string Log() const {
    TempTree none;
    FILE* f = std::fopen(log.c_str(), "r");
    std::string s;
    if (!f) return s;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
    std::fclose(f);
    return s;
  }
};

}  // namespace

TEST_CASE("status without a state file: not running, exit 3", "[cli][service]") {
  Board b;
  std::string out;
  CHECK(Rt("status " + b.Root(), &out) == 3);
  CHECK_THAT(out, Catch::StartsWith("rtagent hold: not running (no state file at " + b.tree.dir() + "/run/rtagent/state.json)"));
  out.clear();
  CHECK(Rt("status --json " + b.Root(), &out) == 3);
  auto j = nlohmann::json::parse(out);
  CHECK(j["running"] == false);
}

TEST_CASE("hold --once applies, verifies, prints what it holds and keeps the state", "[cli][service]") {
  Board b;
  b.files.Put("p.yaml", Profile());
  std::string out;
  int rc = Rt("hold --once " + b.Root() + " " + b.profile, &out);
  INFO(out);
  auto j = b.State();
  REQUIRE(j.is_object());
  CHECK(rc == (j["last_verify"]["result"] == "FAIL" ? 1 : 0));
  // It has stopped by the time it prints, and says so: not "running".
  CHECK_THAT(out, Catch::Contains("\nrtagent hold --once: one pass (pid ") &&
                      Catch::Contains(") applied and verified " + b.files.dir() + "/p.yaml, then stopped: state kept (on_stop: keep") &&
                      Catch::Contains("PM QoS note:    0 us on /dev/cpu_dma_latency (released)") &&
                      !Catch::Contains("rtagent hold: running"));
  CHECK(b.tree.Get(kIrq) == "0\n");
  CHECK(b.tree.Get(kStat) == "10\n");
  CHECK(b.tree.Get(kpath::kCpuDmaLatency) == "2000000000\n");  // the note ends with the process
  CHECK(j["state"] == "stopped");
  CHECK(j["replan_interval"] == "5m");

  out.clear();
  CHECK(Rt("status " + b.Root(), &out) == 3);
  CHECK_THAT(out, Catch::StartsWith("rtagent hold: not running (stopped at ") && Catch::Contains("--once: state kept"));
  CHECK_THAT(out, Catch::Contains("PM QoS note:    0 us on /dev/cpu_dma_latency (released)"));
  out.clear();
  CHECK(Rt("status --json " + b.Root(), &out) == 3);
  auto s = nlohmann::json::parse(out);
  CHECK(s["running"] == false);
  CHECK(s["state"] == "stopped");
  CHECK(s["profile"] == b.profile);
}

TEST_CASE("a hold that kept its values, then revert: status says revert put them back", "[cli][service]") {
  Board b;
  const std::string irq = b.tree.Get(kIrq), stat = b.tree.Get(kStat);
  b.files.Put("p.yaml", Profile());
  std::string out;
  Rt("hold --once " + b.Root() + " " + b.profile, &out);
  INFO(out);
  REQUIRE(b.tree.Get(kStat) == "10\n");
  out.clear();
  CHECK(Rt("revert " + b.Root(), &out) == 0);
  CHECK(b.tree.Get(kIrq) == irq);
  CHECK(b.tree.Get(kStat) == stat);
  out.clear();
  CHECK(Rt("status " + b.Root(), &out) == 3);
  CHECK_THAT(out, Catch::StartsWith("rtagent hold: not running (stopped at ") && Catch::Contains("--once: state kept"));
  CHECK_THAT(out, Catch::Contains("\n  since then:     `rtagent revert` put back "));
  CHECK_THAT(out, !Catch::Contains("could not be"));
  auto first = b.State()["reverted_since"];
  REQUIRE(first.is_object());
  CHECK(first["restored"].get<int>() >= 2);  // at least the IRQ's affinity and the sysctl
  CHECK(first["failed"] == 0);
  // A second revert finds nothing to put back and leaves the note as it was.
  out.clear();
  CHECK(Rt("revert " + b.Root(), &out) == 0);
  CHECK(b.State()["reverted_since"] == first);
}

TEST_CASE("a hold that kept its values, then revert: its Prometheus textfile no longer counts them held",
          "[cli][service]") {
  Board b;
  // The path the profile names, which a hold of a fixture tree writes under that tree.
  const std::string prom = "/var/lib/prometheus/node-exporter/rtagent.prom";
  const std::string in_tree = "var/lib/prometheus/node-exporter/rtagent.prom";
  b.tree.Put("var/lib/prometheus/node-exporter/.keep", "");
  b.files.Put("p.yaml", Profile("  prometheus_textfile: " + prom + "\n"));
  std::string out;
  Rt("hold --once " + b.Root() + " " + b.profile, &out);
  INFO(out);
  const std::string held = b.tree.Get(in_tree);
  REQUIRE_THAT(held, Catch::Contains("\nrtagent_hold_up{profile=\"" + b.profile + "\"} 0\n"));
  REQUIRE_THAT(held, !Catch::Contains("\nrtagent_held_values 0\n") && Catch::Contains("\nrtagent_held_values "));
  CHECK(b.State()["prometheus_textfile"] == prom);
  SECTION("revert rewrites it: 0 held, when, and how many could not be put back") {
    out.clear();
    CHECK(Rt("revert " + b.Root(), &out) == 0);
    const std::string after = b.tree.Get(in_tree);
    CHECK_THAT(after, Catch::Contains("\nrtagent_held_values 0\n"));
    CHECK_THAT(after, Catch::Contains("\nrtagent_revert_time_seconds " +
                                      std::to_string(b.State()["reverted_since"]["time"].get<int64_t>()) + "\n"));
    CHECK_THAT(after, Catch::Contains("\nrtagent_revert_failed_values 0\n"));
    CHECK_THAT(after, Catch::Contains("\nrtagent_hold_up{profile=\"" + b.profile + "\"} 0\n"));
  }
  SECTION("a textfile taken away since is not made again") {
    REQUIRE(::unlink((b.tree.dir() + prom).c_str()) == 0);
    out.clear();
    CHECK(Rt("revert " + b.Root(), &out) == 0);
    CHECK_FALSE(std::filesystem::exists(b.tree.dir() + prom));
    CHECK_THAT(out, !Catch::Contains("still calls them held"));
  }
  SECTION("a textfile it cannot replace: the values are back and stderr says the file is stale") {
    REQUIRE(::unlink((b.tree.dir() + prom).c_str()) == 0);
    b.tree.Put(in_tree + "/keep", "x");  // a directory where the file was: the rename fails
    out.clear();
    CHECK(Rt("revert " + b.Root(), &out) == 0);
    CHECK_THAT(out, Catch::Contains("rtagent revert: the values are back, but what the stopped `rtagent hold` left "
                                    "still calls them held: the Prometheus textfile: cannot rename ") &&
                        Catch::Contains(" to " + b.tree.dir() + prom + ": Is a directory"));
    CHECK(b.State()["reverted_since"].is_object());  // the state file was noted first
  }
}

TEST_CASE("revert with a state file it cannot read puts the values back and says the file is stale",
          "[cli][service]") {
  Board b;
  const std::string stat = b.tree.Get(kStat);
  b.files.Put("p.yaml", Profile());
  std::string out;
  Rt("hold --once " + b.Root() + " " + b.profile, &out);
  b.tree.Put(service::StatePath(), "{\"pid\": ");
  out.clear();
  CHECK(Rt("revert " + b.Root(), &out) == 0);
  INFO(out);
  CHECK(b.tree.Get(kStat) == stat);
  CHECK_THAT(out, Catch::Contains("rtagent revert: the values are back, but what the stopped `rtagent hold` left "
                                  "still calls them held: " +
                                  b.tree.dir() + "/run/rtagent/state.json: not a JSON object"));
  CHECK(b.tree.Get(service::StatePath()) == "{\"pid\": ");
}

TEST_CASE("hold --once with on_stop: revert leaves the board as it found it", "[cli][service]") {
  Board b;
  const std::string irq = b.tree.Get(kIrq), stat = b.tree.Get(kStat);
  b.files.Put("p.yaml", Profile("  on_stop: revert\n"));
  std::string out;
  int rc = Rt("hold --once " + b.Root() + " " + b.profile, &out);
  INFO(out);
  CHECK((rc == 0 || rc == 1));
  CHECK_THAT(out, Catch::Contains("\nrtagent hold --once: one pass (pid ") && Catch::Contains("then stopped: state reverted ("));
  CHECK(b.tree.Get(kIrq) == irq);
  CHECK(b.tree.Get(kStat) == stat);
  CHECK_FALSE(FsRoot(b.tree.dir()).Exists(kpath::kRunDir + "/journal.json"));
}

TEST_CASE("status of a daemon that is running, failing, gone, or a corrupt file", "[cli][service]") {
  Board b;
  service::HoldState s;
  s.pid = static_cast<int>(::getpid());  // this test: alive
  s.state = "holding";
  s.profile = "/etc/rtagent/profile.yaml";
  s.since = 1796000000;
  s.last_verify = {1796000000, "PASS", 0, 1, 0, 0, 0, "boot", "fine"};
  auto put = [&] { b.tree.Put(service::StatePath(), service::ToJson(s).dump()); };
  std::string out;
  put();
  CHECK(Rt("status " + b.Root(), &out) == 0);
  CHECK_THAT(out, Catch::StartsWith("rtagent hold: running (pid " + std::to_string(s.pid) + "), holding"));
  out.clear();
  CHECK(Rt("status --json " + b.Root(), &out) == 0);
  CHECK(nlohmann::json::parse(out)["running"] == true);

  s.last_verify.result = "FAIL";
  put();
  out.clear();
  CHECK(Rt("status " + b.Root(), &out) == 1);
  CHECK_THAT(out, Catch::Contains("last verify:    FAIL"));

  // A pid that has exited: a child reaped before the file names it.
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  s.pid = child;
  put();
  out.clear();
  CHECK(Rt("status " + b.Root(), &out) == 3);
  CHECK_THAT(out, Catch::StartsWith("rtagent hold: not running (pid " + std::to_string(child) + " is gone;"));

  b.tree.Put(service::StatePath(), "{\"pid\": ");
  out.clear();
  CHECK(Rt("status " + b.Root(), &out) == 2);
  CHECK_THAT(out, Catch::Contains("state.json: not a JSON object"));
}

TEST_CASE("hold refuses bad input with exit 2 and changes nothing", "[cli][service]") {
  Board b;
  const std::string irq = b.tree.Get(kIrq);
  b.files.Put("p.yaml", Profile() + "nonsense: 1\n");
  std::string out;
  CHECK(Rt("hold --once " + b.Root() + " " + b.profile, &out) == 2);
  CHECK_THAT(out, Catch::Contains("nonsense"));
  CHECK(b.tree.Get(kIrq) == irq);
  out.clear();
  CHECK(Rt("hold --once " + b.Root() + " " + b.files.dir() + "/missing.yaml", &out) == 2);
  out.clear();
  CHECK(Rt("hold --once --root /nonexistent-rtagent-root " + b.profile, &out) == 2);
  // A safety re-plan interval that is not a duration, or shorter than a watch tick can be.
  b.files.Put("p.yaml", Profile());
  out.clear();
  CHECK(Rt("hold --once --replan-interval often " + b.Root() + " " + b.profile, &out) == 2);
  CHECK_THAT(out, Catch::Contains("--replan-interval often: ") && Catch::Contains("e.g. 5m (the default)"));
  out.clear();
  CHECK(Rt("hold --once --replan-interval 10ms " + b.Root() + " " + b.profile, &out) == 2);
  CHECK_THAT(out, Catch::Contains("--replan-interval 10ms: shorter than the shortest watch interval"));
  CHECK(b.tree.Get(kIrq) == irq);
  CHECK(b.tree.Get(service::StatePath()).empty());  // nothing started
}

TEST_CASE("hold start failures give their exit codes: device 3, journal 3", "[cli][service]") {
  Board b;
  b.files.Put("p.yaml", Profile());
  SECTION("no PM QoS device in the tree") {
    std::remove((b.tree.dir() + "/" + kpath::kCpuDmaLatency).c_str());
  }
  SECTION("a corrupt journal") { b.tree.Put(kpath::kRunDir + "/journal.json", "garbage"); }
  std::string out;
  CHECK(Rt("hold --once " + b.Root() + " " + b.profile, &out) == 3);
  CHECK(b.State()["state"] == "failed");
  out.clear();
  CHECK(Rt("status " + b.Root(), &out) == 3);
  CHECK_THAT(out, Catch::StartsWith("rtagent hold: not running (failed at "));
}

TEST_CASE("hold started by systemd with a libsystemd it cannot use: exit 3 before anything is written", "[cli][service]") {
  Board b;
  b.files.Put("p.yaml", Profile());
  // A real shared library under libsystemd's name, found first through LD_LIBRARY_PATH:
  // it loads, and has no sd_notify.
  std::string out;
  REQUIRE(rtagent::test::RunShell("cp \"$(ldconfig -p | awk '/libz\\.so\\.1 /{print $NF; exit}')\" " + b.files.dir() +
                                  "/libsystemd.so.0").code == 0);
  const std::string stat = b.tree.Get(kStat);
  const std::string env = "NOTIFY_SOCKET=" + b.files.dir() + "/notify LD_LIBRARY_PATH=" + b.files.dir() + " ";
  const rtagent::test::ShellResult r =
      rtagent::test::RunShell(env + RTAGENT_BINARY + " --root " + b.tree.dir() + " hold --once " + b.profile + " 2>&1");
  INFO(r.out);
  CHECK(r.code == 3);
  CHECK_THAT(r.out, Catch::Contains("rtagent hold: libsystemd.so.0 has no symbol sd_notify"));
  CHECK(b.tree.Get(kStat) == stat);
  CHECK(b.tree.Get(kpath::kRunDir + "/journal.json").empty());
}

TEST_CASE("hold whose write is refused rolls back what it wrote, exits 4 and says why", "[cli][service]") {
  Board b;
  b.files.Put("p.yaml", Profile());
  const std::string workqueue = b.tree.Get(kpath::kWorkqueueCpumask);
  rtagent::test::Immutable refuses(b.tree.dir() + "/" + kStat);
  if (!refuses.ok()) {
    RTAGENT_SKIP("chattr +i does not work under " << b.tree.dir() << " (needs root and ext4/xfs/btrfs)");
  }
  std::string out;
  CHECK(Rt("hold --once " + b.Root() + " " + b.profile, &out) == 4);
  INFO(out);
  CHECK_THAT(out, Catch::Contains("vm.stat_interval"));
  CHECK(b.State()["state"] == "failed");
  CHECK_THAT(b.State()["stop_reason"].get<std::string>(), Catch::StartsWith("a write failed; this run's changes were rolled back"));
  CHECK(b.tree.Get(kpath::kWorkqueueCpumask) == workqueue);  // written before the refusal, and put back
}

TEST_CASE("the daemon: drift re-asserted, SIGHUP good and bad, SIGTERM keeps", "[cli][service]") {
  Board b;
  b.files.Put("p.yaml", Profile());
  Daemon d(b, b.profile);
  REQUIRE(WaitFor([&] { return b.State().value("state", "") == "holding"; }));
  CHECK(b.tree.Get(kpath::kCpuDmaLatency) == "0\n");
  std::string out;
  CHECK(Rt("status " + b.Root(), &out) != 3);  // running (0, or 1 when the fixture fails a check)
  CHECK_THAT(out, Catch::StartsWith("rtagent hold: running (pid " + std::to_string(d.pid) + ")"));

  b.tree.Put(kIrq, "0-3\n");
  CHECK(WaitFor([&] { return b.tree.Get(kIrq) == "0\n"; }));
  CHECK(WaitFor([&] { return b.State().value("drift_total", 0) >= 1; }));

  b.files.Put("p.yaml", Profile("", 5));
  ::kill(d.pid, SIGHUP);
  CHECK(WaitFor([&] { return b.tree.Get(kStat) == "5\n"; }));
  CHECK(WaitFor([&] { return b.State().value("last_reload", "") == "ok"; }));

  b.files.Put("p.yaml", "version: 1\ncores: [\n");
  ::kill(d.pid, SIGHUP);
  CHECK(WaitFor([&] { return b.State().value("last_reload", "").rfind("failed: ", 0) == 0; }));
  CHECK(b.tree.Get(kStat) == "5\n");

  ::kill(d.pid, SIGTERM);
  CHECK(d.Wait() == 0);
  INFO(d.Log());
  CHECK_THAT(d.Log(), Catch::Contains("drift: IRQ 125") && Catch::Contains("reload failed, keeping the state of"));
  CHECK(b.tree.Get(kIrq) == "0\n");
  CHECK(b.tree.Get(kpath::kCpuDmaLatency) == "2000000000\n");
  CHECK(b.State()["state"] == "stopped");
}

TEST_CASE("the daemon: SIGINT with on_stop: revert puts everything back", "[cli][service]") {
  Board b;
  const std::string irq = b.tree.Get(kIrq), stat = b.tree.Get(kStat);
  b.files.Put("p.yaml", Profile("  on_stop: revert\n"));
  Daemon d(b, b.profile);
  REQUIRE(WaitFor([&] { return b.State().value("state", "") == "holding"; }));
  ::kill(d.pid, SIGINT);
  CHECK(d.Wait() == 0);
  INFO(d.Log());
  CHECK(b.tree.Get(kIrq) == irq);
  CHECK(b.tree.Get(kStat) == stat);
  CHECK(b.tree.Get(kpath::kCpuDmaLatency) == "2000000000\n");
  CHECK_THAT(b.State()["stop_reason"].get<std::string>(), Catch::StartsWith("SIGINT: state reverted"));
}

TEST_CASE("hold --verdict reports the last latency verdict, an unreadable one is a warning", "[cli][service]") {
  Board b;
  b.files.Put("p.yaml", Profile());
  const std::string verdict = std::string(RTAGENT_SOURCE_DIR) + "/tests/expected/verdict.json";
  std::string out;
  int rc = Rt("hold --once " + b.Root() + " --verdict " + verdict + " " + b.profile, &out);
  INFO(out);
  CHECK((rc == 0 || rc == 1));
  auto j = b.State();
  REQUIRE(j["verdict"].is_object());
  CHECK(j["verdict"]["path"] == verdict);
  CHECK(j["verdict"]["pass"] == false);  // the expected verdict is a FAIL, worst 1203 us on CPU 2
  CHECK(j["verdict"]["worst_us"] == 1203.0);
  CHECK(j["verdict"]["started_at"] == "2025-01-02T03:04:05Z");
  CHECK(j["verdict"]["ended_at"] == 1735787046);  // the start plus the run's 1 s
  REQUIRE(j["verdict"]["cpus"].size() == 2);
  CHECK(j["verdict"]["cpus"][0] == nlohmann::json::parse(R"({"cpu":2,"worst_us":1203.0,"p99_us":6.0,"overflows":1,"samples":1000})"));
  CHECK(j["verdict"]["cpus"][1]["worst_us"] == 7.8);
  CHECK_THAT(out, Catch::Contains("latency verdict: FAIL (2025-01-02T03:04:05Z, worst 1203 us)"));

  out.clear();
  Board c;
  c.files.Put("p.yaml", Profile());
  rc = Rt("hold --once " + c.Root() + " --verdict " + c.files.dir() + "/none.json " + c.profile, &out);
  CHECK((rc == 0 || rc == 1));
  CHECK_THAT(out, Catch::Contains("warning: verdict " + c.files.dir() + "/none.json"));
  CHECK(c.State()["verdict"].is_null());
}

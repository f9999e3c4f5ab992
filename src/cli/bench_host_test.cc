// `rtagent bench --quick` and `rtagent bench pi` on this machine (root; run under the live
// lock: the load phases put a real-time spinner on every CPU for a few seconds). They check
// the shapes that must hold on any Linux, never a timed figure against a guessed limit:
// - a process switch is not cheaper than a thread switch by more than the thread switch's own
//   spread in the same run (p99 - p50);
// - a round trip's cost grows with its payload (4 B against 64 KiB, pipes and sockets);
// - the equal-rank phase holds the timer's median wake-up back by the spinner's timeslice, and
//   the timer loses expirations there, when the timeslice is longer than its period: both
//   follow from the kernel's own kernel.sched_rr_timeslice_ms. (Its p99 against the lower
//   phase's is not asserted: on this shared VM a lower-phase sample can be stalled by the
//   hypervisor for tens of ms; docs/bench.md shows one.)
// - without priority inheritance the medium thread runs while the high one waits, in every
//   period, and every deadline is missed; with it the medium thread never runs during a wait.
//   (Zero misses with inheritance is not asserted: a hypervisor stall longer than its 2.5 ms
//   margin misses one, which bench pi reports as INCONCLUSIVE, not as PASS.)
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "base/kernel_text.h"
#include "base/shell_test_support.h"
#include "profile/test_support.h"
#include "base/skip_test_support.h"

using rtagent::profile::testing::TempDir;
using nlohmann::json;

namespace {

std::string LiveSkipReason() {
  if (::geteuid() != 0) return "needs root (SCHED_FIFO, the real-time load phases)";
  if (std::thread::hardware_concurrency() < 2) return "needs 2 CPUs";
  return "";
}

rtagent::test::ShellResult Rt(const std::string& args, const std::string& prefix = "") {
  return rtagent::test::RunShell("CI=true " + prefix + std::string(RTAGENT_BINARY) + " " + args + " 2>&1");
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Lines {
  json run;
  json health;
  std::map<std::pair<std::string, std::string>, json> results;  // (id, phase) -> line

  const json& At(const std::string& id, const std::string& phase) const {
    auto it = results.find({id, phase});
    if (it == results.end()) FAIL("no result for " << id << " in phase " << phase);
    return it->second;
  }
};

Lines Read(const std::string& path) {
  Lines l;
  const std::string text = Slurp(path);  // SplitLines' views point into it: it must outlive the loop
  for (std::string_view line : rtagent::SplitLines(text)) {
    json j = json::parse(line);
    if (j["type"] == "run") l.run = j;
    else if (j["type"] == "timer_health") l.health = j;
    else l.results[{j["id"].get<std::string>(), j["phase"].get<std::string>()}] = j;
  }
  return l;
}

int64_t P50(const json& j) { return j["p50"].get<int64_t>(); }

}  // namespace

TEST_CASE("bench --quick on this machine: every phase, labelled, and the shapes any Linux must show",
          "[cli][bench][host]") {
  if (std::string why = LiveSkipReason(); !why.empty()) {
    RTAGENT_SKIP(why);
  }
  TempDir dir;
  const std::string d = dir.path();
  auto r = Rt("bench --quick --cpu 1 --json " + d + "/b.jsonl --md " + d + "/b.md --svg " + d + "/b.svg");
  INFO(r.out);
  REQUIRE(r.code == 0);
  const Lines l = Read(d + "/b.jsonl");
  REQUIRE(l.run.is_object());
  REQUIRE(l.health.is_object());
  CHECK(l.run["policy"] == "SCHED_FIFO");
  CHECK(l.run["realtime"] == true);
  CHECK(l.run["memory_locked"] == true);
  CHECK(l.run["quick"] == true);
  CHECK(l.run["phases"].size() == 3);
  const bool vm = l.run["host"]["virtual_machine"].get<bool>();
  for (const auto& [key, j] : l.results) {
    INFO(key.first << " " << key.second << ": " << j.dump());
    CHECK(j["cpu"] == 1);
    CHECK(j["virtual_machine"] == vm);
    CHECK(j["error"] == "");  // every primitive works on this kernel (a skip says why)
  }
  // What a reader sees first: on a virtual machine, that these are virtual-machine figures.
  if (vm) {
    CHECK_THAT(r.out, Catch::Contains("virtual-machine figures"));
    CHECK_THAT(Slurp(d + "/b.md"), Catch::Contains("virtual-machine figures"));
    CHECK_THAT(Slurp(d + "/b.svg"), Catch::Contains("virtual machine"));
  }
  CHECK_THAT(r.out, Catch::Contains("timer health: " + l.health["verdict"].get<std::string>()));

  // A process switch changes the address space as well: not cheaper than a thread switch
  // beyond the thread switch's own spread in this run, and a fifth for steal time that may
  // have slowed only the thread's measurement (the two are measured one after the other).
  const json& thread = l.At("switch.yield.thread", "idle");
  const json& process = l.At("switch.yield.process", "idle");
  INFO("thread " << thread.dump() << " process " << process.dump());
  CHECK(P50(process) >= P50(thread) * 4 / 5 - (thread["p99"].get<int64_t>() - P50(thread)));

  // Copying 64 KiB each way costs more than 4 B.
  for (const char* kind : {"pipe", "unix"}) {
    for (const char* peer : {"thread", "process"}) {
      const std::string base = std::string("message.") + kind + "." + peer + ".";
      INFO(base);
      CHECK(P50(l.At(base + "65536", "idle")) > P50(l.At(base + "4", "idle")));
    }
  }

  // The equal-rank SCHED_RR spinner holds every wake-up back until its timeslice runs out.
  const int64_t slice_ns = l.run["rr_timeslice_ms"].get<int64_t>() * 1000000;
  for (const char* id : {"timer.health.2ms", "timer.health.10ms"}) {
    const json& lower = l.At(id, "lower");
    const json& equal = l.At(id, "equal");
    INFO(id << " lower " << lower.dump() << " equal " << equal.dump());
    CHECK(P50(equal) > P50(lower));
    if (slice_ns > equal["period_ns"].get<int64_t>()) CHECK(equal["overruns"].get<uint64_t>() > 0);
  }
  // --quick measures only the marked tests in the equal phase.
  CHECK(l.results.count({"kernel.getppid", "equal"}) == 0);
  CHECK(l.results.count({"message.pipe.thread.4", "equal"}) == 1);
}

TEST_CASE("bench pi on this machine: the plain mutex inverts, inheritance never", "[cli][bench][host]") {
  if (std::string why = LiveSkipReason(); !why.empty()) {
    RTAGENT_SKIP(why);
  }
  auto r = Rt("bench pi --cpu 1 --json");
  INFO(r.out);
  REQUIRE((r.code == 0 || r.code == 3));  // PASS, or INCONCLUSIVE when a stall missed a deadline
  const json j = json::parse(r.out.substr(r.out.find('{')));
  CHECK(j["verdict"] == (r.code == 0 ? "PASS" : "INCONCLUSIVE"));
  // 10 periods a run; a run without a contended period tests nothing and is run again, so a
  // slow moment of this machine can make it 20 or more.
  for (const char* mode : {"none", "inherit"}) {
    INFO(mode);
    CHECK(j[mode]["attempts"].get<int>() >= 1);
    CHECK(j[mode]["periods"].get<int>() == 10 * j[mode]["attempts"].get<int>());
  }
  // Inheritance holds whatever the timing: the boosted low thread outranks the medium one.
  CHECK(j["inherit"]["inversions"] == 0);
  CHECK(j["inherit"]["worst_medium_ns"] == 0);
  // Without it the medium thread runs while the high one waits, in the periods where the high
  // thread found the lock held. How many those are depends on timer wake-ups (on a loaded
  // virtual machine the medium thread can wake so late that the low one is done first), so
  // only a PASS promises an inversion shown, and no period counts an inversion without a wait.
  const int none_contended = j["none"]["contended"].get<int>();
  CHECK(j["none"]["inversions"].get<int>() <= none_contended);
  if (r.code == 0) {
    CHECK(j["none"]["inversions"].get<int>() >= 1);
    CHECK(j["none"]["worst_medium_ns"].get<int64_t>() > 0);
  }
  // tracefs is not mounted on every machine (it is not on the build VM): the evidence or why not.
  if (j["evidence"]["traced"] == true) {
    CHECK(j["evidence"]["boosts_inherit"].get<int>() > 0);
    CHECK(j["evidence"]["boosts_none"] == 0);
  } else {
    CHECK_FALSE(j["evidence"]["why_not"].get<std::string>().empty());
  }
}

TEST_CASE("bench without root measures at SCHED_OTHER and says so, bench pi without root exits 3",
          "[cli][bench][host]") {
  if (::geteuid() != 0 || ::access("/usr/bin/setpriv", X_OK) != 0) {
    RTAGENT_SKIP("needs root and setpriv(1) to run bench as another user");
  }
  TempDir dir;
  ::chmod(dir.path().c_str(), 0777);
  const std::string nobody = "/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups ";
  // Started under nice(1), nobody cannot go back to nice 0: said so, not "Permission denied".
  // (Nice values set absolutely, as root, whatever nice this test itself runs at.)
  auto niced = Rt("bench --quick --cpu 1 --only kernel --json " + dir.path() + "/n.jsonl",
                  "nice -n $((5 - $(nice))) " + nobody);
  CHECK(niced.code == 3);
  CHECK_THAT(niced.out, Catch::Contains("rtagent bench: started at nice 5: without root it cannot go back to nice 0"));
  auto r = Rt("bench --quick --cpu 1 --only kernel,timer,sync --json " + dir.path() + "/b.jsonl", "nice -n $((0 - $(nice))) " + nobody);
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("refused (not root): measured at SCHED_OTHER"));
  const Lines l = Read(dir.path() + "/b.jsonl");
  CHECK(l.run["realtime"] == false);
  CHECK(l.run["policy"] == "SCHED_OTHER");
  CHECK(l.run["phases"][1]["load_policy"] == "SCHED_IDLE");
  CHECK(l.run["phases"][2]["load_policy"] == "SCHED_OTHER");
  CHECK(l.At("kernel.getppid", "idle")["count"].get<int>() > 0);
  CHECK_THAT(l.At("sync.mutex.handoff.inherit", "idle")["skipped"].get<std::string>(), Catch::Contains("run as root"));
  CHECK(l.results.count({"message.pipe.thread.4", "idle"}) == 0);  // --only

  auto pi = Rt("bench pi --cpu 1", nobody);
  CHECK(pi.code == 3);
  CHECK_THAT(pi.out, Catch::Contains("needs SCHED_FIFO: run it as root"));
}

TEST_CASE("bench --quick with groups the equal phase skips says why that phase is empty", "[cli][bench][host]") {
  if (std::string why = LiveSkipReason(); !why.empty()) {
    RTAGENT_SKIP(why);
  }
  auto r = Rt("bench --quick --cpu 1 --only kernel");
  INFO(r.out);
  REQUIRE(r.code == 0);
  const size_t equal = r.out.find("\nequal (load: ");
  REQUIRE(equal != std::string::npos);
  const std::string after = r.out.substr(r.out.find('\n', equal + 1) + 1);
  CHECK_THAT(after, Catch::StartsWith("  no test of the selected groups is measured in this phase: with --quick it "
                                      "measures only the tests that show the timeslice (groups timer, switch and message)"));
  CHECK_THAT(r.out.substr(0, equal), Catch::Contains("a real system call"));  // the idle and lower phases have their rows
}

TEST_CASE("bench as root raises fs.mqueue.msgsize_max for the run and puts it back, Ctrl-C too", "[cli][bench][host]") {
  if (std::string why = LiveSkipReason(); !why.empty()) {
    RTAGENT_SKIP(why);
  }
  const std::string file = "/proc/sys/fs/mqueue/msgsize_max";
  const std::string before = rtagent::Trim(Slurp(file));
  if (before.empty()) RTAGENT_SKIP("no " + file + " (CONFIG_POSIX_MQUEUE off)");
  if (std::stoll(before) >= 65536) RTAGENT_SKIP(file + " already allows 64 KiB (" + before + "): nothing to raise");
  // Whatever happens below, this machine keeps its limit.
  struct PutBack {
    std::string file, value;
    ~PutBack() {
      if (rtagent::Trim(Slurp(file)) != value) std::ofstream(file) << value;
    }
  } put_back{file, before};

  TempDir dir;
  auto r = Rt("bench --quick --cpu 1 --only message --json " + dir.path() + "/b.jsonl");
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(rtagent::Trim(Slurp(file)) == before);
  CHECK_THAT(r.out, Catch::Contains("fs.mqueue.msgsize_max raised from " + before + " to 65536 for the run"));
  const Lines l = Read(dir.path() + "/b.jsonl");
  for (const char* id : {"message.mqueue.thread.16384", "message.mqueue.process.65536"}) {
    INFO(id);
    CHECK(l.At(id, "idle")["skipped"] == "");
    CHECK(l.At(id, "idle")["count"].get<int>() > 0);
  }

  // Ctrl-C once the limit is raised: the run stops and the limit reads as before.
  auto cut = rtagent::test::RunShell(
      "CI=true " + std::string(RTAGENT_BINARY) + " bench --cpu 1 --only message > /dev/null 2>&1 & pid=$!; "
      "i=0; while [ \"$(cat " + file + ")\" != 65536 ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done; "
      "cat " + file + "; kill -INT $pid; wait $pid; echo rc=$?");
  INFO(cut.out);
  CHECK_THAT(cut.out, Catch::StartsWith("65536"));  // it was raised when the signal came
  CHECK_THAT(cut.out, Catch::Contains("rc="));  // it ended
  CHECK(rtagent::Trim(Slurp(file)) == before);

  // The SSH session drops (SIGHUP), or the reader of its output goes away (`| head`, SIGPIPE
  // at its next line): each stops the run as Ctrl-C does, and the limit reads as before.
  const std::string wait_raised = "i=0; while [ \"$(cat " + file + ")\" != 65536 ] && [ $i -lt 3000 ]; do sleep 0.01; "
                                  "i=$((i+1)); done; cat " + file + "; ";
  auto hup = rtagent::test::RunShell("CI=true " + std::string(RTAGENT_BINARY) + " bench --cpu 1 --only message > /dev/null 2>&1 & "
                                     "pid=$!; " + wait_raised + "kill -HUP $pid; wait $pid; echo rc=$?");
  INFO(hup.out);
  CHECK_THAT(hup.out, Catch::StartsWith("65536"));
  CHECK_THAT(hup.out, Catch::Contains("rc=") && !Catch::Contains("rc=129"));  // stopped, not killed by it
  CHECK(rtagent::Trim(Slurp(file)) == before);
  // Its output goes to a pipe whose reader closes once the limit is raised.
  auto pipe = rtagent::test::RunShell("mkfifo " + dir.path() + "/out; CI=true " + std::string(RTAGENT_BINARY) +
                                      " bench --cpu 1 --only message > " + dir.path() + "/out 2>/dev/null & pid=$!; "
                                      "exec 3< " + dir.path() + "/out; " + wait_raised +
                                      "exec 3<&-; wait $pid; echo rc=$?");
  INFO(pipe.out);
  CHECK_THAT(pipe.out, Catch::StartsWith("65536"));
  CHECK_THAT(pipe.out, Catch::Contains("rc=") && !Catch::Contains("rc=141"));  // stopped, not killed by SIGPIPE
  CHECK(rtagent::Trim(Slurp(file)) == before);
}

// `rtagent hold` for real on this machine's kernel ([host]): the PM QoS note read back from
// /dev/cpu_dma_latency while it holds, one IRQ's affinity changed behind its back and put
// back by the watch, the daemon pinned to housekeeping with SCHED_OTHER, its start-up pages
// given back once READY (and this process's own, dropped and run again), and everything
// restored at the end (on_stop: revert), even when the test fails: a guard stops the
// daemon, runs `rtagent revert` and writes back what it read first.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "base/tree_test_support.h"
#include "base/shell_test_support.h"
#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "base/sysroot.h"
#include "inspect/power.h"
#include "service/hold_state.h"
#include "service/memory_trim.h"
#include "tune/journal.h"

using namespace rtagent;

namespace {

int Rt(const std::string& args, std::string* out) {
  std::string cmd = std::string(RTAGENT_BINARY) + " " + args + " 2>&1";
  rtagent::test::ShellResult s = rtagent::test::RunShell(cmd);
  *out += s.out;
  return s.code;
}

template <typename F>
bool WaitFor(F ok, int seconds = 60) {
  for (int i = 0; i < seconds * 50; ++i) {
    if (ok()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return ok();
}

// The aggregate PM QoS value: reading the device returns it as 4 bytes.
std::optional<long long> ReadNote(SysRoot& live) {
  auto bytes = live.Read(kpath::kCpuDmaLatency);
  if (!bytes) return std::nullopt;
  return ParseCpuDmaLatency(*bytes);
}

// A "Key:   N kB" field of a /proc status or smaps_rollup text, in KiB (-1 when missing).
long long KbField(const std::string& text, const std::string& key) {
  size_t at = text.find("\n" + key + ":");
  if (at == std::string::npos) return -1;
  return std::atoll(text.c_str() + at + key.size() + 2);
}

// Stops the daemon and puts the live values back whatever happens.
struct Restore {
  SysRoot& live;
  pid_t pid = -1;
  std::vector<std::pair<std::string, std::string>> saved;
  ~Restore() {
    if (pid > 0) {
      ::kill(pid, SIGTERM);
      for (int i = 0; i < 500 && ::waitpid(pid, nullptr, WNOHANG) == 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
    std::string ignored;
    Rt("revert", &ignored);
    for (const auto& [path, value] : saved) (void)live.Write(path, value);
    (void)live.Remove(service::StatePath());
  }
};

}  // namespace

TEST_CASE("hold on this machine: PM QoS note held, IRQ drift re-asserted, all restored", "[cli][host][hold]") {
  auto opened = OpenRoot("/");
  REQUIRE(opened.ok());
  SysRoot& live = **opened;
  if (::geteuid() != 0) {
    WARN("skipped: needs root to change the kernel's settings");
    return;
  }
  if (live.Exists(Journal::Path())) {
    WARN("skipped: a journal of an earlier apply is on this machine; not touching it");
    return;
  }
  auto cpus = live.ReadTrimmed(kpath::kCpuOnline);
  auto note_before = ReadNote(live);
  if (!cpus || *cpus == "0" || !note_before) {
    WARN("skipped: needs two CPUs and a readable /dev/cpu_dma_latency");
    return;
  }
  auto movable = rtagent::test::FindMovableIrq(live, *cpus);
  if (!movable) {
    WARN("skipped: no movable IRQ spread over every CPU");
    return;
  }
  const auto [irq, irq_aff] = *movable;
  const std::string irq_path = kpath::ProcIrqFile(irq, kpath::kIrqSmpAffinityList);
  Restore guard{live, -1, {{irq_path, irq_aff}}};

  const int note = 7;  // a value no tool here asks for, so the aggregate shows ours
  TempTree t;
  t.Put("host.yaml", "version: 1\nname: host-hold\n"
                     "cores:\n  housekeeping: 0\n  isolated: 1\n  runtime:\n    workqueue_cpumask: keep\n"
                     "    default_smp_affinity: keep\n"
                     "irqs:\n  default: keep\n  rules:\n    one:\n      irq: [" + std::to_string(irq) + "]\n      cpus: 0\n"
                     "power:\n  cpu_dma_latency_us: " + std::to_string(note) + "\n"
                     "service:\n  on_stop: revert\n  watch_interval: 100ms\n  cpus: 0\n");
  const std::string profile = t.dir() + "/host.yaml";
  const std::string log = t.dir() + "/hold.log";

  pid_t pid = ::fork();
  if (pid == 0) {
    FILE* f = std::freopen(log.c_str(), "w", stderr);
    (void)f;
    ::execl(RTAGENT_BINARY, RTAGENT_BINARY, "hold", profile.c_str(), (char*)nullptr);
    ::_exit(127);
  }
  guard.pid = pid;
  auto state = [&] {
    auto text = live.Read(service::StatePath());
    auto j = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
    return j.is_object() && j.value("pid", 0) == pid ? j : nlohmann::json::object();
  };
  REQUIRE(WaitFor([&] { return state().value("state", "") == "holding"; }));

  // The note is held: the aggregate is ours (or a lower one somebody else holds).
  auto held = ReadNote(live);
  REQUIRE(held.has_value());
  if (*note_before > note) CHECK(*held == note);
  else CHECK(*held <= note);
  CHECK(*live.ReadTrimmed(irq_path) == "0");

  // Once READY it gave back the pages only start-up touched: resident now is below its peak.
  long long rss = -1, hwm = -1;
  const bool below_peak = WaitFor([&] {
    auto st = live.Read(kpath::TaskStatus(pid, pid));
    rss = st ? KbField("\n" + *st, "VmRSS") : -1;
    hwm = st ? KbField("\n" + *st, "VmHWM") : -1;
    return rss > 0 && rss < hwm;
  }, 30);
  INFO("daemon VmRSS " << rss << " kB, VmHWM " << hwm << " kB");
  CHECK(below_peak);

  // Pinned to housekeeping, SCHED_OTHER (policy: field 41 of /proc/PID/stat).
  auto status = live.Read(kpath::TaskStatus(pid, pid));
  REQUIRE(status.ok());
  CHECK_THAT(*status, Catch::Contains("Cpus_allowed_list:\t0\n"));
  auto stat = live.Read(kpath::ProcStat(pid));
  REQUIRE(stat.ok());
  std::istringstream fields(stat->substr(stat->rfind(')') + 2));
  std::vector<std::string> f;
  for (std::string w; fields >> w;) f.push_back(w);
  REQUIRE(f.size() > 38);
  CHECK(f[41 - 3] == "0");  // fields after "(comm)" start at 3

  std::string out;
  CHECK(Rt("status", &out) != 3);
  CHECK_THAT(out, Catch::Contains("PM QoS note:    7 us on /dev/cpu_dma_latency (held)"));

  // irqbalance, or a script, puts the IRQ back on every CPU: the watch moves it again.
  REQUIRE(live.Write(irq_path, irq_aff).ok());
  CHECK(WaitFor([&] { return live.ReadTrimmed(irq_path).value_or("") == "0"; }, 30));
  CHECK(WaitFor([&] { return state().value("drift_total", 0) >= 1; }, 30));

  ::kill(pid, SIGTERM);
  int st = 0;
  REQUIRE(WaitFor([&] { return ::waitpid(pid, &st, WNOHANG) == pid; }, 30));
  guard.pid = -1;
  CHECK(WIFEXITED(st));
  CHECK(WEXITSTATUS(st) == 0);
  FILE* lf = std::fopen(log.c_str(), "r");
  std::string logtext;
  if (lf) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, lf)) > 0) logtext.append(buf, n);
    std::fclose(lf);
  }
  INFO(logtext);
  CHECK_THAT(logtext, Catch::Contains("drift: IRQ " + std::to_string(irq)));
  // on_stop: revert: the IRQ is back where it was, the note is gone, the journal is empty.
  CHECK(*live.ReadTrimmed(irq_path) == irq_aff);
  CHECK(ReadNote(live) == note_before);
  CHECK_FALSE(live.Exists(Journal::Path()));
}

TEST_CASE("giving start-up pages back lowers this process's resident memory, and it runs on", "[cli][host][hold]") {
  // Needs no root: the process's own mappings. The test binary has run its code since it
  // started, so much of its text is resident; the drop is measured by the kernel's own sum.
  FsRoot live("/");
  auto rollup = [&](const std::string& key) {
    auto text = live.Read(kpath::kSelfSmapsRollup);
    return text ? KbField(*text, key) : -1;
  };
  const long long rss_before = rollup("Rss"), anon_before = rollup("Anonymous");
  REQUIRE(rss_before > 0);
  service::TrimReport t = service::DropStartupPages(service::RealSelfCalls());
  const long long rss_after = rollup("Rss"), anon_after = rollup("Anonymous");
  INFO("Rss " << rss_before << " -> " << rss_after << " kB; Anonymous " << anon_before << " -> " << anon_after
              << " kB; dropped " << t.dropped_kb << " kB in " << t.mappings << " mappings; " << t.error);
  CHECK(t.error.empty());
  CHECK(t.mappings > 0);
  CHECK(t.dropped_kb > 0);
  CHECK(rss_after < rss_before);
  // The dropped code runs again (refaulted from the page cache), and nothing of the process's
  // own was thrown away: Read is a virtual call through a vtable in RELRO, relocated at load
  // (an anonymous page); had that page been dropped it would refault unrelocated and crash.
  auto text = live.Read(kpath::kSelfSmaps);
  REQUIRE(text.ok());
  CHECK(service::ParseSmaps(*text).size() > 10);
}

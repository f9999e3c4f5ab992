// ProcessLoad's start: a load whose workers never report at work is stopped after the wait,
// with a sentence that says so, and nothing of it is left running.
#include "latency/load_process.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "base/fault_root.h"
#include "base/kernel_paths.h"
#include "inspect/threads.h"
#include "latency/load_test_util.h"

using namespace rtagent;
using namespace std::chrono_literals;

namespace {

// One worker that writes its pid to `pid_file` and then waits, never calling started().
class NeverAtWork : public load_internal::LoadBody {
 public:
  explicit NeverAtWork(std::string pid_file) : pid_file_(std::move(pid_file)) {}
  std::string Kind() const override { return "builtin"; }
  std::string Pattern() const override { return "waits without working"; }
  int Workers(const CpuSet&) const override { return 1; }
  Result<void> Prepare(load_internal::SharedState&, int) override { return Ok(); }
  Result<void> Run(int, load_internal::SharedState&, const std::function<void()>&) override {
    std::ofstream(pid_file_) << ::getpid() << "\n";
    for (;;) ::pause();
  }

 private:
  std::string pid_file_;
};

int ReadPid(const std::string& path) {
  int pid = 0;
  std::ifstream(path) >> pid;
  return pid;
}

// True once `pid` runs no more: gone, or a zombie waiting for whoever adopted it to reap it.
bool NotRunning(int pid) {
  if (load_test::Gone(pid)) return true;
  FsRoot live("/");
  auto text = live.Read(kpath::ProcStat(pid));
  if (!text) return true;  // gone since
  auto stat = ParseTaskStat(*text);
  return !stat || stat->state == 'Z';
}

}  // namespace

TEST_CASE("a load whose workers never get to work is stopped after the start wait, in words", "[latency][load]") {
  TempTree tree;
  const std::string pid_file = tree.dir() + "/worker.pid";
  FsRoot live("/");
  load_internal::ProcessLoad load("idle", std::make_unique<NeverAtWork>(pid_file), 0, 20s, live);
  load.set_start_timeout(1s);
  auto r = load.Start(CpuSet::Of({0}));
  REQUIRE_FALSE(r);
  CHECK(r.error().err == ETIMEDOUT);
  CHECK(r.error().message == "load 'idle' was not at work 1000 ms after it was started, so it and its workers were stopped");
  CHECK_FALSE(load.Running());
  CHECK(load.RootPid() == 0);
  // The worker got as far as its body and was killed with its supervisor (the kill is sent
  // before Start returns; its delivery is waited for, up to 2 s).
  const int worker = ReadPid(pid_file);
  REQUIRE(worker > 0);
  for (int i = 0; i < 200 && !NotRunning(worker); ++i) std::this_thread::sleep_for(10ms);
  CHECK(NotRunning(worker));
  CHECK(load_test::MyChildren().empty());
}

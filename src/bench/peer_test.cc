#include "bench/peer.h"

#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <thread>

using namespace rtagent;
using namespace rtagent::bench;

namespace {

const SchedState kOther{SCHED_OTHER, 0};

struct Flag {
  std::atomic<uint32_t> v{0};
};

}  // namespace

TEST_CASE("a peer thread and a peer process run their body on the CPU asked and end with its errno", "[bench]") {
  for (PeerKind kind : {PeerKind::kThread, PeerKind::kProcess}) {
    SharedBlock<Flag> cpu_seen;
    auto ok = Peer::Start(kind, 0, kOther, false, [&cpu_seen] {
      cpu_seen->v.store(static_cast<uint32_t>(::sched_getcpu()) + 1);
      return 0;
    });
    REQUIRE(ok);
    if (kind == PeerKind::kProcess) CHECK((*ok)->Pid() != ::getpid());
    else CHECK((*ok)->Pid() == ::getpid());
    CHECK((*ok)->Tid() != ::gettid());
    CHECK((*ok)->Join());
    CHECK(cpu_seen->v.load() == 1);  // CPU 0

    auto failing = Peer::Start(kind, 0, kOther, false, [] { return EPIPE; });
    REQUIRE(failing);
    auto joined = (*failing)->Join();
    REQUIRE_FALSE(joined);
    CHECK(joined.error().err == EPIPE);
  }
}

TEST_CASE("a class the kernel refuses is Start's error, and no peer is left running", "[bench]") {
  for (PeerKind kind : {PeerKind::kThread, PeerKind::kProcess}) {
    bool ran = false;
    auto p = Peer::Start(kind, 0, {SCHED_FIFO, 100}, false, [&ran] {
      ran = true;
      return 0;
    });
    REQUIRE_FALSE(p);
    CHECK(p.error().err == EINVAL);
    CHECK_THAT(p.error().message, Catch::Contains("cannot run on CPU 0 at SCHED_FIFO 100"));
    CHECK_FALSE(ran);
  }
  CHECK(::waitpid(-1, nullptr, WNOHANG) < 0);  // ECHILD: nothing to reap, nothing left behind
}

TEST_CASE("a process peer dropped unjoined is killed and reaped", "[bench]") {
  pid_t pid = 0;
  {
    auto p = Peer::Start(PeerKind::kProcess, 0, kOther, false, [] {
      for (;;) ::pause();
      return 0;
    });
    REQUIRE(p);
    pid = (*p)->Pid();
    CHECK(::kill(pid, 0) == 0);
  }
  CHECK(::kill(pid, 0) != 0);
}

TEST_CASE("Shifted moves real-time ranks within 1..99 and leaves other classes alone", "[bench]") {
  CHECK(Shifted({SCHED_FIFO, 90}, 1) == SchedState{SCHED_FIFO, 91});
  CHECK(Shifted({SCHED_RR, 99}, 1) == SchedState{SCHED_RR, 99});
  CHECK(Shifted({SCHED_FIFO, 1}, -1) == SchedState{SCHED_FIFO, 1});
  CHECK(Shifted(kOther, 1) == kOther);
}

#include "bench/timers.h"

#include <catch2/catch.hpp>

using namespace rtagent::bench;

TEST_CASE("timer health: a wait stalled past the limit ends the run with the wait as its last sample and the periods it covered lost", "[bench]") {
  const int64_t period = 2000000;  // 2 ms
  // The last wake-up at 10 ms; nothing came until the wait gave up one period + 1 s + 3 µs later.
  const int64_t prev = 10000000;
  const int64_t now = prev + period + kTimerStallNs + 3000;
  const StalledWait w = JudgeStalledWait(prev, now, period);
  CHECK(w.last_sample_ns == kTimerStallNs + 3000);  // what the report shows as the worst interval error
  CHECK(w.lost == 501);                             // the expiries at 12, 14, ... 1012 ms never taken
  // A 10 ms timer over the same wait covers 100 periods.
  CHECK(JudgeStalledWait(prev, prev + 10000000 + kTimerStallNs, 10000000).lost == 101);
  // A clock that did not move (or went back) loses nothing and gives no negative count.
  CHECK(JudgeStalledWait(prev, prev, period).lost == 0);
}

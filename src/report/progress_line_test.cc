#include "report/progress_line.h"

#include <catch2/catch.hpp>
#include <sstream>

using namespace rtagent;

namespace {

constexpr int64_t kSec = 1000000000;

std::vector<CpuProgress> TwoCpus(uint64_t samples) {
  return {{2, samples, 12345, 0}, {3, samples, std::nullopt, 2}};
}

}  // namespace

TEST_CASE("a plain progress line names the time, and per CPU the samples, the worst and the overflows", "[report]") {
  CHECK(PlainProgressLine("accept", 60 * kSec, 7200 * kSec, TwoCpus(60000)) ==
        "accept progress: 1 min 0 s of 2 h 0 min 0 s; CPU 2: 60,000 samples, worst 12.3 µs, 0 overflows; "
        "CPU 3: 60,000 samples, worst –, 2 overflows");
}

TEST_CASE("without a terminal a plain line is written once per interval, never more often", "[report]") {
  std::ostringstream out;
  {
    ProgressLine p(out, "accept", 10 * kSec, /*terminal=*/false, 2 * kSec);
    for (int64_t t = 0; t <= 9 * kSec; t += kSec / 4) p.Show(TwoCpus(static_cast<uint64_t>(t / 1000000)), t);
  }
  const std::string text = out.str();
  // At 2, 4, 6 and 8 s: four lines, each whole, no carriage return.
  CHECK(std::count(text.begin(), text.end(), '\n') == 4);
  CHECK(text.find('\r') == std::string::npos);
  CHECK_THAT(text, Catch::StartsWith("accept progress: 2.0 s of 10.0 s; CPU 2: 2,000 samples"));
  CHECK_THAT(text, Catch::Contains("accept progress: 8.0 s of 10.0 s"));
}

TEST_CASE("a late call writes one line, and the next keeps to the interval's grid", "[report]") {
  std::ostringstream out;
  ProgressLine p(out, "accept", 600 * kSec, false, 60 * kSec);
  p.Show(TwoCpus(1), 190 * kSec);  // the caller was away for three intervals
  p.Show(TwoCpus(1), 200 * kSec);  // not yet 240 s
  p.Show(TwoCpus(1), 240 * kSec);
  const std::string text = out.str();
  CHECK(std::count(text.begin(), text.end(), '\n') == 2);
}

TEST_CASE("an interval of 0 (--progress-every 0) writes nothing without a terminal", "[report]") {
  std::ostringstream out;
  {
    ProgressLine p(out, "accept", 10 * kSec, false, 0);
    for (int64_t t = 0; t <= 10 * kSec; t += kSec) p.Show(TwoCpus(1), t);
  }
  CHECK(out.str().empty());
}

TEST_CASE("the default without a terminal is a line a minute", "[report]") {
  std::ostringstream out;
  ProgressLine p(out, "accept", 7200 * kSec, false, std::nullopt);
  p.Show(TwoCpus(1), 59 * kSec);
  CHECK(out.str().empty());
  p.Show(TwoCpus(1), 60 * kSec);
  CHECK_THAT(out.str(), Catch::StartsWith("accept progress: 1 min 0 s of 2 h 0 min 0 s"));
}

TEST_CASE("on a terminal the live line is rewritten in place and cleared at the end", "[report]") {
  std::ostringstream out;
  {
    ProgressLine p(out, "accept", 10 * kSec, /*terminal=*/true, 2 * kSec);
    p.Show(TwoCpus(1), kSec);
    p.Show(TwoCpus(2), 2 * kSec);
  }
  const std::string text = out.str();
  CHECK(text.find('\n') == std::string::npos);
  CHECK_THAT(text, Catch::StartsWith("\raccept: 1.0 s elapsed, 9.0 s left; worst CPU2 12.3 µs CPU3 -"));
  CHECK_THAT(text, Catch::EndsWith("\r"));
}

#include "latency/sampler_protocol.h"

#include <sched.h>

#include <catch2/catch.hpp>
#include <sstream>

using namespace rtagent;
using namespace std::chrono_literals;

namespace {

// Feeds every line of `text` (newline-separated) to `r`; the first error, or Ok.
Result<void> FeedAll(SamplerStreamReader& r, const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (auto ok = r.Feed(line); !ok) return ok;
  }
  return Ok();
}

// A run with everything the stream must carry: two CPUs, overflows, skipped periods, notes.
SamplerResult SampleResult() {
  SamplerResult r;
  r.interval = 500us;
  r.duration_asked = 2s;
  r.duration_actual = 1999999500ns;
  r.priority_asked = 90;
  r.fifo = false;
  r.memory_locked = true;
  r.unprivileged_fallback = true;
  r.own_pm_qos_us = 0;
  r.interrupted = true;
  r.notes = {"CPU 3 ran SCHED_OTHER, not SCHED_FIFO", "a note\nwith a newline"};
  for (int cpu : {1, 3}) {
    Histogram h(50, 2);
    for (int i = 0; i < 1000; ++i) h.Record(1000 + 37 * (i % 40) + cpu, i * 500000);
    h.Record(75000 + cpu, 300000000);   // overflows: past the 50 µs limit
    h.Record(91000, 600000000);
    h.Record(60000, 900000000);
    h.AddSkippedPeriods(cpu);
    r.cpus.push_back(CpuRun{cpu, std::move(h), SchedState{cpu == 1 ? SCHED_FIFO : SCHED_OTHER, cpu == 1 ? 90 : 0},
                            cpu == 3, 1999999500 - cpu});
  }
  return r;
}

}  // namespace

TEST_CASE("a measured run crosses the process boundary unchanged", "[latency][sampler-process]") {
  const SamplerResult sent = SampleResult();
  SamplerStreamReader r;
  REQUIRE(FeedAll(r, EncodeHello() + EncodeReady() +
                         EncodeProgress({{1, 10, 2000}, {3, 9, std::nullopt}}) + EncodeResult(sent)));
  REQUIRE(r.finished());
  CHECK_FALSE(r.failure());
  auto got = r.TakeResult();
  REQUIRE(got);
  CHECK(got->interval == sent.interval);
  CHECK(got->duration_asked == sent.duration_asked);
  CHECK(got->duration_actual == sent.duration_actual);
  CHECK(got->priority_asked == 90);
  CHECK(got->fifo == false);
  CHECK(got->memory_locked == true);
  CHECK(got->unprivileged_fallback == true);
  CHECK(got->own_pm_qos_us == std::optional<int32_t>(0));
  CHECK(got->interrupted == true);
  CHECK(got->notes == std::vector<std::string>{"CPU 3 ran SCHED_OTHER, not SCHED_FIFO", "a note with a newline"});
  REQUIRE(got->cpus.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    const CpuRun& a = sent.cpus[i];
    const CpuRun& b = got->cpus[i];
    INFO("CPU " << a.cpu);
    CHECK(b.cpu == a.cpu);
    CHECK(b.sched == a.sched);
    CHECK(b.stopped_early == a.stopped_early);
    CHECK(b.elapsed_ns == a.elapsed_ns);
    const HistogramParts pa = a.histogram.Parts(), pb = b.histogram.Parts();
    CHECK(pb.limit_us == pa.limit_us);
    CHECK(pb.bins == pa.bins);
    CHECK(pb.samples == pa.samples);
    CHECK(pb.overflows == 3);
    CHECK(pb.overflow_max_ns == 91000);
    CHECK(pb.min_ns == pa.min_ns);
    CHECK(pb.max_ns == pa.max_ns);
    CHECK(pb.sum_ns == pa.sum_ns);
    CHECK(pb.skipped_periods == static_cast<uint64_t>(a.cpu));
    CHECK(pb.first_overflows == pa.first_overflows);
    CHECK(pb.worst_overflows == pa.worst_overflows);
    CHECK(pb.worst_overflows.size() == 2);  // two kept: the 91 µs and the 75 µs ones
    CHECK(b.histogram.kept_events() == 2);
  }
}

TEST_CASE("progress lines give the worst and the overflows so far per CPU, no worst before the first sample", "[latency][sampler-process]") {
  SamplerStreamReader r;
  REQUIRE(FeedAll(r, EncodeHello() + EncodeReady() + EncodeProgress({{0, 0, std::nullopt, 0}, {2, 41, 17250, 3}})));
  CHECK(r.ready());
  CHECK_FALSE(r.finished());
  REQUIRE(r.progress().size() == 2);
  CHECK(r.progress()[0].cpu == 0);
  CHECK_FALSE(r.progress()[0].worst_ns);
  CHECK(r.progress()[1].cpu == 2);
  CHECK(r.progress()[1].samples == 41);
  CHECK(r.progress()[1].worst_ns == std::optional<int64_t>(17250));
  CHECK(r.progress()[1].overflows == 3);
  CHECK(r.progress()[0].overflows == 0);
}

TEST_CASE("the measuring process's own error comes back with its errno", "[latency][sampler-process]") {
  SamplerStreamReader r;
  REQUIRE(FeedAll(r, EncodeHello() + EncodeError(MakeError("cannot pin the measuring thread to CPU 7\n(is it online?)", EINVAL))));
  REQUIRE(r.finished());
  REQUIRE(r.failure());
  CHECK(r.failure()->err == EINVAL);
  CHECK(r.failure()->message == "cannot pin the measuring thread to CPU 7 (is it online?): Invalid argument");
  auto res = r.TakeResult();
  REQUIRE_FALSE(res);
  CHECK(res.error().err == EINVAL);
}

TEST_CASE("a stream that is not the protocol is refused, naming the line", "[latency][sampler-process]") {
  const std::string ok_result = EncodeHello() + EncodeReady() + EncodeResult(SampleResult());
  struct Case {
    const char* what;
    std::string text;
    const char* says;
  };
  std::vector<Case> cases = {
      {"another program's output", "Usage: foo [options]\n", "no greeting"},
      {"another protocol version", "hello 1\n", "rtagent and rtagent-sampler come from different builds"},
      {"a result before ready", EncodeHello() + "result 1000 1 1 80 1 1 0 - 0\n", "a line before 'ready'"},
      {"a garbled progress line", EncodeHello() + EncodeReady() + "progress 1:x:3:0\n", "an unreadable progress line"},
      {"a progress line without overflows", EncodeHello() + EncodeReady() + "progress 1:1:3\n", "an unreadable progress line"},
      {"a cpu line with a field missing", EncodeHello() + EncodeReady() + "result 1000 1 1 80 1 1 0 - 0\ncpu 1 1 80 0\n",
       "an unreadable cpu line"},
      {"a bin past the limit", EncodeHello() + EncodeReady() + "result 1000 1 1 80 1 1 0 - 0\n" +
                                   "cpu 1 1 80 0 5 2 1 1 0 0 1000 1000 1000 0\nbins 7:1\nend\n",
       "an unreadable bin '7:1'"},
      {"counts that do not add up", EncodeHello() + EncodeReady() + "result 1000 1 1 80 1 1 0 - 0\n" +
                                        "cpu 1 1 80 0 5 2 1 2 0 0 1000 1000 1000 0\nbins 1:1\nend\n",
       "histogram counts do not add up"},
      {"a result line with a word for a flag", EncodeHello() + EncodeReady() + "result 1000 1 1 80 yes 1 0 - 0\n",
       "an unreadable result line"},
      {"a result line with a field missing", EncodeHello() + EncodeReady() + "result 1000 1 1 80 1 1 0 -\n",
       "an unreadable result line"},
      {"an overflow event without its latency", EncodeHello() + EncodeReady() + "result 1000 1 1 80 1 1 0 - 0\n" +
                                                    "cpu 1 1 80 0 5 2 1 1 0 0 1000 1000 1000 0\nfirst 0:1000\n",
       "unreadable overflow event '0:1000'"},
      {"a line the protocol does not have", EncodeHello() + EncodeReady() + "result 1000 1 1 80 1 1 0 - 0\nhistogram 1\n",
       "an unknown line"},
      {"a line after end", ok_result + "progress 1:1:1:0\n", "a line after its last one"},
      // fuzz sampler_stream: a limit of 2^32 µs made the reader allocate 32 GiB of bins.
      {"a histogram limit past the largest", EncodeHello() + EncodeReady() + "result 1000 1 1 80 1 1 0 - 0\n" +
                                                 "cpu 1 1 80 0 5 4294967295 2 1 0 0 1000 1000 1000 0\n",
       "a histogram limit above 10000000"},
      {"kept events past the most", EncodeHello() + EncodeReady() + "result 1000 1 1 80 1 1 0 - 0\n" +
                                        "cpu 1 1 80 0 5 2 1000000000000 1 0 0 1000 1000 1000 0\n",
       "kept events"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    SamplerStreamReader r;
    auto fed = FeedAll(r, c.text);
    REQUIRE_FALSE(fed);
    CHECK(fed.error().err == EPROTO);
    CHECK_THAT(fed.error().message, Catch::Contains("the measuring process sent") && Catch::Contains(c.says));
  }
}

TEST_CASE("a stream cut off before its end is not a result", "[latency][sampler-process]") {
  std::string text = EncodeHello() + EncodeReady() + EncodeResult(SampleResult());
  text.erase(text.rfind("end\n"));  // the process died while sending
  SamplerStreamReader r;
  REQUIRE(FeedAll(r, text));
  CHECK_FALSE(r.finished());
  auto res = r.TakeResult();
  REQUIRE_FALSE(res);
  CHECK_THAT(res.error().message, Catch::Contains("ended before it sent a whole result"));
}

TEST_CASE("the measuring process's command line carries the whole config", "[latency][sampler-process]") {
  SamplerConfig c;
  c.cpus = CpuSet::Of({1, 3, 4, 5});
  c.interval = 250us;
  c.duration = 90s;
  c.priority = 95;
  c.allow_unprivileged = true;
  c.hold_pm_qos_us = 10;
  c.histogram_limit_us = 4000;
  c.kept_overflow_events = 7;
  c.stack_bytes = 512 * 1024;
  c.stack_prefault_bytes = 128 * 1024;
  c.join_cgroup_dir = "sys/fs/cgroup/rt";
  const auto args = SamplerArgs("/usr/libexec/rtagent/rtagent-sampler", c, "/tmp/root", 3, 4242);
  CHECK(args.front() == "/usr/libexec/rtagent/rtagent-sampler");
  auto inv = ParseSamplerArgs(std::vector<std::string>(args.begin() + 1, args.end()));
  REQUIRE(inv);
  CHECK(inv->out_fd == 3);
  CHECK(inv->parent_pid == 4242);
  CHECK(inv->root_dir == "/tmp/root");
  const SamplerConfig& b = inv->config;
  CHECK(b.cpus == c.cpus);
  CHECK(b.interval == c.interval);
  CHECK(b.duration == c.duration);
  CHECK(b.priority == 95);
  CHECK(b.allow_unprivileged);
  CHECK(b.hold_pm_qos_us == std::optional<int32_t>(10));
  CHECK(b.histogram_limit_us == 4000);
  CHECK(b.join_cgroup_dir == "sys/fs/cgroup/rt");
  CHECK(b.kept_overflow_events == 7);
  CHECK(b.stack_bytes == c.stack_bytes);
  CHECK(b.stack_prefault_bytes == c.stack_prefault_bytes);

  // Defaults stay defaults: no PM QoS note, no fallback.
  SamplerConfig d;
  d.cpus = CpuSet::Of({0});
  auto plain = ParseSamplerArgs([&] {
    auto a = SamplerArgs("x", d, "/", 5, 1);
    return std::vector<std::string>(a.begin() + 1, a.end());
  }());
  REQUIRE(plain);
  CHECK_FALSE(plain->config.hold_pm_qos_us);
  CHECK_FALSE(plain->config.allow_unprivileged);

  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--cpus", "1"}, {"--out-fd", "3", "--priority"}, {"--out-fd", "3", "--duration-ns", "1s"},
        {"--out-fd", "3", "--cpus", "x-y"}, {"--out-fd", "3", "--colour", "1"}}) {
    INFO(bad.back());
    auto r = ParseSamplerArgs(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().err == EINVAL);
    CHECK_THAT(r.error().message, Catch::Contains("argument"));
  }
}

#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <map>
#include <sstream>

#include "report/cyclictest_text.h"
#include "report/junit.h"
#include "report/markdown.h"
#include "report/svg.h"
#include "report/test_verdict.h"

using namespace rtagent;
using namespace rtagent::testing;

namespace {

size_t Count(const std::string& s, const std::string& needle) {
  size_t n = 0;
  for (size_t at = s.find(needle); at != std::string::npos; at = s.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("JUnit has one test case per criterion and CPU, failures with evidence", "[report]") {
  const Verdict v = ExampleVerdict();
  const std::string xml = RenderJUnit(v);
  CheckExpected("verdict.junit.xml", xml);
  CHECK(Count(xml, "<testcase ") == v.criteria.size() + 1);
  CHECK_THAT(xml, Catch::Contains("<testcase classname=\"rtagent.accept.cpu2\" name=\"max &lt;= 100 µs\""));
  CHECK_THAT(xml, Catch::Contains("message=\"CPU 2: max 1203.0 µs, limit &lt;= 100 µs\""));
  CHECK_THAT(xml, Catch::Contains("<testcase classname=\"rtagent.accept.cpu3\" name=\"max &lt;= 100 µs\" time=\"0\"/>"));
  CHECK(Count(xml, "<failure ") == 4);  // CPU 2 max and overflows, the interrupts pre-flight, the disk placement
}

TEST_CASE("Markdown puts the trust warnings before any figure", "[report]") {
  const std::string md = RenderMarkdown(ExampleVerdict());
  CheckExpected("verdict.md", md);
  const size_t warning = md.find("virtual-machine figures");
  REQUIRE(warning != std::string::npos);
  CHECK(warning < md.find("## Criteria"));
  CHECK(warning < md.find("1203.0"));
  CHECK_THAT(md, Catch::Contains("> 100 (beyond limit)"));
  CHECK(MarkdownCell("a|b\nc") == "a\\|b c");
}

TEST_CASE("Markdown lists the tuning in force with its count, and nothing when it was not recorded", "[report]") {
  Verdict v = ExampleVerdict();
  CHECK(RenderMarkdown(v).find("## Tuning in force") == std::string::npos);
  TuningInForce t;
  t.source = "run/rtagent/journal.json";
  t.total = 300;
  t.changes = {{"irqs", "IRQ 24 | virtio", "0-3", ""}};
  v.tuning = t;
  const std::string md = RenderMarkdown(v);
  CHECK_THAT(md, Catch::Contains("## Tuning in force during the run\n\nrtagent had made 300 changes and not reverted "
                                 "them when the run started (journal run/rtagent/journal.json); the first 1 are listed"));
  CHECK_THAT(md, Catch::Contains("| irqs | IRQ 24 \\| virtio | `0-3` | `(empty)` |"));
  v.tuning->total = 0;
  v.tuning->changes.clear();
  CHECK_THAT(RenderMarkdown(v), Catch::Contains("No change by rtagent was in force when the run started"));
}

TEST_CASE("the SVG marks the worst case and the limit on log axes", "[report]") {
  const std::string svg = RenderSvg(ExampleVerdict());
  CheckExpected("verdict.svg", svg);
  CHECK(svg.rfind("<?xml", 0) == 0);
  CHECK_THAT(svg, Catch::Contains("xmlns=\"http://www.w3.org/2000/svg\""));
  CHECK(Count(svg, "<path ") == 2);  // one series per CPU
  CHECK_THAT(svg, Catch::Contains("worst 1203.0 µs (CPU 2)"));
  CHECK_THAT(svg, Catch::Contains("limit 100 µs"));
  CHECK_THAT(svg, Catch::Contains("log scale"));
  CHECK_THAT(svg, Catch::Contains("virtual-machine figures"));
  CHECK(Count(svg, "<circle ") == 1);  // the overflow, one wake-up high
  CHECK(svg.substr(svg.size() - 7) == "</svg>\n");
}

TEST_CASE("the SVG of a verdict without CPUs is still a valid empty chart", "[report]") {
  Verdict v;
  v.profile_name = "a<b";
  const std::string svg = RenderSvg(v);
  CHECK_THAT(svg, Catch::Contains("a&lt;b"));
  CHECK(Count(svg, "<path ") == 0);
  CHECK_THAT(svg, !Catch::Contains("worst"));
}

TEST_CASE("cyclictest -h text in the tool's own format", "[report]") {
  const Verdict v = ExampleVerdict();
  const std::string text = RenderCyclictestHistogram(v);
  CheckExpected("verdict.cyclictest.txt", text);
  CHECK_THAT(text, Catch::Contains("# /dev/cpu_dma_latency set to 0us\n"));
  CHECK_THAT(text, Catch::Contains("\n000002 000400\t000450\n"));
  CHECK_THAT(text, Catch::Contains("\n# Total: 000000999 000001000\n"));
  CHECK_THAT(text, Catch::Contains("\n# Max Latencies: 01203 00007\n"));
  CHECK_THAT(text, Catch::Contains("\n# Histogram Overflows: 00001 00000\n"));
  CHECK_THAT(text, Catch::Contains("\n# Thread 0: 00999\n# Thread 1:\n"));
  CHECK(text.find("000000 ") == std::string::npos);  // empty bins skipped
}

namespace {

// The lesson's report reader (the seed's read_cyclictest_hist), ported line for line: what a
// third-party reader makes of our text.
struct ReaderResult {
  uint64_t samples = 0, overflows = 0, max_us = 0;
  std::optional<uint64_t> p50, p99, p999;
};

ReaderResult LessonReader(const std::string& text, size_t thread) {
  std::map<uint64_t, uint64_t> rows;
  std::map<std::string, std::vector<std::string>> foot;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("# ", 0) == 0 && line.find(':') != std::string::npos) {
      std::string body = line.substr(2);
      size_t colon = body.find(':');
      std::string key = body.substr(0, colon);
      while (!key.empty() && key.back() == ' ') key.pop_back();
      std::istringstream vals(body.substr(colon + 1));
      std::vector<std::string> fields;
      for (std::string f; vals >> f;) fields.push_back(f);
      foot[key] = fields;
    } else if (!line.empty() && std::isdigit(static_cast<unsigned char>(line[0]))) {
      std::istringstream cols(line);
      std::vector<uint64_t> c;
      for (uint64_t x; cols >> x;) c.push_back(x);
      rows[c[0]] = c[1 + thread];
    }
  }
  std::vector<uint64_t> cum(rows.empty() ? 0 : rows.rbegin()->first + 1, 0);
  for (auto [b, c] : rows) cum[b] = c;
  for (size_t i = 1; i < cum.size(); ++i) cum[i] += cum[i - 1];
  ReaderResult r;
  r.overflows = std::stoull(foot["Histogram Overflows"][thread]);
  r.samples = (cum.empty() ? 0 : cum.back()) + r.overflows;
  auto pct = [&](double q) -> std::optional<uint64_t> {
    if (cum.empty() || static_cast<double>(cum.back()) < q * static_cast<double>(r.samples)) return std::nullopt;
    return static_cast<uint64_t>(std::lower_bound(cum.begin(), cum.end(), q * static_cast<double>(r.samples),
                                                  [](uint64_t a, double b) { return static_cast<double>(a) < b; }) -
                                 cum.begin());
  };
  r.p50 = pct(0.5);
  r.p99 = pct(0.99);
  r.p999 = pct(0.999);
  r.max_us = std::stoull(foot["Max Latencies"][thread]);
  return r;
}

}  // namespace

TEST_CASE("the lesson's report reader reads our cyclictest text and agrees with us", "[report]") {
  const Verdict v = ExampleVerdict();
  const std::string text = RenderCyclictestHistogram(v);
  for (size_t t = 0; t < v.cpus.size(); ++t) {
    INFO("thread " << t);
    const ReaderResult r = LessonReader(text, t);
    const LatencyStats& s = v.cpus[t].stats;
    CHECK(r.samples == s.samples);
    CHECK(r.overflows == s.overflows);
    CHECK(r.max_us == static_cast<uint64_t>(*s.max_ns / 1000));
    CHECK(r.p50 == s.Find(0.5)->us);
    CHECK(r.p99 == s.Find(0.99)->us);
    CHECK(r.p999 == s.Find(0.999)->us);
  }
}

TEST_CASE("cyclictest reports read back, old and new, with overflows", "[report]") {
  SECTION("our own text round-trips") {
    auto r = ParseCyclictestHistogram(RenderCyclictestHistogram(ExampleVerdict()));
    REQUIRE(r);
    REQUIRE(r->threads.size() == 2);
    CHECK(r->pm_qos_us == 0);
    const Histogram& h = r->threads[0];
    CHECK(h.samples() == 1000);
    CHECK(h.overflows() == 1);
    CHECK(h.max_ns() == 1203000);
    CHECK(h.bins()[40] == 4);
    CHECK(ComputeStats(h).Find(0.999)->us == 40u);
    CHECK(ComputeStats(h).Find(0.9999)->beyond_limit);
  }
  SECTION("the lesson's made-up report, empty bins skipped, the worst only in the footer") {
    const std::string text =
        "# /dev/cpu_dma_latency set to 1000000us\n"
        "T: 0 ( 821) P:80 I:200 C: 600000 Min: 1 Act: 2 Avg: 4 Max: 1203\n"
        "# Histogram\n"
        "000001 000006\n"
        "000002 056220\n"
        "000003 304803\n"
        "000004 200000\n"
        "000006 038000\n"
        "000204 000961\n"
        "000211 000007\n"
        "# Total: 000599997\n"
        "# Min Latencies: 00001\n"
        "# Avg Latencies: 00004\n"
        "# Max Latencies: 01203\n"
        "# Histogram Overflows: 00003\n"
        "# Histogram Overflow at cycle number:\n"
        "# Thread 0: 151220 388004 590117\n";
    auto r = ParseCyclictestHistogram(text);
    REQUIRE(r);
    CHECK(r->pm_qos_us == 1000000);
    REQUIRE(r->threads.size() == 1);
    const Histogram& h = r->threads[0];
    CHECK(h.samples() == 600000);
    CHECK(h.overflows() == 3);
    CHECK(h.max_ns() == 1203000);
    CHECK(h.bins()[5] == 0);  // missing line: zero
    LatencyStats s = ComputeStats(h);
    CHECK(s.Find(0.5)->us == 3u);
    CHECK(s.Find(0.99)->us == 6u);
    CHECK(s.Find(0.999)->us == 204u);
  }
  SECTION("an older report with every bin and -H's all-threads column") {
    std::string text = "# Histogram\n";
    for (int b = 0; b < 5; ++b) {
      char row[64];
      std::snprintf(row, sizeof row, "%06d %06d\t%06d\t%06d\n", b, b == 2 ? 10 : 0, b == 3 ? 5 : 0, b == 2 ? 10 : b == 3 ? 5 : 0);
      text += row;
    }
    text += "# Total: 000000010 000000005 000000015\n# Min Latencies: 00002 00003\n# Avg Latencies: 00002 00003\n"
            "# Max Latencies: 00002 00009 00009\n# Histogram Overflows: 00000 00001 00001\n";
    auto r = ParseCyclictestHistogram(text);
    REQUIRE(r);
    REQUIRE(r->threads.size() == 2);
    CHECK(r->threads[0].limit_us() == 5);
    CHECK(r->threads[0].samples() == 10);
    CHECK(r->threads[1].samples() == 6);
    CHECK(r->threads[1].overflows() == 1);
    CHECK(r->threads[1].overflow_max_ns() == 9000);
  }
  SECTION("the policy line: every name cyclictest prints, as --json's reader reads it") {
    // The text reader knew fifo, rr and other only; batch and idle (cyclictest's other two
    // names) left the policy unknown. Both readers now ask CyclictestPolicy.
    const std::string footer = "# Max Latencies: 00002\n# Histogram Overflows: 00000\n";
    for (const auto& [name, policy] : std::vector<std::pair<std::string, std::string>>{
             {"fifo", "SCHED_FIFO"}, {"rr", "SCHED_RR"}, {"other", "SCHED_OTHER"}, {"batch", "SCHED_BATCH"},
             {"idle", "SCHED_IDLE"}}) {
      auto r = ParseCyclictestHistogram("policy: " + name + ": loadavg: 0.10 0.05 0.01 1/100 42\n" + footer);
      REQUIRE(r);
      CHECK(r->policy == policy);
      CHECK(CyclictestPolicy(name) == policy);
    }
    CHECK_FALSE(ParseCyclictestHistogram("policy: deadline: loadavg: 0.1\n" + footer)->policy);
  }
  SECTION("not a report") {
    CHECK_FALSE(ParseCyclictestHistogram("hello\n"));
    CHECK_THAT(ParseCyclictestHistogram("000001 x\n# Max Latencies: 1\n# Histogram Overflows: 0\n").error().message,
               Catch::Contains("line 1"));
  }
}

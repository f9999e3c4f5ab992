#include "report/import.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "base/kernel_text.h"
#include "base/sysroot.h"
#include "report/cyclictest_json.h"
#include "report/html.h"
#include "report/json.h"
#include "report/junit.h"
#include "report/markdown.h"
#include "report/diff.h"
#include "report/rteval_xml.h"
#include "report/rtla_text.h"
#include "report/test_verdict.h"
#include "report/verdict_page.h"

using namespace rtagent;

namespace {

std::string Fixture(const std::string& name) {
  auto text = FsRoot(RTAGENT_SOURCE_DIR).Read("tests/imports/" + name);
  REQUIRE(text);
  return *text;
}

}  // namespace

TEST_CASE("rtla timerlat hist: each CPU's Usr column, its overflows and duration", "[report]") {
  auto run = ParseRtlaTimerlatHist(Fixture("rtla-timerlat-hist-u.txt"));
  REQUIRE(run);
  CHECK(run->tool == "rtla timerlat hist");
  CHECK(run->cpus == std::vector<int>{2, 3});
  REQUIRE(run->threads.size() == 2);
  const Histogram& h = run->threads[0];
  CHECK(h.samples() == 1000);
  CHECK(h.overflows() == 1);
  CHECK(h.max_ns() == 41000);
  CHECK(h.bins()[2] == 700);  // the Usr column, not Thr's 400 nor IRQ's 2
  CHECK(h.limit_us() == 18);
  CHECK(run->duration_ns == std::optional<int64_t>(1000000000));
  CHECK_FALSE(run->interval_us);  // rtla does not print its period
}

TEST_CASE("rtla timerlat hist read back as a verdict says what the file does not", "[report]") {
  auto v = ImportFile("rtla", "t.txt", Fixture("rtla-timerlat-hist-u.txt"));
  REQUIRE(v);
  REQUIRE(v->imported);
  CHECK(v->Knows("cpus"));
  CHECK(v->Knows("duration"));
  CHECK_FALSE(v->Knows("interval"));
  CHECK_FALSE(v->Knows("kernel"));
  CHECK_FALSE(v->pass);  // an overflow on each CPU
  const std::string md = RenderMarkdown(*v);
  CHECK_THAT(md, Catch::Contains("Measured CPUs 2-3, interval unknown for 1.0 s"));
  CHECK_THAT(md, Catch::Contains("host unknown (kernel unknown)"));
  CHECK_THAT(md, Catch::Contains("| Memory locked | unknown |"));
  CHECK_THAT(md, Catch::Contains("| Virtual machine | unknown |"));
}

TEST_CASE("rtla timerlat hist errors name the line and what was expected", "[report]") {
  const std::string good = Fixture("rtla-timerlat-hist-u.txt");
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  for (const auto& [name, text, says] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"a row with a missing count", replace("9              0         4         6         0         2         3",
                                                   "9              0         4         6         0         2"),
            "line 10: bucket 9 has 5 counts for 6 columns"},
           {"a word in a row", replace("17             0", "17             x"), "line 11: not a count: \"x\""},
           {"a footer row with a missing value", replace("over:          0         0         1         0         0         1",
                                                         "over:          0         0         1         0         0"),
            "line 12: \"over:\" has 5 values for 6 columns"},
           {"no unit line", replace("# Time unit is microseconds (us)\n", ""), "no \"# Time unit is microseconds (us)\" line"},
           {"a bad duration", replace("0 00:00:01", "one second"), "line 3: unreadable duration"},
           {"a bad column", replace("IRQ-002", "IRQ002"), "line 4: column \"IRQ002\" is not KIND-CPU"},
           {"no header", "hello\n", "no \"Index IRQ-000 Thr-000 ...\" header line"},
           {"no max line", replace("max:", "top:"), "no \"max:\" line after the buckets"},
           {"2 µs buckets", "# Time unit is microseconds (us)\nIndex Thr-000\n0 5\n2 3\n4 1\nover: 0\ncount: 9\nmin: 0\navg: 1\nmax: 4\n",
            "the buckets step by 2 µs (rtla -b 2)"},
           {"a bucket past any histogram, in ns",
            "# Time unit is nanoseconds (ns)\nIndex Thr-000\n0 5\n10000000000 1\nover: 0\ncount: 6\nmin: 0\navg: 1\nmax: 4\n",
            "line 4: bucket 10000000000 ns is past any histogram"},
           {"a maximum beyond any latency", replace("max:           2        17        41", "max:           2        17        1000000000001"),
            "Usr-2: min, avg or max 1000000000001 is beyond any latency"},
           {"counts past any run", "# Time unit is microseconds (us)\nIndex Thr-000\n0 18446744073709551615\n1 1\nover: 0\n"
                                   "count: 0\nmin: 0\navg: 1\nmax: 1\n",
            "Thr-0: more wake-ups than any run"},
           {"a mean that overflows the sum", "# Time unit is microseconds (us)\nIndex Thr-000\n0 1\n1 999999999999999\nover: 0\n"
                                             "count: 0\nmin: 0\navg: 999999999999\nmax: 1\n",
            "Thr-0: 1000000000000000 wake-ups of mean 999999999999 overflow the sum"},
       }) {
    INFO(name);
    auto r = ImportFile("rtla", "t.txt", text);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::StartsWith("t.txt: ") && Catch::Contains(says) &&
                                      Catch::Contains("expected the output of rtla timerlat hist"));
  }
}

TEST_CASE("an import's unknown facts are null in JSON, unknown in text and absent from JUnit", "[report]") {
  auto v = ImportFile("rtla", "t.txt", Fixture("rtla-timerlat-hist-u.txt"));
  REQUIRE(v);
  const std::string text = RenderJson(*v);
  auto j = nlohmann::json::parse(text);
  CHECK(j["config"]["memory_locked"].is_null());
  CHECK(j["config"]["interval_us"].is_null());
  CHECK(j["config"]["policy"].is_null());
  CHECK(j["host"]["virtual_machine"].is_null());
  CHECK(j["host"]["preempt_rt"].is_null());
  CHECK(j["imported"]["tool"] == "rtla timerlat hist");
  CHECK(j["config"]["duration_actual_ns"] == 1000000000);  // stated: kept
  // It reads back the same, unknowns included.
  auto back = ParseVerdictJson(text);
  REQUIRE(back);
  REQUIRE(back->imported);
  CHECK(back->imported->unknown == v->imported->unknown);
  CHECK(RenderJson(*back) == text);
  const std::string junit = RenderJUnit(*v);
  CHECK_THAT(junit, !Catch::Contains("name=\"virtual_machine\"") && !Catch::Contains("name=\"interval_us\"") && !Catch::Contains("name=\"preempt_rt\""));
  CHECK_THAT(junit, Catch::Contains("<property name=\"imported_from\" value=\"rtla timerlat hist t.txt\"/>"));
  CHECK_THAT(junit, Catch::Contains("<property name=\"cpus\" value=\"2-3\"/>"));
}

TEST_CASE("a real cyclictest --json file: CPUs, overflows, host, kernel and the command line", "[report]") {
  // cyclictest -m -p 80 -i 1000 -l 3000 -t 2 -a 0-1 -h 20 -q --json=FILE on this VM (rt-tests 2.4).
  auto run = ParseCyclictestJson(Fixture("cyclictest-h20.json"));
  REQUIRE(run);
  CHECK(run->cpus == std::vector<int>{0, 1});
  REQUIRE(run->threads.size() == 2);
  CHECK(run->threads[0].samples() == 3000);
  CHECK(run->threads[0].overflows() == 1768);  // cycles minus what the 20 µs histogram holds
  CHECK(run->threads[0].max_ns() == 35572000);
  CHECK(run->threads[0].first_overflows().empty());  // the JSON has no sample numbers
  CHECK(run->interval_us == std::optional<int64_t>(1000));
  CHECK(run->priority == std::optional<int>(80));
  CHECK(run->policy == std::optional<std::string>("SCHED_FIFO"));
  CHECK(run->memory_locked == std::optional<bool>(true));
  CHECK(run->duration_ns == std::optional<int64_t>(3000000000));
  CHECK(run->hostname == std::optional<std::string>("vm"));
  CHECK(run->kernel_release == std::optional<std::string>("6.18.44-fc-v1045"));
  auto v = ImportFile("cyclictest", "ct.json", Fixture("cyclictest-h20.json"));
  REQUIRE(v);
  CHECK(v->Knows("cpus"));
  CHECK(v->Knows("memory_locked"));
  CHECK_FALSE(v->Knows("pm_qos"));  // the JSON does not say whether it held a note
  CHECK_FALSE(v->Knows("virtual_machine"));
  // How long it ran is stated (start and end time); what was asked (-l 3000 loops) is not.
  CHECK_THAT(RenderMarkdown(*v), Catch::Contains("Measured CPUs 0-1 every 1000 µs for 3.0 s, SCHED_FIFO priority 80, on vm "
                                                 "(6.18.44-fc-v1045, not PREEMPT_RT)"));
  CHECK_THAT(RenderMarkdown(*v), !Catch::Contains("asked 3.0 s"));
}

// Real files of Debian 12's rtla (6.1.192), recorded on the PREEMPT_RT kernel in the QEMU guest
// by tests/qemu/scenarios/rt-rtla.sh: the emulator's wake-ups run to milliseconds, so the
// default 256 µs histogram overflows (a case the documented sample above barely has).
TEST_CASE("a real rtla 6.1 timerlat hist: Thr columns (no Usr in 6.1), its overflows and its count", "[report]") {
  // rtla timerlat hist -c 2-3 -d 5s
  auto run = ParseRtlaTimerlatHist(Fixture("rtla-6.1-timerlat-hist-qemu.txt"));
  REQUIRE(run);
  CHECK(run->cpus == std::vector<int>{2, 3});
  REQUIRE(run->threads.size() == 2);
  const Histogram& h = run->threads[0];
  CHECK(h.samples() == 2685);  // rtla's count: the buckets and "over:" together
  CHECK(h.overflows() == 663);
  CHECK(h.max_ns() == 155272000);
  CHECK(h.min_ns() == 34000);
  CHECK(h.limit_us() == 256);
  CHECK(h.first_overflows().empty());  // rtla prints no sample numbers
  CHECK(run->threads[1].samples() == 2628);
  CHECK(run->duration_ns == std::optional<int64_t>(5000000000));
  for (const std::string& note : run->notes) CHECK_THAT(note, !Catch::Contains("count says"));  // count agrees
}

TEST_CASE("a real rtla 6.1 file read back says unknown for what rtla does not print, never 0 or a sentence cut short", "[report]") {
  auto v = ImportFile("rtla", "rtla.txt", Fixture("rtla-6.1-timerlat-hist-qemu.txt"));
  REQUIRE(v);
  CHECK_FALSE(v->Knows("skipped_periods"));
  const std::string md = RenderMarkdown(*v);
  // rtla counts no skipped periods: unknown, not 0 (both CPUs' rows end so).
  CHECK_THAT(md, Catch::Contains("| 155272.0 | 663 | unknown |"));
  // No sample numbers in the file: said, not "first at sample and 663 more".
  CHECK_THAT(md, Catch::Contains("CPU 2: 663 at or past 256 µs, the latest 155272.0 µs. At which samples: unknown."));
  CHECK_THAT(md, !Catch::Contains("first at sample"));
  CHECK_THAT(md, Catch::Contains("for 5.0 s, scheduling unknown") && !Catch::Contains("asked 5.0 s"));
  CHECK_THAT(md, Catch::Contains("| Duration | 5.0 s (what was asked: unknown) |"));
  const std::string html = RenderHtml(*v);
  CHECK_THAT(html, !Catch::Contains("asked 5.0 s"));
  const std::string text = RenderJson(*v);
  auto j = nlohmann::json::parse(text);
  CHECK(j["cpus"][0]["stats"]["skipped_periods"].is_null());
  CHECK(j["cpus"][0]["histogram"]["skipped_periods"].is_null());
  CHECK(j["host"]["preempt_rt"].is_null());
  auto back = ParseVerdictJson(text);
  REQUIRE(back);
  CHECK(RenderJson(*back) == text);
  // A run of rtagent's own still counts them (0 is a measured 0 there).
  auto own = nlohmann::json::parse(RenderJson(rtagent::testing::ExampleVerdict()));
  CHECK(own["cpus"][0]["stats"]["skipped_periods"].is_number());
}

TEST_CASE("a real rtla 6.1 file with wide buckets: the highest printed bucket bounds the histogram", "[report]") {
  // rtla timerlat hist -c 2 -E 40000 -p 10000 -d 5s: rows up to 26566 µs, one sample past 40000.
  auto v = ImportFile("rtla", "rtla.txt", Fixture("rtla-6.1-timerlat-hist-qemu-e40000.txt"));
  REQUIRE(v);
  REQUIRE(v->cpus.size() == 1);
  const Histogram& h = v->cpus[0].histogram;
  CHECK(v->cpus[0].cpu == 2);
  CHECK(h.samples() == 469);
  CHECK(h.overflows() == 1);
  CHECK(h.max_ns() == 41852000);
  CHECK(h.limit_us() == 26567);  // rtla does not print -E: the last printed bucket is all the file says
  CHECK(h.bins()[26566] == 1);
  CHECK_FALSE(v->Knows("interval"));  // -p 10000 is not in the output
}

// Real files of rt-tests 2.4's cyclictest (Debian 12's, copied into the initramfs), recorded on
// Debian's 6.1 PREEMPT_RT kernel in the QEMU guest by tests/qemu/scenarios/rt-cyclictest.sh:
// under TCG the wake-ups run to 100 ms, so most of a 400 µs histogram's overflow.
TEST_CASE("a real cyclictest --json from the RT guest: what the file says is shown", "[report]") {
  // cyclictest -m -p 80 -i 1000 -l 3000 -t 2 -a 2-3 -h 400 -q --json=FILE
  auto run = ParseCyclictestJson(Fixture("cyclictest-rt-qemu-h400.json"));
  REQUIRE(run);
  CHECK(run->cpus == std::vector<int>{2, 3});
  REQUIRE(run->threads.size() == 2);
  const Histogram& h = run->threads[0];
  CHECK(h.samples() == 3000);
  CHECK(h.overflows() == 698);  // 3000 cycles, 2302 in the buckets
  CHECK(h.limit_us() == 400);
  CHECK(h.min_ns() == 40000);
  CHECK(h.max_ns() == 104819000);
  CHECK(h.first_overflows().empty());  // the JSON has no cycle numbers
  CHECK(run->threads[1].overflows() == 651);
  CHECK(run->interval_us == std::optional<int64_t>(1000));
  CHECK(run->priority == std::optional<int>(80));
  CHECK(run->memory_locked == std::optional<bool>(true));
  CHECK(run->duration_ns == std::optional<int64_t>(7000000000));  // 06:52:50 to 06:52:57: TCG's late wake-ups
  CHECK(run->hostname == std::optional<std::string>("rtagent-qemu"));
  CHECK(run->kernel_release == std::optional<std::string>("6.1.0-57-rt-amd64"));

  auto v = ImportFile("cyclictest", "ct.json", Fixture("cyclictest-rt-qemu-h400.json"));
  REQUIRE(v);
  CHECK(v->host.preempt_rt);  // uname -v in the file says PREEMPT_RT
  CHECK_FALSE(v->pass);       // overflows on both CPUs
  const std::string md = RenderMarkdown(*v);
  CHECK_THAT(md, Catch::Contains("Measured CPUs 2-3 every 1000 µs for 7.0 s, SCHED_FIFO priority 80, on rtagent-qemu "
                                 "(6.1.0-57-rt-amd64, PREEMPT_RT)"));
  CHECK_THAT(md, Catch::Contains("| CPU 2 | overflows | ≤ 0 | 698 | **FAIL** | 698 wake-ups at or past 400 µs, the latest 104819.0 µs |"));
  // p50 is in the buckets, p90 among the overflows: said, not made up.
  CHECK_THAT(md, Catch::Contains("| 2 | 3,000 | 40.0 | 1850.3 | 240 | > 400 (beyond limit) |"));
  CHECK_THAT(md, Catch::Contains("CPU 2: 698 at or past 400 µs, the latest 104819.0 µs. At which samples: unknown."));
  CHECK_THAT(md, Catch::Contains("| Memory locked | yes |") && Catch::Contains("| PREEMPT_RT | yes |"));
  CHECK_THAT(md, Catch::Contains("| Duration | 7.0 s (what was asked: unknown) |"));
}

TEST_CASE("a real cyclictest --json from the RT guest: what the file does not say is unknown, never 0, no or true", "[report]") {
  auto v = ImportFile("cyclictest", "ct.json", Fixture("cyclictest-rt-qemu-h400.json"));
  REQUIRE(v);
  for (const char* fact : {"pm_qos", "clock", "virtual_machine", "skipped_periods"}) {
    INFO(fact);
    CHECK_FALSE(v->Knows(fact));
  }
  const std::string md = RenderMarkdown(*v);
  CHECK_THAT(md, Catch::Contains("| PM QoS note in force | unknown |") && Catch::Contains("| Virtual machine | unknown |") &&
                     Catch::Contains("| Clocksource | unknown |"));
  const std::string text = RenderJson(*v);
  auto j = nlohmann::json::parse(text);
  CHECK(j["host"]["preempt_rt"] == true);
  CHECK(j["host"]["virtual_machine"].is_null());
  CHECK(j["host"]["clocksource"].is_null());
  CHECK(j["config"]["pm_qos"].is_null());
  CHECK(j["config"]["duration_actual_ns"] == 7000000000);
  CHECK(j["config"]["duration_asked_ns"].is_null());  // -l 3000 loops, not a duration asked
  CHECK(j["cpus"][0]["stats"]["skipped_periods"].is_null());
  CHECK(j["cpus"][0]["histogram"]["first_overflows"].empty());
  auto back = ParseVerdictJson(text);
  REQUIRE(back);
  CHECK(RenderJson(*back) == text);
  const std::string junit = RenderJUnit(*v);
  CHECK_THAT(junit, !Catch::Contains("name=\"virtual_machine\"") && !Catch::Contains("name=\"pm_qos"));
}

TEST_CASE("cyclictest --json: the histogram's range is -h N from the command line, not the last bucket that counted", "[report]") {
  // cyclictest -m -p 80 -i 10000 -l 300 -t 1 -a 2 -h 40000 -q --json=FILE: the last bucket
  // with a count is 38509 µs; the file names only buckets that counted something.
  const std::string file = Fixture("cyclictest-rt-qemu-h40000.json");
  auto v = ImportFile("cyclictest", "ct.json", file);
  REQUIRE(v);
  REQUIRE(v->cpus.size() == 1);
  const Histogram& h = v->cpus[0].histogram;
  CHECK(h.limit_us() == 40000);
  CHECK(h.overflows() == 3);
  CHECK(h.bins()[38509] == 1);
  CHECK(v->config.histogram_limit_us == 40000);
  const std::string md = RenderMarkdown(*v);
  CHECK_THAT(md, Catch::Contains("3 wake-ups at or past 40000 µs, the latest 50238.0 µs"));
  CHECK_THAT(md, Catch::Contains("| 1492 | 15502 | 38509 | > 40000 (beyond limit) |"));
  // A command line without -h: the last bucket named is all the file says of the range.
  std::string no_h = file;
  no_h.replace(no_h.find(" -h 40000"), 9, "");
  auto w = ImportFile("cyclictest", "ct.json", no_h);
  REQUIRE(w);
  CHECK(w->cpus[0].histogram.limit_us() == 38510);
}

TEST_CASE("cyclictest --json without -h: its empty histogram is refused, not read as every wake-up an overflow", "[report]") {
  // cyclictest without -h still writes "histogram": {} (the RT guest, rt-tests 2.4).
  auto v = ImportFile("cyclictest", "ct.json", Fixture("cyclictest-rt-qemu-noh.json"));
  REQUIRE_FALSE(v);
  CHECK_THAT(v.error().message, Catch::Contains("thread.0.histogram: empty, and the command line has no -h") &&
                                    Catch::Contains("run it with -h"));
  // With -h N on the command line an empty histogram is a run whose every wake-up overflowed.
  std::string text = Fixture("cyclictest-rt-qemu-noh.json");
  text.replace(text.find(" -q "), 4, " -h 20 -q ");
  auto all_over = ImportFile("cyclictest", "ct.json", text);
  REQUIRE(all_over);
  CHECK(all_over->cpus[0].histogram.limit_us() == 20);
  CHECK(all_over->cpus[0].histogram.overflows() == all_over->cpus[0].histogram.samples());
}

TEST_CASE("cyclictest --json: a bad -h and a run within one second are said, not guessed", "[report]") {
  const std::string good = Fixture("cyclictest-rt-qemu-h400.json");
  std::string bad = good;
  bad.replace(bad.find("-h 400"), 6, "-h many");
  auto r = ImportFile("cyclictest", "ct.json", bad);
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error().message, Catch::Contains("cmdline:: -h many is not a histogram size in µs"));
  // Start and end in the same second: under a second, not 0 s.
  std::string same = good;
  same.replace(same.find("06:52:57"), 8, "06:52:50");
  auto v = ImportFile("cyclictest", "ct.json", same);
  REQUIRE(v);
  CHECK_FALSE(v->Knows("duration"));
  CHECK_THAT(RenderMarkdown(*v), !Catch::Contains("for 0 ms") && !Catch::Contains("0.0 s"));
}

TEST_CASE("a real cyclictest -h report from the RT guest keeps the 400 cycle numbers it lists", "[report]") {
  // The -h 400 run's text on stdout: 400 overflow cycle numbers per thread, then "# 00298 others".
  auto v = ImportFile("cyclictest", "ct.txt", Fixture("cyclictest-rt-qemu-h400.txt"));
  REQUIRE(v);
  REQUIRE(v->cpus.size() == 2);
  const Histogram& h = v->cpus[0].histogram;
  CHECK(h.overflows() == 698);
  CHECK(h.max_ns() == 104819000);
  REQUIRE(h.first_overflows().size() == 400);
  CHECK(h.first_overflows()[3].sample_index == 7);
  CHECK_THAT(RenderMarkdown(*v), Catch::Contains("and 298 more."));
}

TEST_CASE("cyclictest --json errors name the line or the key and what was expected", "[report]") {
  const std::string good = Fixture("cyclictest-h20.json");
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  for (const auto& [name, text, says] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"broken JSON", replace("\"cycles\": 3000,", "\"cycles\": 3000"), "line 35: not valid JSON"},
           {"no histogram (run without -h)", replace("\"histogram\"", "\"histo\""),
            "thread.0.histogram: missing (cyclictest writes it with -h N only: run it with -h)"},
           {"cycles not a number", replace("\"cycles\": 3000", "\"cycles\": \"many\""), "thread.0.cycles: missing or not a number"},
           {"fewer cycles than histogram", replace("\"cycles\": 3000", "\"cycles\": 5"), "thread.0.cycles: 5 is fewer than the histogram's 1232"},
           {"a bad interval", replace("-i 1000", "-i often"), "cmdline:: -i often is not an interval in µs"},
           {"no threads", "{\"thread\": {}}", "\"thread\" is empty"},
           {"not cyclictest's", "{\"schema\": 1}", "no \"thread\" object"},
           // Numbers a fuzzer would try: a float or a huge max was cast or multiplied past int64_t.
           {"a max past 10^12 µs", replace("\"max\": 35572", "\"max\": 35572000000000000"),
            "thread.0.max: 35572000000000000 is no latency in whole µs (at most 10^12)"},
           {"a float min", replace("\"min\": 8,", "\"min\": 1e300,"), "thread.0.min: 1e+300 is no latency in whole µs"},
           {"an avg past any total", replace("\"avg\": 87.36", "\"avg\": 1e300"),
            "thread.0.avg: 1e+300 µs over 3000 wake-ups is past any run's total"},
           {"a bucket past the largest histogram", replace("\"histogram\": {", "\"histogram\": {\"10000000\": 1, "),
            "thread.0.histogram.10000000: not a bucket in µs with a count"},
       }) {
    INFO(name);
    auto r = ImportFile("cyclictest", "ct.json", text);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::StartsWith("ct.json: ") && Catch::Contains(says) &&
                                      Catch::Contains("expected a file written by cyclictest --json=FILE"));
  }
}

TEST_CASE("a real cyclictest -h report keeps its overflow cycle numbers and leaves the rest unknown", "[report]") {
  // The same command's -h text (stdout), rt-tests 2.4.
  auto v = ImportFile("cyclictest", "ct.txt", Fixture("cyclictest-h20-q.txt"));
  REQUIRE(v);
  REQUIRE(v->cpus.size() == 2);
  const Histogram& h = v->cpus[0].histogram;
  CHECK(h.overflows() == 1768);
  REQUIRE(h.first_overflows().size() == 20);
  CHECK(h.first_overflows()[5].sample_index == 6);
  CHECK(h.first_overflows()[5].latency_ns == -1);  // not in the file
  const std::string md = RenderMarkdown(*v);
  CHECK_THAT(md, Catch::Contains("Measured threads 0-1 (the CPU each ran on unknown), interval unknown, duration unknown, "
                                 "scheduling unknown, host unknown (kernel unknown)."));
  CHECK_THAT(md, Catch::Contains("first at sample 0, 1, 2, 3, 4, 6, 7, 8, 10, 18"));
  CHECK_THAT(md, Catch::Contains("and 1,748 more"));
  CHECK_THAT(md, !Catch::Contains("every 0 µs") && !Catch::Contains("not PREEMPT_RT"));
  auto j = nlohmann::json::parse(RenderJson(*v));
  CHECK(j["config"]["memory_locked"].is_null());
  CHECK(j["cpus"][0]["histogram"]["first_overflows"][0]["latency_ns"].is_null());
  CHECK(j["cpus"][0]["histogram"]["first_overflows"][1]["sample"] == 1);
  CHECK(j["config"]["pm_qos"]["value_us"] == 0);  // "# /dev/cpu_dma_latency set to 0us": stated
  CHECK_THAT(RenderJUnit(*v), !Catch::Contains("name=\"virtual_machine\""));
  CHECK(v->warnings.front().code == "imported");
}

TEST_CASE("cyclictest -h errors name the line", "[report]") {
  std::string text = Fixture("cyclictest-h20-q.txt");
  text.replace(text.find("# Thread 1: 00000"), 17, "# Thread 1: 0000x");
  auto r = ImportFile("cyclictest", "ct.txt", text);
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error().message, Catch::StartsWith("ct.txt: line 30: not a cycle number: \"0000x\"") &&
                                    Catch::Contains("expected the output of cyclictest -h N"));
  text = Fixture("cyclictest-h20-q.txt");
  text.replace(text.find("# Thread 0: 00000"), 17, "# Thread x: 00000");
  CHECK_THAT(ImportFile("cyclictest", "ct.txt", text).error().message, Catch::Contains("line 29: not a thread number"));
  CHECK_THAT(ImportFile("rtevel", "x.xml", "<x/>").error().message, Catch::Contains("unknown import format \"rtevel\" (cyclictest, rtla, rteval)"));
}

TEST_CASE("cyclictest -h footer errors name the footer line and the thread", "[report]") {
  const std::string good = Fixture("cyclictest-h20-q.txt");
  auto replace = [](std::string t, const std::string& from, const std::string& to) {
    REQUIRE(t.find(from) != std::string::npos);
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  for (const auto& [name, text, says] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"one overflow count for two threads", replace(good, "# Histogram Overflows: 01768 00886", "# Histogram Overflows: 01768"),
            "cyclictest report footer does not list every thread"},
           {"a mean that overflows the sum",  // 1232 in bins + 9999 overflows at 10^12 µs each: past 9e18 ns
            replace(replace(good, "# Avg Latencies: 00087", "# Avg Latencies: 999999999999"), "Overflows: 01768", "Overflows: 09999"),
            "\"# Avg Latencies:\" thread 0: 11231 samples of mean 999999999999 µs overflow the sum: not a cyclictest report"},
           {"more overflow cycles than overflows", replace(good, "# Histogram Overflows: 01768", "# Histogram Overflows: 00010"),
            "\"# Thread 0:\" lists 20 overflow cycles, more than its 10 overflows"},
       }) {
    INFO(name);
    auto r = ImportFile("cyclictest", "ct.txt", text);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::StartsWith("ct.txt: ") && Catch::Contains(says) &&
                                      Catch::Contains("expected the output of cyclictest -h N"));
  }
}

TEST_CASE("fuzz import: a cyclictest -h bin past the largest histogram is refused with its line", "[report]") {
  // fuzz/import_fuzz.cc: a row for bin 10000000 made a histogram of 10,000,001 µs, one more
  // than a verdict reader takes, so the imported verdict's JSON did not read back.
  std::string text = Fixture("cyclictest-h20-q.txt");
  const size_t at = text.find("# Min Latencies");
  REQUIRE(at != std::string::npos);
  std::string past = text;
  past.insert(at, "10000000 0 0\n");
  auto v = ImportFile("cyclictest", "c.txt", past);
  REQUIRE_FALSE(v);
  CHECK_THAT(v.error().message, Catch::Contains("bin 10000000 µs is past any histogram (at most 9999999)"));
  CHECK(ImportFile("cyclictest", "c.txt", text));  // the file as cyclictest wrote it still reads
}

TEST_CASE("fuzz import: an rtla bucket past the largest histogram is refused with its line, not written past the bins", "[report]") {
  // fuzz/import_fuzz.cc (CI's run of b95aca8): a row for bucket 13999999999999859 µs made a
  // limit that wrapped around 32 bits, and the histogram was filled past its bins (SEGV).
  auto crash = FsRoot(RTAGENT_SOURCE_DIR).Read("fuzz/regressions/import/rtla-bucket-past-32-bits");
  REQUIRE(crash);
  auto v = ImportFile("rtla", "r.txt", *crash);
  REQUIRE_FALSE(v);
  CHECK_THAT(v.error().message, Catch::Contains("line 175: bucket 13999999999999859 µs is past any histogram (at most 9999999 µs)"));
  // The fuzzer made it from tests/imports/rtla-6.1-timerlat-hist-qemu-e40000.txt: without that
  // row it reads.
  std::string text = *crash;
  text.erase(text.find("13999999999999859"), text.find('\n', text.find("13999999999999859")) - text.find("13999999999999859") + 1);
  CHECK(ImportFile("rtla", "r.txt", text));
}

TEST_CASE("an import whose histograms would pass 2^25 bins in all is refused before they are made", "[report]") {
  // Four CPUs or threads at a 10 s histogram (rteval: CPUs 2, 4, 5, then 3, the fourth): 40 million bins, 320 MB of counts, from a file of
  // a few lines (40 columns of rtla output made 3.2 GB and 21 s of `report`). Each format, with
  // the error naming the thread or CPU that would pass the bound.
  std::string rtla = "# Time unit is microseconds (us)\nIndex Thr-0 Thr-1 Thr-2 Thr-3\n1 1 1 1 1\n9999999 1 1 1 1\n"
         "over: 0 0 0 0\ncount: 2 2 2 2\nmin: 1 1 1 1\navg: 5 5 5 5\nmax: 9999999 9999999 9999999 9999999\n";
  std::string ct = "# Histogram\n000001 1 1 1 1\n9999999 1 1 1 1\n# Total: 2 2 2 2\n# Min Latencies: 1 1 1 1\n"
                   "# Avg Latencies: 5 5 5 5\n# Max Latencies: 9999999 9999999 9999999 9999999\n"
                   "# Histogram Overflows: 0 0 0 0\n";
  auto json = nlohmann::json::parse(Fixture("cyclictest-h20.json"));
  std::string cmdline = json["cmdline:"];
  cmdline.replace(cmdline.find("-h 20"), 5, "-h 10000000");
  json["cmdline:"] = cmdline;
  json["thread"]["2"] = json["thread"]["0"];
  json["thread"]["3"] = json["thread"]["1"];
  std::string rteval = Fixture("rteval-3-cyclictest.xml");
  rteval.replace(rteval.find("-h 3500"), 7, "-h 10000000");
  const size_t core = rteval.find("      <core id=\"2\"");
  const size_t core_end = rteval.find("</core>", core) + std::string("</core>\n").size();
  std::string copies = rteval.substr(core, core_end - core);
  std::string more = copies;
  for (const char* id : {"4", "5"}) {
    std::string c = copies;
    c.replace(c.find("id=\"2\""), 6, std::string("id=\"") + id + "\"");
    more += c;
  }
  rteval.replace(core, core_end - core, more);
  for (const auto& [format, text, says] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"rtla", rtla, "Thr-3: a histogram of 10000000 µs would bring this file's histograms to 40000000 bins in all"},
           {"cyclictest", ct, "thread 3: a histogram of 10000000 µs would bring this file's histograms to 40000000 bins in all"},
           {"cyclictest", json.dump(), "thread.3: a histogram of 10000000 µs would bring this file's histograms to 40000000 bins"},
           {"rteval", rteval, "CPU 3: a histogram of 10000000 µs would bring this file's histograms to 40000000 bins"},
       }) {
    INFO(format << ": " << says);
    auto v = ImportFile(format, "big", text);
    REQUIRE_FALSE(v);
    CHECK_THAT(v.error().message, Catch::Contains(says) && Catch::Contains("more than an import holds (33554432"));
  }
  // Three of them fit (30 million bins): the bound is on the sum, not on one histogram.
  rtla = "# Time unit is microseconds (us)\nIndex Thr-0 Thr-1 Thr-2\n1 1 1 1\n9999999 1 1 1\n"
         "over: 0 0 0\ncount: 2 2 2\nmin: 1 1 1\navg: 5 5 5\nmax: 9999999 9999999 9999999\n";
  CHECK(ImportFile("rtla", "big", rtla));
}

TEST_CASE("fuzz import: a footer latency too large for nanoseconds is refused, not multiplied", "[report]") {
  // fuzz/import_fuzz.cc under UBSan: "# Max Latencies: 34924444444444444" times 1000 overflowed
  // a signed 64-bit integer in ParseCyclictestHistogram.
  std::string text = Fixture("cyclictest-h20-q.txt");
  const size_t at = text.find("# Max Latencies: 35572 34925");
  REQUIRE(at != std::string::npos);
  std::string huge = text;
  huge.replace(at, 28, "# Max Latencies: 35572 34924444444444444");
  auto v = ImportFile("cyclictest", "c.txt", huge);
  REQUIRE_FALSE(v);
  CHECK_THAT(v.error().message, Catch::Contains("\"# Max Latencies:\" holds 34924444444444444 µs, beyond any latency"));
  CHECK(ImportFile("cyclictest", "c.txt", text));  // the file as cyclictest wrote it still reads
}

TEST_CASE("fuzz import: cyclictest --json times a millennium apart leave the duration unknown, not overflowed", "[report]") {
  // fuzz/import_fuzz.cc under UBSan: start_time in 1013 and end_time in 2026 made a span in
  // seconds whose nanoseconds overflow a signed 64-bit integer.
  std::string text = Fixture("cyclictest-h20.json");
  text.replace(text.find("Tue, 01 Dec 2026 21:14:27"), 25, "Thu, 03 Dec 1013 07:04:35");
  auto v = ImportFile("cyclictest", "c.json", text);
  REQUIRE(v);
  CHECK_FALSE(v->Knows("duration"));
}

TEST_CASE("fuzz import: a JSON number too large for any type is an error, not an exception", "[report]") {
  // fuzz/import_fuzz.cc: nlohmann's second parse, made for the error's line, threw
  // out_of_range (not parse_error) on "6e00001000004", out of the import.
  auto v = ImportFile("cyclictest", "c.json", "{\"thread\": {\"0\": {\"max\": 6e00001000004}}}");
  REQUIRE_FALSE(v);
  CHECK_THAT(v.error().message, Catch::Contains("not valid JSON") && Catch::Contains("number overflow"));
}

// rteval's summary.xml: the fixtures are written from rteval's writer code (tests/imports/README.md),
// one per layout: 3.x (SystemInfo, Measurements, -a CPU list, timestamps), 2.x (--smp, no
// timestamps), 1.x (uname and cyclictest at the root, every bucket listed, a CPU without samples).
TEST_CASE("rteval 3.x summary.xml: each core's histogram, the host, the command line and the loop's duration", "[report]") {
  auto run = ParseRtevalSummary(Fixture("rteval-3-cyclictest.xml"));
  REQUIRE(run);
  CHECK(run->tool == "rteval 3.9");
  CHECK(run->cpus == std::vector<int>{2, 3});  // <core id=...>, not the <system> summary of both
  REQUIRE(run->threads.size() == 2);
  const Histogram& h = run->threads[0];
  CHECK(h.samples() == 1000);
  CHECK(h.bins()[4] == 560);
  CHECK(h.max_ns() == 31000);
  CHECK(h.min_ns() == 3000);
  CHECK(h.limit_us() == 3500);  // -h 3500, not the last bucket that counted
  CHECK(h.overflows() == 0);
  CHECK(run->interval_us == std::optional<int64_t>(100));
  CHECK(run->priority == std::optional<int>(95));
  CHECK(run->policy == std::optional<std::string>("SCHED_FIFO"));
  CHECK(run->memory_locked == std::optional<bool>(true));  // -qmu
  CHECK(run->hostname == std::optional<std::string>("rt-bench-01"));
  CHECK(run->kernel_release == std::optional<std::string>("6.1.0-28-rt-amd64"));
  CHECK(run->preempt_rt == std::optional<bool>(true));  // is_RT="1"
  CHECK(run->duration_ns == std::optional<int64_t>(600011777000));  // runloop_start to runloop_stop
  CHECK_FALSE(run->overflows_counted);
}

TEST_CASE("rteval summary.xml read back: what the file says is shown, the rest unknown, overflows never 0", "[report]") {
  auto v = ImportFile("rteval", "summary.xml", Fixture("rteval-3-cyclictest.xml"));
  REQUIRE(v);
  for (const char* fact : {"cpus", "interval", "duration", "scheduling", "memory_locked", "host", "kernel"}) CHECK(v->Knows(fact));
  for (const char* fact : {"pm_qos", "clock", "virtual_machine", "skipped_periods", "overflows"}) CHECK_FALSE(v->Knows(fact));
  CHECK(v->host.preempt_rt);
  const std::string md = RenderMarkdown(*v);
  CHECK_THAT(md, Catch::Contains("Measured CPUs 2-3 every 100 µs for 10 min") && Catch::Contains("SCHED_FIFO priority 95, on rt-bench-01 (6.1.0-28-rt-amd64, PREEMPT_RT)"));
  CHECK_THAT(md, Catch::Contains("machine (rteval's DMI record): QEMU Standard PC (Q35 + ICH9, 2009); whether it is a virtual machine the file does not say"));
  CHECK_THAT(md, Catch::Contains("clocksource (rteval's record): tsc"));
  // The overflows criterion is not a pass: the file cannot show there were none.
  bool seen = false;
  for (const Criterion& k : v->criteria) {
    if (k.name != "overflows") continue;
    seen = true;
    CHECK_FALSE(k.pass);
    CHECK_FALSE(k.measured);
    CHECK(k.measured_text == "unknown");
    CHECK_THAT(k.evidence, Catch::Contains("does not count the wake-ups past its histogram (3500 µs)"));
  }
  CHECK(seen);
  CHECK_FALSE(v->pass);
  const std::string text = RenderJson(*v);
  auto j = nlohmann::json::parse(text);
  CHECK(j["cpus"][0]["stats"]["overflows"].is_null());
  CHECK(j["cpus"][0]["histogram"]["overflows"].is_null());
  CHECK(j["host"]["virtual_machine"].is_null());
  CHECK(j["host"]["hostname"] == "rt-bench-01");
  CHECK(j["host"]["preempt_rt"] == true);
  CHECK(j["config"]["pm_qos"].is_null());
  auto back = ParseVerdictJson(text);
  REQUIRE(back);
  CHECK(RenderJson(*back) == text);
  CHECK_THAT(RenderJUnit(*v), !Catch::Contains("name=\"virtual_machine\""));
}

TEST_CASE("rteval 2.x summary.xml: --smp cores, run_info's duration, and is_RT=\"0\" said with its caveat", "[report]") {
  auto v = ImportFile("rteval", "s2.xml", Fixture("rteval-2-cyclictest.xml"));
  REQUIRE(v);
  REQUIRE(v->cpus.size() == 2);
  CHECK(v->cpus[0].cpu == 0);
  CHECK(v->cpus[1].stats.samples == 1000);
  CHECK(v->cpus[1].histogram.max_ns() == 18000);
  CHECK(v->config.histogram_limit_us == 2000);
  CHECK(v->config.duration_actual_ns == 3612000000000);  // no timestamps: run_info 1 h 0 min 12 s
  CHECK(v->imported->tool == "rteval 2.14");
  CHECK_FALSE(v->host.preempt_rt);  // what the file says, with the note below
  CHECK_THAT(RenderMarkdown(*v), Catch::Contains("is_RT=\"0\": rteval looks for \"RT \" in uname -v"));
}

TEST_CASE("rteval 1.x summary.xml: root-level sections, empty buckets, and a CPU without samples", "[report]") {
  auto run = ParseRtevalSummary(Fixture("rteval-1-cyclictest.xml"));
  REQUIRE(run);
  CHECK(run->cpus == std::vector<int>{0, 1});
  REQUIRE(run->threads.size() == 2);
  CHECK(run->threads[0].samples() == 500);
  CHECK(run->threads[0].max_ns() == 9000);
  CHECK(run->threads[1].samples() == 0);
  CHECK(run->threads[1].min_ns() == 0);  // not the 100000000 rteval 1.x writes for no samples
  CHECK(run->interval_us == std::optional<int64_t>(100));  // "-i 100" in a <command_line> element
  CHECK(run->threads[0].limit_us() == 2000);
  CHECK(run->hostname == std::optional<std::string>("mrg-test"));
  CHECK(run->preempt_rt == std::optional<bool>(true));
  CHECK(run->duration_ns == std::optional<int64_t>(1801000000000));
  CHECK_THAT(JoinSome(run->notes, 20), Catch::Contains("clocksource (rteval's record): tsc"));
}

TEST_CASE("rteval: a worst past the histogram is at least one overflow, a break trace is said", "[report]") {
  auto v = ImportFile("rteval", "o.xml", Fixture("rteval-3-overflow.xml"));
  REQUIRE(v);
  const Criterion* over3 = nullptr;
  for (const Criterion& k : v->criteria) {
    if (k.name == "overflows" && k.cpu == 3) over3 = &k;
  }
  REQUIRE(over3);
  CHECK(over3->measured_text == "at least 1");
  CHECK_THAT(over3->evidence, Catch::Contains("the worst, 40.0 µs, is past the histogram's 40 µs"));
  CHECK(v->FindCpu(3)->stats.samples == 1000);  // the file's count: no wake-up invented
  auto b = ImportFile("rteval", "b.xml", Fixture("rteval-3-breaktrace.xml"));
  REQUIRE(b);
  CHECK_THAT(RenderMarkdown(*b), Catch::Contains("stopped early (breaktrace): a wake-up of 163 µs passed the break threshold of 150 µs"));
}

TEST_CASE("rteval summary.xml errors name the file, the line and the element, with a hint", "[report]") {
  auto err = [](const std::string& text) {
    auto r = ImportFile("rteval", "summary.xml", text);
    REQUIRE_FALSE(r);
    return r.error().message;
  };
  CHECK_THAT(err("T: 0 ( 1234) P:80\n"), Catch::StartsWith("summary.xml: line 1: not XML") &&
                                              Catch::Contains("expected the summary.xml of an rteval run"));
  CHECK_THAT(err("<rteval>\n  <run_info>\n</rteval>\n"), Catch::StartsWith("summary.xml: line 3: not XML (Start-end tags mismatch)"));
  CHECK_THAT(err("<?xml version=\"1.0\"?>\n<testsuites/>\n"),
             Catch::StartsWith("summary.xml: line 2, <testsuites>: the root element is not <rteval>: not an rteval summary"));
  std::string text = Fixture("rteval-3-cyclictest.xml");
  const size_t core = text.find("<core id=\"3\"");
  text.erase(text.find("<statistics>", core), text.find("</histogram>", core) + 12 - text.find("<statistics>", core));
  CHECK_THAT(err(text), Catch::StartsWith("summary.xml: line 83, <core> of CPU 3: no <statistics>") &&
                            Catch::Contains("the file may be cut short"));
  text = Fixture("rteval-3-cyclictest.xml");
  text.replace(text.find("<maximum unit=\"us\">22</maximum>"), 31, "<maximum unit=\"us\">2x2</maximum>");
  CHECK_THAT(err(text), Catch::StartsWith("summary.xml: line 87, <maximum> of CPU 3: \"2x2\" is not a number"));
  text = Fixture("rteval-3-cyclictest.xml");
  text.replace(text.find("<bucket index=\"4\" value=\"560\"/>"), 31, "<bucket index=\"4\" value=\"-560\"/>");
  CHECK_THAT(err(text), Catch::Contains("<bucket> of CPU 2: value=\"-560\" is not a count"));
  text = Fixture("rteval-3-cyclictest.xml");
  text.replace(text.find("<samples>1000</samples>", text.find("<core id=\"2\"")), 23, "<samples>1001</samples>");
  CHECK_THAT(err(text), Catch::Contains("<samples> of CPU 2: 1001 samples, but its <histogram> buckets add up to 1000"));
  text = Fixture("rteval-3-cyclictest.xml");
  text.replace(text.find("cyclictest -i100 "), 17, "cyclictest -ioften ");
  CHECK_THAT(err(text), Catch::StartsWith("summary.xml: line 33, <cyclictest>: -i often is not an interval in µs") &&
                            Catch::Contains("the cyclictest command line rteval recorded"));
  CHECK_THAT(err(Fixture("rteval-3-no-statistics.xml")),
             Catch::Contains("<cyclictest>: no <core> statistics") && Catch::Contains("larger --cyclictest-buckets"));
  CHECK_THAT(err(Fixture("rteval-3-timerlat.xml")),
             Catch::Contains("<timerlat>: rteval's timerlat results are not read") && Catch::Contains("--from-rtla"));
}

TEST_CASE("rteval: a run_info time that is not a whole number leaves the duration unknown, not 0", "[report]") {
  std::string text = Fixture("rteval-2-cyclictest.xml");  // no timestamps: run_info is all there is
  text.replace(text.find("hours=\"1\""), 9, "hours=\"1.5\"");
  auto v = ImportFile("rteval", "s2.xml", text);
  REQUIRE(v);
  CHECK_FALSE(v->Knows("duration"));
  CHECK_THAT(RenderMarkdown(*v), Catch::Contains("duration unknown") && Catch::Contains("run_info hours=\"1.5\" is not a whole number"));
  text = Fixture("rteval-2-cyclictest.xml");
  text.replace(text.find("<samples>1000</samples>"), 23, "<samples>99999999999999999999</samples>");
  CHECK_THAT(ImportFile("rteval", "s2.xml", text).error().message, Catch::Contains("\"99999999999999999999\" is not a count"));
}

TEST_CASE("the diff gate takes an rteval import as its baseline and names a slower CPU", "[report]") {
  auto baseline = ImportFile("rteval", "summary.xml", Fixture("rteval-3-cyclictest.xml"));
  REQUIRE(baseline);
  // rtagent's run on the same CPUs: CPU 2 as quiet as rteval saw it, CPU 3's worst 60 µs (rteval: 22).
  Verdict now = rtagent::testing::ExampleVerdict();
  Histogram quiet(3500, 4), slow(3500, 4);
  rtagent::testing::Fill(quiet, 4000, 990);
  rtagent::testing::Fill(quiet, 9000, 10);
  rtagent::testing::Fill(slow, 4000, 990);
  rtagent::testing::Fill(slow, 60000, 10);
  now.cpus = {MakeCpuResult(2, std::move(quiet)), MakeCpuResult(3, std::move(slow))};
  const VerdictDiff d = DiffVerdicts(*baseline, now);
  CHECK(d.regression);
  bool cpu2 = false, cpu3 = false;
  for (const RoleDiff& r : d.roles) {
    if (r.role == "CPU 2") cpu2 = !r.regression;
    if (r.role == "CPU 3") cpu3 = r.regression;
  }
  CHECK(cpu2);
  CHECK(cpu3);
  const std::string md = RenderDiffMarkdown(d);
  CHECK_THAT(md, Catch::Contains("CPU 3") && Catch::Contains("overflows not counted in BEFORE"));
  // The same file against itself passes: the gate compares what the file holds.
  CHECK_FALSE(DiffVerdicts(*baseline, *baseline).regression);
}

TEST_CASE("diff against a cyclictest import says skipped periods are not counted there, not 0 -> N", "[report]") {
  auto ct = ImportFile("cyclictest", "ct.json", Fixture("cyclictest-h20.json"));
  REQUIRE(ct);
  REQUIRE_FALSE(ct->Knows("skipped_periods"));
  REQUIRE_FALSE(ct->cpus.empty());
  Verdict now = rtagent::testing::ExampleVerdict();
  Histogram h(100, 4);
  rtagent::testing::Fill(h, 4000, 1000);
  now.cpus = {MakeCpuResult(ct->cpus[0].cpu, std::move(h))};
  now.cpus[0].stats.skipped_periods = 3;
  const std::string md = RenderDiffMarkdown(DiffVerdicts(*ct, now));
  CHECK_THAT(md, Catch::Contains("skipped periods 3 in AFTER, not counted in BEFORE (its file does not count them)"));
  CHECK_THAT(md, !Catch::Contains("skipped periods 0 -> 3"));
  // The other way round, and nothing said when the counted side skipped none.
  CHECK_THAT(RenderDiffMarkdown(DiffVerdicts(now, *ct)), Catch::Contains("skipped periods 3 in BEFORE, not counted in AFTER"));
  now.cpus[0].stats.skipped_periods = 0;
  CHECK_THAT(RenderDiffMarkdown(DiffVerdicts(*ct, now)), !Catch::Contains("skipped periods"));
}

TEST_CASE("LooksLikeImport tells another tool's file from a verdict by its first lines", "[report]") {
  CHECK(LooksLikeImport(Fixture("cyclictest-h20.json")) == "cyclictest");
  CHECK(LooksLikeImport(Fixture("cyclictest-h20-q.txt")) == "cyclictest");
  CHECK(LooksLikeImport(Fixture("cyclictest-rt-qemu-h400.txt")) == "cyclictest");
  CHECK(LooksLikeImport(Fixture("rtla-timerlat-hist-u.txt")) == "rtla");
  CHECK(LooksLikeImport(Fixture("rteval-1-cyclictest.xml")) == "rteval");
  // A verdict, any other JSON or XML, text and nothing are none of them.
  CHECK(LooksLikeImport(RenderJson(rtagent::testing::ExampleVerdict())) == "");
  CHECK(LooksLikeImport("{\"thread\": 1}") == "");
  CHECK(LooksLikeImport("<?xml version=\"1.0\"?>\n<testsuite/>\n") == "");
  CHECK(LooksLikeImport("# a comment\n000001 0\n") == "");
  CHECK(LooksLikeImport("  \n") == "");
  CHECK(LooksLikeImport("") == "");
}

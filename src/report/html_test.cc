// verdict.html: the expected page, its order, its self-containment (nothing a browser would
// fetch, no script) and its escaping. tests/html/ opens the page in headless Chromium.
#include "report/html.h"

#include <catch2/catch.hpp>

#include "base/sysroot.h"
#include "report/test_verdict.h"
#include "trace/attribution.h"
#include "trace/ftrace_text.h"

using namespace rtagent;
using namespace rtagent::testing;

namespace {

// The example verdict with what only the HTML shows: pre-flight statuses and hints, and the
// "why" of the composed trace fixture (a FIFO 98 spinner, IRQ 4 and NET_RX on CPU 2).
Verdict HtmlExample() {
  Verdict v = ExampleVerdict();
  v.preflight[0].status = "PASS";
  v.preflight[1].status = "FAIL";
  v.preflight[1].hint = "interrupts.irq.24: send IRQ 24 to a housekeeping CPU (irqs: in the profile)";
  auto text = FsRoot(RTAGENT_SOURCE_DIR).Read("tests/traces/composed-spin-irq-softirq.txt");
  REQUIRE(text);
  auto trace = ParseFtraceText(*text);
  REQUIRE(trace);
  WhySection w;
  auto wake = ChooseWakeup(*trace, WakeupQuery{CpuSet::Of({2}), 100000}, w.crossed);
  REQUIRE(wake);
  w.status = "explained";
  w.threshold_us = 100;
  w.attribution = Attribute(*trace, *wake);
  w.trace_path = "out/verdict.trace.txt";
  w.trace_format = "ftrace text";
  v.why = w;
  TuningInForce t;
  t.source = "/run/rtagent/journal.json and /var/lib/rtagent/boot-journal.json";
  t.total = 2;
  t.changes = {{"irqs", "IRQ 24 (virtio0-input.0)", "0-3", "0-1"}, {"sysctls", "kernel.timer_migration", "1", "0"}};
  v.tuning = t;
  return v;
}

// Everything in a page that would make a browser load something, or run something.
const char* const kFetchOrRun[] = {"http://", "https://", "//", "<script", "<link", "<img", "<iframe", "<object",
                                   "<embed",  "<video",   "<audio", "src=", "href=", "srcset", "url(", "@import",
                                   "@font-face", "<base", "<meta http-equiv", " on"};

}  // namespace

TEST_CASE("the HTML verdict matches the expected file and fetches nothing", "[report][html]") {
  const Verdict v = HtmlExample();
  const std::string html = RenderHtml(v);
  CheckExpected("verdict.html", html);
  CHECK(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0) == 0);
  CHECK(html.substr(html.size() - 8) == "</html>\n");
  for (const char* bad : kFetchOrRun) {
    INFO("the page holds " << bad);
    // " on" catches event-handler attributes (onload=...) but is also ordinary prose: only
    // inside a tag is it a handler.
    if (std::string(bad) == " on") {
      for (size_t at = html.find('<'); at != std::string::npos; at = html.find('<', at + 1)) {
        const std::string tag = html.substr(at, html.find('>', at) - at);
        CHECK(tag.find(" on") == std::string::npos);
      }
      continue;
    }
    CHECK(html.find(bad) == std::string::npos);
  }
  // The verdict word and each criterion's name, as text.
  CHECK_THAT(html, Catch::Contains(">Verdict: ✗ FAIL</p>"));
  for (const Criterion& k : v.criteria) {
    INFO(k.name);
    CHECK_THAT(html, Catch::Contains("<th scope=\"row\">" + k.name + "</th>"));
  }
}

TEST_CASE("the HTML verdict puts the verdict and its reason first, then the sections in order", "[report][html]") {
  const std::string html = RenderHtml(HtmlExample());
  const char* const order[] = {"<title>rtagent verdict: FAIL — ci-vm</title>",
                               "class=\"verdict fail\"",
                               "<p class=\"reason\">4 of 15 criteria failed: CPU 2 max 1203.0 µs (limit ≤ 100 µs); CPU 2 "
                               "overflows 1 (limit ≤ 0); run preflight interrupts failed (limit passed); run placement "
                               "disk ran on CPU 2 (limit held).</p>",
                               "<strong class=\"tag\">VIRTUAL MACHINE</strong> measured on a virtual machine (KVM)",
                               "Read this first",
                               "<h2>Criteria</h2>",
                               "<svg ",
                               "<h2>Pre-flight checks</h2>",
                               "<h2>Host</h2>",
                               "<h2>The tuning the run measured</h2>",
                               "<h2 id=\"why\">Why the worst wake-up was late</h2>",
                               "<footer>"};
  size_t at = 0;
  for (const char* part : order) {
    INFO(part);
    const size_t found = html.find(part);
    REQUIRE(found != std::string::npos);
    CHECK(found >= at);
    at = found;
  }
  // The VM's own warning is the label, not repeated in the list (the chart repeats it under its
  // title); the others are listed.
  const std::string page = html.substr(0, html.find("<svg ")) + html.substr(html.find("</svg>"));
  CHECK(page.find("measured on a virtual machine (KVM)") == page.rfind("measured on a virtual machine (KVM)"));
  CHECK_THAT(html, Catch::Contains("<li>the sampler held its own PM QoS note (0 µs): C-state exits are hidden</li>"));
}

TEST_CASE("the HTML verdict says pass and fail in words and marks, not colour alone, in tables with header cells",
          "[report][html]") {
  const std::string html = RenderHtml(HtmlExample());
  CHECK_THAT(html, Catch::Contains("<td class=\"result\">✗ FAIL</td>"));
  CHECK_THAT(html, Catch::Contains("<td class=\"result\">✓ pass</td>"));
  CHECK_THAT(html, Catch::Contains("<th scope=\"col\">Result</th>"));
  // Pre-flight: the status word and the hint.
  CHECK_THAT(html, Catch::Contains("<th scope=\"row\">interrupts</th><td class=\"result\">✗ FAIL</td>"));
  CHECK_THAT(html, Catch::Contains("send IRQ 24 to a housekeeping CPU (irqs: in the profile)"));
  CHECK_THAT(html, Catch::Contains("<td class=\"result\">✗ BROKEN</td>"));  // the disk load's placement
  // Printable: a print stylesheet that drops the tinted backgrounds.
  CHECK_THAT(html, Catch::Contains("@media print {"));
  // The histogram is svg.h's chart, inline, and the per-CPU figures are a table beside it.
  CHECK_THAT(html, Catch::Contains("<svg role=\"img\" aria-labelledby=\"histogram-title\" width=\"900\""));
  CHECK_THAT(html, Catch::Contains("worst 1203.0 µs (CPU 2)"));
  CHECK_THAT(html, Catch::Contains("<th scope=\"col\" class=\"num\">p99.99</th>"));
  CHECK_THAT(html, Catch::Contains("&gt; 100 (beyond the histogram)"));
  // The why: the attribution's table.
  CHECK_THAT(html, Catch::Contains("<th scope=\"row\">noise-spin:412 RT 98</th>"));
  CHECK_THAT(html, Catch::Contains("The raw trace (ftrace text): <code>out/verdict.trace.txt</code>"));
}

TEST_CASE("the HTML verdict escapes every text it shows", "[report][html]") {
  Verdict v = HtmlExample();
  v.profile_name = "<img src=\"http://example.invalid/x.png\">";
  v.host.hostname = "a&b<script>alert(1)</script>";
  v.criteria[0].evidence = "<b onload='x'>";
  v.preflight[1].hint = "<iframe src=x>";
  v.host.boot_args_pending = {"isolcpus=\"2-3\""};
  v.why->reason = "<style>";
  const std::string html = RenderHtml(v);
  for (const char* bad : {"<img", "<script", "<b ", "<iframe", "src=\"", "onload='"}) {
    INFO(bad);
    CHECK(html.find(bad) == std::string::npos);
  }
  CHECK_THAT(html, Catch::Contains("&lt;img src=&quot;http://example.invalid/x.png&quot;&gt;"));
  CHECK_THAT(html, Catch::Contains("a&amp;b&lt;script&gt;alert(1)&lt;/script&gt;"));
  CHECK_THAT(html, Catch::Contains("<code>isolcpus=&quot;2-3&quot;</code> (the run after the reboot is the one that counts)"));
}

TEST_CASE("the HTML verdict of a passing bare-metal run has no VM label and says what is not recorded", "[report][html]") {
  Verdict v = ExampleVerdict();
  v.host.virtual_machine = false;
  v.host.hypervisor.clear();
  v.cpus.erase(v.cpus.begin());  // CPU 3 alone passes
  v.config.cpus = CpuSet::Of({3});
  v.loads.pop_back();
  v.preflight.pop_back();
  v.config.pm_qos = {PmQosHolder::kProfile, 10};
  Judge(v, ExampleLimits());
  const std::string html = RenderHtml(v);
  CHECK(v.pass == (html.find(">Verdict: ✓ PASS</p>") != std::string::npos));
  CHECK(html.find("VIRTUAL MACHINE") == std::string::npos);
  CHECK_THAT(html, Catch::Contains("<th scope=\"row\">Virtual machine</th><td>no</td>"));
  CHECK_THAT(html, Catch::Contains("10 µs, held by the profile&apos;s tuned state"));
  CHECK_THAT(html, Catch::Contains("Not recorded: <code>acceptance.explain</code> was off"));
  CHECK_THAT(html, Catch::Contains("Boot arguments not in effect yet</th><td>none recorded"));
}

TEST_CASE("the HTML verdict renders coarse and skipped whys, and an import's unknown facts as unknown", "[report][html]") {
  Verdict v = ExampleVerdict();
  WhySection coarse;
  coarse.status = "coarse";
  coarse.reason = "tracefs is not mounted";
  coarse.coarse_cpu = 2;
  coarse.coarse_worst_ns = 1203000;
  coarse.coarse_window = "the 250 ms in which the worst wake-up was seen";
  coarse.coarse = {{"interrupts", "24 virtio0-input.0", 40}};
  v.why = coarse;
  std::string html = RenderHtml(v);
  CHECK_THAT(html, Catch::Contains("<strong>Coarse</strong>: counters, not a trace (tracefs is not mounted). On CPU 2, worst 1203.0 µs"));
  CHECK_THAT(html, Catch::Contains("<td class=\"num\">40</td><td>24 virtio0-input.0</td>"));
  v.why->coarse.clear();
  CHECK_THAT(RenderHtml(v), Catch::Contains("No interrupt or softirq counter moved."));

  WhySection skip;
  skip.status = "skip";
  skip.reason = "the kernel has no timerlat tracer";
  v.why = skip;
  CHECK_THAT(RenderHtml(v), Catch::Contains("<p><strong>SKIP</strong>: the kernel has no timerlat tracer</p>"));

  v.why.reset();
  v.imported = ImportSource{"cyclictest -h", "run.hist", {"host", "kernel", "virtual_machine", "pm_qos", "interval"}};
  v.preflight.clear();
  html = RenderHtml(v);
  CHECK(html.find("VIRTUAL MACHINE") == std::string::npos);  // not known: neither claimed nor denied
  CHECK_THAT(html, Catch::Contains("<th scope=\"row\">Virtual machine</th><td>unknown</td>"));
  CHECK_THAT(html, Catch::Contains("<th scope=\"row\">Host</th><td>unknown</td>"));
  CHECK_THAT(html, Catch::Contains("Read from cyclictest -h output run.hist."));
  CHECK_THAT(html, Catch::Contains("No pre-flight check is recorded"));
}

TEST_CASE("the HTML verdict lists the changes in force, folds a long list and says when none or unknown", "[report][html]") {
  Verdict v = HtmlExample();
  std::string html = RenderHtml(v);
  CHECK_THAT(html, Catch::Contains("<h3>Tuning in force during the run</h3>\n<p>rtagent had made 2 changes"));
  CHECK_THAT(html, Catch::Contains("<th scope=\"row\">IRQ 24 (virtio0-input.0)</th><td><code>0-3</code></td><td><code>0-1</code>"));
  CHECK(html.find("<details>") == std::string::npos);

  v.tuning->changes.assign(25, TuningChange{"irqs", "IRQ <7>", std::string(200, 'f'), "0"});
  v.tuning->total = 1000;
  html = RenderHtml(v);
  CHECK_THAT(html, Catch::Contains("<details>\n<summary>The 25 changes listed</summary>"));
  CHECK_THAT(html, Catch::Contains("the first 25 are listed, the journal on the machine holds them all"));
  CHECK_THAT(html, Catch::Contains("IRQ &lt;7&gt;"));
  CHECK_THAT(html, Catch::Contains(std::string(120, 'f') + "…</code>"));

  v.tuning = TuningInForce{};
  CHECK_THAT(RenderHtml(v), Catch::Contains("No change by rtagent was in force when the run started"));
  v.tuning->error = "run/rtagent/journal.json: the journal is corrupt";
  CHECK_THAT(RenderHtml(v), Catch::Contains("Unknown: rtagent&apos;s journal could not be read"));
  v.tuning.reset();
  CHECK_THAT(RenderHtml(v), Catch::Contains("Not recorded in this verdict: <code>rtagent plan PROFILE</code>"));
}

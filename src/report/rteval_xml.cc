#include "report/rteval_xml.h"

#include <charconv>
#include <cmath>
#include <ctime>
#include <map>
#include <pugixml.hpp>

#include "base/kernel_text.h"
#include "report/cyclictest_json.h"
#include "report/format.h"
#include "report/import.h"

namespace rtagent {
namespace {

// The file's text, for the line of an element (pugixml gives byte offsets).
struct XmlFile {
  std::string_view text;

  int LineOf(const pugi::xml_node& n) const {
    const ptrdiff_t at = n.offset_debug();
    int line = 1;
    for (ptrdiff_t i = 0; at > 0 && i < at && static_cast<size_t>(i) < text.size(); ++i) line += text[i] == '\n';
    return line;
  }

  // "line 12, <maximum> of CPU 2's statistics: what; hint"
  Error At(const pugi::xml_node& n, const std::string& where, const std::string& what, const std::string& hint = "") const {
    return MakeError("line " + std::to_string(LineOf(n)) + ", <" + n.name() + ">" + (where.empty() ? "" : " of " + where) +
                     ": " + what + (hint.empty() ? "" : " (" + hint + ")"));
  }
};

const char* const kNumberHint = "rteval writes plain decimal numbers here";

// A whole decimal number, nothing around it but blanks.
std::optional<double> ParseNumber(std::string_view s) {
  s = TrimView(s);
  double d = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(d)) return std::nullopt;
  return d;
}

// An element's number in µs: its unit attribute, when there, must say "us" (rteval's only one).
Result<double> Microseconds(const XmlFile& f, const pugi::xml_node& n, const std::string& where) {
  const pugi::xml_attribute unit = n.attribute("unit");
  if (unit && std::string_view(unit.value()) != "us") {
    return f.At(n, where, "unit \"" + std::string(unit.value()) + "\", not \"us\"", "rteval writes latencies in µs");
  }
  auto d = ParseNumber(n.child_value());
  if (!d) return f.At(n, where, "\"" + std::string(n.child_value()) + "\" is not a number", kNumberHint);
  if (*d < 0 || *d > static_cast<double>(kMaxImportedLatencyUs)) return f.At(n, where, std::string(n.child_value()) + " µs is out of range", kNumberHint);
  return *d;
}

// A count: a whole number, in an attribute or (attr empty) the element's text.
Result<uint64_t> Count(const XmlFile& f, const pugi::xml_node& n, const std::string& where, const char* attr = nullptr) {
  const std::string value = attr ? n.attribute(attr).value() : n.child_value();
  auto c = ParseUint(TrimView(value));
  if (!c) {
    return f.At(n, where, (attr ? std::string(attr) + "=" : std::string()) + "\"" + value + "\" is not a count",
                "rteval writes whole numbers here");
  }
  return *c;
}

// The cyclictest command line rteval ran (an attribute since 2.x, a child element in 1.x): its
// -i, -p, -m and -h (the histogram's size, into `histogram_us`).
Result<void> ReadCommandLine(const XmlFile& f, const pugi::xml_node& ct, ImportedRun& run, std::optional<uint32_t>& histogram_us) {
  std::string cmdline = ct.attribute("command_line").value();
  pugi::xml_node at = ct;
  if (cmdline.empty() && ct.child("command_line")) {
    at = ct.child("command_line");
    cmdline = at.child_value();
  }
  if (cmdline.empty()) {
    run.notes.push_back("rteval's cyclictest section has no command line: interval, priority and histogram size unknown");
    return Ok();
  }
  if (auto ok = ReadCyclictestCmdline(cmdline, run, histogram_us); !ok) {
    return f.At(at, "", ok.error().message, "the cyclictest command line rteval recorded");
  }
  run.notes.push_back("rteval ran: " + cmdline);
  return Ok();
}

// str(datetime.now()) as rteval writes its timestamps: "2026-12-03 10:00:00.123456" (local
// time, the fraction left out when it is 0), in ns since an arbitrary origin.
std::optional<int64_t> ParsePythonTime(std::string_view s) {
  s = TrimView(s);
  std::tm tm{};
  const std::string str(s);
  const char* end = ::strptime(str.c_str(), "%Y-%m-%d %H:%M:%S", &tm);
  if (end == nullptr) return std::nullopt;
  int64_t frac_ns = 0;
  if (*end == '.') {
    auto us = ParseUint(std::string_view(end + 1));
    if (!us || std::string_view(end + 1).size() != 6) return std::nullopt;
    frac_ns = static_cast<int64_t>(*us) * 1000;
  } else if (*end != '\0') {
    return std::nullopt;
  }
  const int64_t t = static_cast<int64_t>(::timegm(&tm));
  if (t > 4000000000 || t < -4000000000) return std::nullopt;  // t in ns, and stop - start, stay within 64 bits
  return t * 1000000000 + frac_ns;
}

// How long cyclictest ran: its module's runloop_start to runloop_stop (rteval 2.x and later),
// else run_info's days, hours, minutes and seconds (whole numbers; the whole run after the
// loads started, which is longer).
void ReadDuration(const pugi::xml_node& root, const pugi::xml_node& ct, ImportedRun& run) {
  const pugi::xml_node ts = ct.child("timestamps");
  auto start = ParsePythonTime(ts.child_value("runloop_start")), stop = ParsePythonTime(ts.child_value("runloop_stop"));
  if (start && stop && *stop > *start) {
    run.duration_ns = *stop - *start;
    return;
  }
  const pugi::xml_node ri = root.child("run_info");
  int64_t s = 0;
  for (const auto& [attr, unit] : std::vector<std::pair<const char*, int64_t>>{{"days", 86400}, {"hours", 3600}, {"minutes", 60}, {"seconds", 1}}) {
    auto n = ParseUint(TrimView(ri.attribute(attr).value()));
    if (!n || *n > 1000000000) {
      if (ri) run.notes.push_back(std::string("rteval's run_info ") + attr + "=\"" + ri.attribute(attr).value() + "\" is not a whole number: duration unknown");
      return;
    }
    s += static_cast<int64_t>(*n) * unit;
  }
  if (s > 0 && s < 9000000000) run.duration_ns = s * 1000000000;
}

// The host: uname's node, kernel (uname -r) and is_RT; the clocksource and the DMI model as notes.
void ReadHost(const pugi::xml_node& root, ImportedRun& run) {
  const pugi::xml_node si = root.child("SystemInfo");
  const pugi::xml_node uname = si.child("uname") ? si.child("uname") : root.child("uname");
  if (const std::string node = Trim(uname.child_value("node")); !node.empty()) run.hostname = node;
  const pugi::xml_node kernel = uname.child("kernel");
  if (const std::string release = Trim(kernel.child_value()); !release.empty()) run.kernel_release = release;
  const std::string is_rt = kernel.attribute("is_RT").value();
  if (is_rt == "1") run.preempt_rt = true;
  if (is_rt == "0") {
    run.preempt_rt = false;
    run.notes.push_back("rteval's is_RT=\"0\": rteval looks for \"RT \" in uname -v (older versions for \" RT \", which "
                        "a kernel saying PREEMPT_RT does not match); the file does not hold uname -v");
  }
  std::string clock;
  for (const pugi::xml_node& src : si.child("Kernel").child("ClockSource").children("source")) {
    if (std::string_view(src.attribute("current").value()) == "1") clock = Trim(src.child_value());
  }
  if (clock.empty()) clock = Trim(root.child("clocksource").child_value("current"));
  if (!clock.empty()) run.notes.push_back("clocksource (rteval's record): " + clock + "; its resolution is not in the file");
  for (const pugi::xml_node& h : si.child("DMIinfo").children("Handle")) {
    if (std::string_view(h.attribute("name").value()) != "System Information") continue;
    std::string model;
    for (const pugi::xml_node& fld : h.children("Field")) {
      const std::string_view name = fld.attribute("Name").value();
      if (name == "Manufacturer" || name == "Product Name") model += (model.empty() ? "" : " ") + Trim(fld.child_value());
    }
    if (!model.empty()) run.notes.push_back("machine (rteval's DMI record): " + model + "; whether it is a virtual machine the file does not say");
  }
}

// One <core>'s statistics and histogram; `limit_us` is -h N when the command line gives it.
Result<Histogram> CoreHistogram(const XmlFile& f, const pugi::xml_node& core, const std::string& where,
                                std::optional<uint32_t> histogram_us, uint64_t& bins) {
  const pugi::xml_node st = core.child("statistics");
  if (!st) return f.At(core, where, "no <statistics>", "rteval writes one per measured CPU: the file may be cut short");
  if (!st.child("samples")) return f.At(st, where, "no <samples>", "rteval writes it first in every <statistics>");
  auto samples = Count(f, st.child("samples"), where);
  if (!samples) return samples.error();
  if (*samples > kMaxImportedSamples) return f.At(st.child("samples"), where, std::to_string(*samples) + " is more wake-ups than any run", kNumberHint);
  HistogramParts p;
  p.samples = *samples;
  std::map<uint64_t, uint64_t> buckets;
  uint64_t in_bins = 0;
  const pugi::xml_node hist = core.child("histogram");
  if (*samples > 0 && !hist) return f.At(core, where, "no <histogram> for " + std::to_string(*samples) + " samples", "rteval writes one beside the statistics");
  for (const pugi::xml_node& b : hist.children("bucket")) {
    auto index = Count(f, b, where, "index");
    if (!index) return index.error();
    auto value = Count(f, b, where, "value");
    if (!value) return value.error();
    if (*index >= static_cast<uint64_t>(Histogram::kMaxLimitUs)) return f.At(b, where, "bucket " + std::to_string(*index) + " µs is past any histogram", kNumberHint);
    if (*value == 0) continue;  // rteval 1.x lists the empty buckets too
    if (*value > kMaxImportedSamples || in_bins + *value > kMaxImportedSamples) return f.At(b, where, "value=" + std::to_string(*value) + " is more wake-ups than any run", kNumberHint);
    buckets[*index] += *value;
    in_bins += *value;
  }
  if (in_bins != *samples) {
    return f.At(st.child("samples"), where, std::to_string(*samples) + " samples, but its <histogram> buckets add up to " + std::to_string(in_bins),
                "rteval counts its samples from the buckets: the file was changed or cut short");
  }
  p.limit_us = buckets.empty() ? 1 : static_cast<uint32_t>(buckets.rbegin()->first + 1);
  if (histogram_us) p.limit_us = std::max(p.limit_us, *histogram_us);
  if (auto ok = TakeImportBins(bins, p.limit_us, where); !ok) return ok.error();
  p.bins.assign(p.limit_us, 0);
  for (const auto& [i, n] : buckets) p.bins[i] = n;
  if (p.samples > 0) {  // rteval 1.x writes minimum 100000000 for a CPU without samples: not read
    std::vector<double> v;
    for (const char* key : {"minimum", "maximum", "mean"}) {
      if (!st.child(key)) return f.At(st, where, std::string("no <") + key + ">", "rteval writes it when the CPU has samples");
      auto us = Microseconds(f, st.child(key), where);
      if (!us) return us.error();
      v.push_back(*us);
    }
    p.min_ns = std::llround(v[0] * 1000.0);
    p.max_ns = std::llround(v[1] * 1000.0);
    const double sum_ns = v[2] * 1000.0 * static_cast<double>(p.samples);
    if (sum_ns > 9e18) return f.At(st.child("mean"), where, "a mean of " + FormatFixed(v[2], 1) + " µs over " + std::to_string(p.samples) + " samples is out of range", kNumberHint);
    p.sum_ns = std::llround(sum_ns);
  }
  auto h = Histogram::Restore(std::move(p));
  if (!h) return f.At(core, where, h.error().message, "the statistics contradict the histogram");
  return std::move(*h);
}

// The latency section: Measurements/cyclictest (2.x and later) or cyclictest (1.x).
Result<pugi::xml_node> LatencySection(const XmlFile& f, const pugi::xml_node& root) {
  const pugi::xml_node m = root.child("Measurements");
  if (m.child("cyclictest")) return m.child("cyclictest");
  if (root.child("cyclictest")) return root.child("cyclictest");
  if (m.child("timerlat")) {
    return f.At(m.child("timerlat"), "", "rteval's timerlat results are not read: rteval adds rtla's IRQ, thread and user-space "
                                         "columns of each CPU into one histogram, which is no latency a thread saw",
                "import rtla timerlat hist's own output with --from-rtla, or run rteval with --measurement-module cyclictest");
  }
  return f.At(root, "", "no <cyclictest> section (looked at Measurements/cyclictest and cyclictest)",
              "rteval writes it when its cyclictest measurement ran to the end");
}

// Every <core> of the section, in the file's order; `where` names the section for errors.
Result<void> ReadCores(const XmlFile& f, const pugi::xml_node& ct, ImportedRun& run, std::optional<uint32_t> histogram_us) {
  uint64_t bins = 0;
  for (const pugi::xml_node& core : ct.children("core")) {
    const std::string id = core.attribute("id").value();
    auto cpu = ParseUint(TrimView(id));
    if (!cpu || *cpu > 100000) return f.At(core, "", "id=\"" + id + "\" is not a CPU number", "rteval names each measured CPU by its number");
    const std::string where = "CPU " + id;
    auto h = CoreHistogram(f, core, where, histogram_us, bins);
    if (!h) return h.error();
    if (h->samples() > 0 && h->max_ns() >= static_cast<int64_t>(h->limit_us()) * 1000) {
      run.notes.push_back("CPU " + id + ": its worst, " + FormatNsAsUs(h->max_ns()) + " µs, is past the histogram's " +
                          std::to_string(h->limit_us()) + " µs: at least one wake-up overflowed, and rteval does not count them");
    }
    if (!run.priority) {
      if (auto prio = ParseInt(TrimView(core.attribute("priority").value())); prio && *prio > 0 && *prio <= 99) {
        run.priority = static_cast<int>(*prio);
        run.policy = "SCHED_FIFO";
      }
    }
    run.threads.push_back(std::move(*h));
    run.cpus.push_back(static_cast<int>(*cpu));
  }
  if (run.threads.empty()) {
    return f.At(ct, "", "no <core> statistics",
                "rteval 3.x leaves them out when a latency was past its histogram: run it again with a larger --cyclictest-buckets");
  }
  return Ok();
}

// A cyclictest stopped by its break trace (-b): what rteval recorded of it.
void ReadAbort(const pugi::xml_node& ct, ImportedRun& run) {
  const pugi::xml_node ab = ct.child("abort_report");
  if (!ab) return;
  const pugi::xml_node bt = ab.child("breaktrace");
  std::string note = "rteval's cyclictest was stopped early (" + std::string(ab.attribute("reason").value()) + ")";
  if (bt) {
    note += std::string(": a wake-up of ") + bt.attribute("measured_latency").value() + " µs passed the break threshold of " +
            bt.attribute("latency_threshold").value() + " µs; the file does not say on which CPU nor at which sample";
  }
  run.notes.push_back(note);
}

}  // namespace

Result<ImportedRun> ParseRtevalSummary(std::string_view text) {
  const XmlFile f{text};
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_buffer(text.data(), text.size(), pugi::parse_default, pugi::encoding_utf8);
  if (parsed.status == pugi::status_no_document_element) return MakeError("line 1: not XML (no element in it)");
  if (!parsed) {
    int line = 1;
    for (ptrdiff_t i = 0; i < parsed.offset && static_cast<size_t>(i) < text.size(); ++i) line += text[i] == '\n';
    return MakeError("line " + std::to_string(line) + ": not XML (" + parsed.description() + ")");
  }
  const pugi::xml_node root = doc.document_element();
  if (std::string_view(root.name()) != "rteval") {
    return f.At(root, "", "the root element is not <rteval>: not an rteval summary", "rteval writes summary.xml in its rteval-DATE-N report directory");
  }
  ImportedRun run;
  run.tool = "rteval";
  if (const std::string version = root.attribute("version").value(); !version.empty()) run.tool += " " + version;
  run.overflows_counted = false;
  auto ct = LatencySection(f, root);
  if (!ct) return ct.error();
  std::optional<uint32_t> histogram_us;
  if (auto ok = ReadCommandLine(f, *ct, run, histogram_us); !ok) return ok.error();
  if (auto ok = ReadCores(f, *ct, run, histogram_us); !ok) return ok.error();
  ReadHost(root, run);
  ReadDuration(root, *ct, run);
  ReadAbort(*ct, run);
  run.notes.push_back("read from rteval's cyclictest section: each <core>'s histogram (1 µs buckets); rteval does not keep "
                      "cyclictest's overflow count");
  return run;
}

}  // namespace rtagent

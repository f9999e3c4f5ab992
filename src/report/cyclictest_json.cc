#include "report/cyclictest_json.h"

#include <algorithm>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>

#include "base/json_reason.h"
#include "base/kernel_text.h"
#include "report/cyclictest_text.h"

namespace rtagent {
namespace {

using json = nlohmann::json;

// The value after a short option ("-i1000", "-i 1000") or a long one ("--interval=1000",
// "--interval 1000") in cyclictest's command line; nullopt when not given.
std::optional<std::string> OptionValue(const std::vector<std::string_view>& argv, std::string_view shopt, std::string_view lopt) {
  for (size_t i = 1; i < argv.size(); ++i) {
    std::string_view a = argv[i];
    const bool has_next = i + 1 < argv.size();
    if ((!shopt.empty() && a == shopt) || a == lopt) {
      if (has_next) return std::string(argv[i + 1]);
      return std::nullopt;
    }
    if (a.rfind(lopt, 0) == 0 && a.size() > lopt.size() && a[lopt.size()] == '=') return std::string(a.substr(lopt.size() + 1));
    if (!shopt.empty() && a.rfind(shopt, 0) == 0 && a.size() > shopt.size() && a.rfind("--", 0) != 0) {
      return std::string(a.substr(shopt.size()));
    }
  }
  return std::nullopt;
}

// -m among the short flags ("-m", "-qmu") or --mlockall.
bool LocksMemory(const std::vector<std::string_view>& argv) {
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string_view a = argv[i];
    if (a == "--mlockall") return true;
    if (a.size() > 1 && a[0] == '-' && a[1] != '-' && a.find_first_not_of("qmunv", 1) == std::string_view::npos &&
        a.find('m') != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

// The times rt-tests writes: "Tue, 01 Dec 2026 21:14:27 +0000" (RFC 2822, whole seconds).
std::optional<int64_t> ParseTime(const std::string& s) {
  std::tm tm{};
  const char* end = ::strptime(s.c_str(), "%a, %d %b %Y %H:%M:%S %z", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return static_cast<int64_t>(::timegm(&tm)) - tm.tm_gmtoff;
}

// The 1-based line of byte `offset` in `text`.
int LineOf(std::string_view text, size_t offset) {
  int line = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) line += text[i] == '\n';
  return line;
}

// The run's settings from the command line it recorded (ReadCyclictestCmdline).
Result<void> ReadCmdline(const json& root, ImportedRun& run, std::optional<uint32_t>& histogram_us) {
  // rt-tests 2.x writes the key with a colon inside it ("cmdline:"); a fixed one would not.
  for (const char* key : {"cmdline:", "cmdline"}) {
    if (!root.contains(key) || !root[key].is_string()) continue;
    if (auto ok = ReadCyclictestCmdline(root[key].get<std::string>(), run, histogram_us); !ok) {
      return Wrap(std::string(key) + ": ", ok.error());
    }
    break;
  }
  return Ok();
}

// One thread's histogram from its object at `where` ("thread.0"): cycles, min, max, avg and
// the 1 µs buckets -h N wrote (`histogram_us`: N from the command line, when it says).
Result<Histogram> ThreadHistogram(const std::string& where, const json& t, std::optional<uint32_t> histogram_us, uint64_t& bins) {
  if (!t.is_object()) return MakeError(where + ": not an object");
  for (const char* key : {"cycles", "min", "max", "avg"}) {
    if (!t.contains(key) || !t[key].is_number()) return MakeError(where + "." + key + ": missing or not a number");
  }
  if (!t.contains("histogram") || !t["histogram"].is_object()) {
    return MakeError(where + ".histogram: missing (cyclictest writes it with -h N only: run it with -h)");
  }
  std::map<uint64_t, uint64_t> buckets;
  uint64_t in_bins = 0;
  for (const auto& [bucket, count] : t["histogram"].items()) {
    auto b = ParseUint(bucket);
    if (!b || *b >= Histogram::kMaxLimitUs || !count.is_number_unsigned()) {
      return MakeError(where + ".histogram." + bucket + ": not a bucket in µs with a count");
    }
    buckets[*b] = count.get<uint64_t>();
    in_bins += count.get<uint64_t>();
  }
  // cyclictest writes "histogram": {} without -h too: empty, with no -h on its command line,
  // it is no histogram at all, not a run whose every wake-up overflowed.
  if (buckets.empty() && !histogram_us) {
    return MakeError(where + ".histogram: empty, and the command line has no -h (cyclictest fills it with -h N only: run it with -h)");
  }
  const int64_t cycles = t["cycles"].get<int64_t>();
  if (cycles < 0 || static_cast<uint64_t>(cycles) < in_bins) {
    return MakeError(where + ".cycles: " + std::to_string(cycles) + " is fewer than the histogram's " + std::to_string(in_bins));
  }
  HistogramParts p;
  // cyclictest's histogram covers 0 .. -h N - 1 and the file names only the buckets that
  // counted something: N comes from the command line. Without it, the last bucket named is
  // all the file says of the range.
  p.limit_us = buckets.empty() ? 0 : static_cast<uint32_t>(buckets.rbegin()->first + 1);
  if (histogram_us) p.limit_us = std::max(p.limit_us, *histogram_us);
  if (auto ok = TakeImportBins(bins, p.limit_us, where); !ok) return ok.error();
  p.bins.assign(p.limit_us, 0);
  for (const auto& [b, n] : buckets) p.bins[b] = n;
  p.samples = static_cast<uint64_t>(cycles);
  p.overflows = p.samples - in_bins;
  if (p.samples > 0) {
    // Whole µs within kMaxImportedLatencyUs, as for the -h report's footer, so that the ns
    // fit; a float is no cyclictest latency (nlohmann's get<int64_t> of a float is a plain cast).
    constexpr int64_t kMaxUs = kMaxImportedLatencyUs;
    for (const char* key : {"min", "max"}) {
      if (!t[key].is_number_integer() || t[key].get<int64_t>() < -kMaxUs || t[key].get<int64_t>() > kMaxUs) {
        return MakeError(where + "." + key + ": " + t[key].dump() + " is no latency in whole µs (at most 10^12)");
      }
    }
    p.min_ns = t["min"].get<int64_t>() * 1000;
    p.max_ns = t["max"].get<int64_t>() * 1000;
    const double sum_ns = t["avg"].get<double>() * 1000.0 * static_cast<double>(p.samples);
    if (!(sum_ns > -9.2e18 && sum_ns < 9.2e18)) {
      return MakeError(where + ".avg: " + t["avg"].dump() + " µs over " + std::to_string(p.samples) +
                       " wake-ups is past any run's total");
    }
    p.sum_ns = static_cast<int64_t>(sum_ns);
    if (p.overflows > 0) p.overflow_max_ns = p.max_ns;
  }
  auto h = Histogram::Restore(std::move(p));
  if (!h) return Wrap(where + ": ", h.error());
return std::move(*h);
}

Result<ImportedRun> ParseParsed(const json& root) {
  ImportedRun run;
  run.tool = "cyclictest --json";
  if (!root.is_object() || !root.contains("thread") || !root["thread"].is_object()) {
    return MakeError("no \"thread\" object: not a cyclictest --json file");
  }
  if (root.contains("sysinfo") && root["sysinfo"].is_object()) {
    const json& si = root["sysinfo"];
    if (si.contains("nodename") && si["nodename"].is_string()) run.hostname = si["nodename"].get<std::string>();
    if (si.contains("release") && si["release"].is_string()) run.kernel_release = si["release"].get<std::string>();
    if (si.contains("version") && si["version"].is_string()) run.kernel_version = si["version"].get<std::string>();
  }
  std::optional<uint32_t> histogram_us;
  if (auto ok = ReadCmdline(root, run, histogram_us); !ok) return ok.error();
  if (root.contains("start_time") && root.contains("end_time") && root["start_time"].is_string() &&
      root["end_time"].is_string()) {
    auto a = ParseTime(root["start_time"].get<std::string>());
    auto b = ParseTime(root["end_time"].get<std::string>());
    // Whole seconds: a run that began and ended in the same second says "under a second", not 0.
    // A span past 9e9 s (285 years) is no run, and would not fit in ns (fuzz/import_fuzz.cc): unknown.
    if (a && b && *b > *a && *b - *a < 9000000000) run.duration_ns = (*b - *a) * 1000000000;
  }
  uint64_t bins = 0;
  for (const auto& [name, t] : root["thread"].items()) {
    auto h = ThreadHistogram("thread." + name, t, histogram_us, bins);
    if (!h) return h.error();
    run.threads.push_back(std::move(*h));
    if (t.contains("cpu") && t["cpu"].is_number_integer() && t["cpu"].get<int>() >= 0) run.cpus.push_back(t["cpu"].get<int>());
  }
  if (run.threads.empty()) return MakeError("\"thread\" is empty: no thread measured");
  return run;
}

}  // namespace

Result<void> ReadCyclictestCmdline(std::string_view cmdline, ImportedRun& run, std::optional<uint32_t>& histogram_us) {
  const std::vector<std::string_view> argv = SplitWs(cmdline);
  if (auto i = OptionValue(argv, "-i", "--interval")) {
    auto n = ParseInt(*i);
    if (!n || *n <= 0) return MakeError("-i " + *i + " is not an interval in µs");
    run.interval_us = *n;
  }
  if (auto p = OptionValue(argv, "-p", "--priority")) {
    auto n = ParseInt(*p);
    if (!n || *n < 0 || *n > 99) return MakeError("-p " + *p + " is not a priority");
    run.priority = static_cast<int>(*n);
  }
  if (auto pol = OptionValue(argv, "", "--policy")) {
    run.policy = CyclictestPolicy(*pol);
  } else if (run.priority && *run.priority > 0) {
    run.policy = "SCHED_FIFO";  // cyclictest's documented default once a priority is given
  }
  if (LocksMemory(argv)) run.memory_locked = true;
  if (auto h = OptionValue(argv, "-h", "--histogram")) {
    auto n = ParseInt(*h);
    if (!n || *n <= 0 || *n > Histogram::kMaxLimitUs) return MakeError("-h " + *h + " is not a histogram size in µs");
    histogram_us = static_cast<uint32_t>(*n);
  }
  return Ok();
}

Result<ImportedRun> ParseCyclictestJson(std::string_view text) {
  json root = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    // Parse again for the position of the first error, as a line.
    try {
      [[maybe_unused]] const json again = json::parse(text.begin(), text.end());
    } catch (const json::parse_error& e) {
      return MakeError("line " + std::to_string(LineOf(text, e.byte)) + ": not valid JSON");
    } catch (const json::exception& e) {
      // A number too large for any C++ type ("6e00001000004") is out_of_range, not a parse
      // error (fuzz/import_fuzz.cc): said, never thrown out of the import.
      return MakeError("not valid JSON: " + JsonReason(e));
    }
    return MakeError("not valid JSON");
  }
  try {
    return ParseParsed(root);
  } catch (const json::exception& e) {
    return MakeError("cyclictest JSON: " + JsonReason(e));
  }
}

}  // namespace rtagent

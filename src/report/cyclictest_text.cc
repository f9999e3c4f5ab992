#include "report/cyclictest_text.h"

#include <cstdio>
#include <map>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"

namespace rtagent {
namespace {

std::string Printf(const char* fmt, unsigned long long v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

unsigned long long FloorUs(int64_t ns) { return ns > 0 ? static_cast<unsigned long long>(ns / 1000) : 0; }

}  // namespace

std::string RenderCyclictestHistogram(const Verdict& v) {
  std::string o;
  o += "# rtagent histogram in cyclictest -h format";
  for (size_t t = 0; t < v.cpus.size(); ++t) {
    o += (t == 0 ? "; " : ", ") + std::string("thread ") + std::to_string(t) + " = CPU " + std::to_string(v.cpus[t].cpu);
  }
  o += "\n";
  if (v.config.pm_qos.holder == PmQosHolder::kSampler && v.config.pm_qos.value_us) {
    o += "# /" + kpath::kCpuDmaLatency + " set to " + std::to_string(*v.config.pm_qos.value_us) + "us\n";
  }
  o += "# Histogram\n";
  uint32_t bins = 0;
  for (const CpuResult& c : v.cpus) bins = std::max(bins, c.histogram.limit_us());
  auto count = [](const CpuResult& c, uint32_t b) -> unsigned long long {
    return b < c.histogram.bins().size() ? c.histogram.bins()[b] : 0;
  };
  for (uint32_t b = 0; b < bins; ++b) {
    bool any = false;
    for (const CpuResult& c : v.cpus) any = any || count(c, b) != 0;
    if (!any) continue;
    o += Printf("%06llu ", b);
    for (size_t t = 0; t < v.cpus.size(); ++t) {
      o += Printf("%06llu", count(v.cpus[t], b));
      if (t + 1 < v.cpus.size()) o += "\t";
    }
    o += "\n";
  }
  auto footer = [&](const char* name, const char* fmt, auto value) {
    o += name;
    for (const CpuResult& c : v.cpus) o += Printf(fmt, value(c));
    o += "\n";
  };
  footer("# Total:", " %09llu", [](const CpuResult& c) { return static_cast<unsigned long long>(c.histogram.samples() - c.histogram.overflows()); });
  footer("# Min Latencies:", " %05llu", [](const CpuResult& c) { return FloorUs(c.histogram.min_ns()); });
  footer("# Avg Latencies:", " %05llu", [](const CpuResult& c) {
    return c.histogram.samples() ? FloorUs(c.histogram.sum_ns() / static_cast<int64_t>(c.histogram.samples())) : 0ULL;
  });
  footer("# Max Latencies:", " %05llu", [](const CpuResult& c) { return FloorUs(c.histogram.max_ns()); });
  footer("# Histogram Overflows:", " %05llu", [](const CpuResult& c) { return static_cast<unsigned long long>(c.histogram.overflows()); });
  o += "# Histogram Overflow at cycle number:\n";
  for (size_t t = 0; t < v.cpus.size(); ++t) {
    const Histogram& h = v.cpus[t].histogram;
    o += "# Thread " + std::to_string(t) + ":";
    for (const OverflowEvent& e : h.first_overflows()) o += Printf(" %05llu", e.sample_index);
    if (h.first_overflows().size() < h.overflows()) {
      o += Printf(" # %05llu others", h.overflows() - h.first_overflows().size());
    }
    o += "\n";
  }
  return o;
}

Result<CyclictestReport> ParseCyclictestHistogram(std::string_view text) {
  std::map<uint64_t, std::vector<uint64_t>> rows;
  std::map<std::string, std::vector<uint64_t>> footer;
  std::map<uint64_t, std::vector<uint64_t>> overflow_cycles;  // by thread
  CyclictestReport out;
  int line_no = 0;
  for (std::string_view raw : SplitLines(text)) {
    ++line_no;
    std::string_view line = TrimView(raw);
    if (line.empty()) continue;
    if (line[0] == '#') {
      line.remove_prefix(1);
      line = TrimView(line);
      const std::string dma = kpath::kCpuDmaLatency + " set to ";
      if (size_t at = line.find(dma); at != std::string_view::npos) {
        std::string_view value = line.substr(at + dma.size());
        if (value.size() > 2 && value.substr(value.size() - 2) == "us") value.remove_suffix(2);
        if (auto n = ParseInt(value)) out.pm_qos_us = static_cast<int32_t>(*n);
        continue;
      }
      size_t colon = line.find(':');
      if (colon == std::string_view::npos) continue;
      std::string key(TrimView(line.substr(0, colon)));
      if (key.rfind("Thread ", 0) == 0) {  // "# Thread 0: 00123 00456 # 00005 others"
        auto thread = ParseUint(std::string_view(key).substr(7));
        if (!thread) return MakeError("line " + std::to_string(line_no) + ": not a thread number: \"" + key + "\"");
        std::vector<uint64_t>& cycles = overflow_cycles[*thread];
        for (std::string_view f : SplitWs(line.substr(colon + 1))) {
          if (f.front() == '#') break;  // "# 00005 others": counted in the overflows, not listed
          auto n = ParseUint(f);
          if (!n) return MakeError("line " + std::to_string(line_no) + ": not a cycle number: \"" + std::string(f) + "\"");
          cycles.push_back(*n);
        }
        continue;
      }
      std::vector<uint64_t> values;
      for (std::string_view f : SplitWs(line.substr(colon + 1))) {
        auto n = ParseUint(f);
        if (!n) break;  // "# Total:" may be followed by text in some versions; stop at it
        values.push_back(*n);
      }
      footer[key] = std::move(values);
      continue;
    }
    if (line.rfind("T:", 0) == 0) {  // "T: 0 ( 1234) P:80 I:1000 C:   3000 Min: ..."
      std::vector<std::string_view> f = SplitWs(line);
      for (size_t i = 0; i + 1 < f.size(); ++i) {
        // "P:80" or "P:" "80" (the number is padded to a width)
        std::string_view tag = f[i];
        std::string_view value = tag.size() > 2 ? tag.substr(2) : f[i + 1];
        if (tag.rfind("P:", 0) == 0) {
          if (auto n = ParseInt(value)) out.priority = static_cast<int>(*n);
        } else if (tag.rfind("I:", 0) == 0) {
          if (auto n = ParseInt(value)) out.interval_us = *n;
        }
      }
      continue;
    }
    if (line.rfind("policy:", 0) == 0) {  // "policy: fifo: loadavg: 0.10 0.05 ..."
      const std::string name(TrimView(line.substr(7, line.find(':', 7) - 7)));
      if (name == "fifo") out.policy = "SCHED_FIFO";
      if (name == "rr") out.policy = "SCHED_RR";
      if (name == "other") out.policy = "SCHED_OTHER";
      continue;
    }
    if (line[0] < '0' || line[0] > '9') continue;  // other live lines
    std::vector<uint64_t> values;
    for (std::string_view f : SplitWs(line)) {
      auto n = ParseUint(f);
      if (!n) return MakeError("line " + std::to_string(line_no) + ": not a number: \"" + std::string(f) + "\"");
      values.push_back(*n);
    }
    if (values.size() < 2) return MakeError("line " + std::to_string(line_no) + ": a bin without counts");
    const uint64_t bin = values.front();
    if (bin > 10000000) return MakeError("line " + std::to_string(line_no) + ": bin " + std::to_string(bin) + " is implausible");
    values.erase(values.begin());
    rows[bin] = std::move(values);
  }
  auto field = [&](const char* key) -> const std::vector<uint64_t>* {
    auto it = footer.find(key);
    return it == footer.end() ? nullptr : &it->second;
  };
  const auto* mins = field("Min Latencies");
  const auto* avgs = field("Avg Latencies");
  const auto* maxes = field("Max Latencies");
  const auto* overflows = field("Histogram Overflows");
  if (!maxes || !overflows) return MakeError("not a cyclictest -h report: no \"# Max Latencies\" or \"# Histogram Overflows\" line");
  // Thread count: Min Latencies has one value per thread; Max and Overflows may carry an
  // extra all-threads value (-H).
  const size_t threads = mins ? mins->size() : maxes->size();
  if (threads == 0 || maxes->size() < threads || overflows->size() < threads) {
    return MakeError("cyclictest report footer does not list every thread");
  }
  // A latency in the footer beyond 10^12 µs (11.6 days) is no wake-up latency, and in ns it
  // would not fit the verdict's integers (fuzz/import_fuzz.cc found the overflow).
  constexpr uint64_t kMaxFooterUs = 1000000000000ULL;
  for (const auto& [key, values] : {std::pair{"Min Latencies", mins}, {"Avg Latencies", avgs}, {"Max Latencies", maxes}}) {
    if (values == nullptr) continue;
    for (uint64_t v : *values) {
      if (v > kMaxFooterUs) {
        return MakeError(std::string("\"# ") + key + ":\" holds " + std::to_string(v) +
                         " µs, beyond any latency (more than 10^12 µs): not a cyclictest report");
      }
    }
  }
  const uint32_t limit = rows.empty() ? 1 : static_cast<uint32_t>(rows.rbegin()->first + 1);
  for (size_t t = 0; t < threads; ++t) {
    HistogramParts p;
    p.limit_us = limit;
    p.bins.assign(limit, 0);
    uint64_t in_bins = 0;
    for (const auto& [bin, counts] : rows) {
      if (t < counts.size()) {
        p.bins[bin] = counts[t];
        in_bins += counts[t];
      }
    }
    p.overflows = (*overflows)[t];
    p.samples = in_bins + p.overflows;
    p.max_ns = static_cast<int64_t>((*maxes)[t]) * 1000;
    p.min_ns = mins ? static_cast<int64_t>((*mins)[t]) * 1000 : 0;
    if (p.samples == 0) p.min_ns = p.max_ns = 0;
    if (avgs && t < avgs->size()) {
      // The mean times the count, in ns; a count that makes it overflow is not a real run.
      const double sum_ns = static_cast<double>((*avgs)[t]) * static_cast<double>(p.samples) * 1000.0;
      if (!(sum_ns < 9.0e18)) {
        return MakeError("\"# Thread " + std::to_string(t) + "\": " + std::to_string(p.samples) +
                         " samples of mean " + std::to_string((*avgs)[t]) + " µs overflow the sum: not a cyclictest report");
      }
      p.sum_ns = static_cast<int64_t>(sum_ns);
    } else {
      p.sum_ns = 0;
    }
    if (p.overflows > 0) p.overflow_max_ns = p.max_ns;
    if (auto it = overflow_cycles.find(t); it != overflow_cycles.end()) {
      if (it->second.size() > p.overflows) {
        return MakeError("\"# Thread " + std::to_string(t) + ":\" lists " + std::to_string(it->second.size()) +
                             " overflow cycles, more than its " + std::to_string(p.overflows) + " overflows");
      }
      for (uint64_t cycle : it->second) p.first_overflows.push_back(OverflowEvent{cycle, -1, -1});
    }
    auto h = Histogram::Restore(std::move(p));
    if (!h) return MakeError("cyclictest thread " + std::to_string(t) + ": " + h.error().message);
    out.threads.push_back(std::move(*h));
  }
  return out;
}

}  // namespace rtagent

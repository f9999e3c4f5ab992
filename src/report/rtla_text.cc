#include "report/rtla_text.h"

#include <map>
#include <numeric>

#include "base/kernel_text.h"

namespace rtagent {
namespace {

struct Column {
  int cpu = 0;
  size_t index = 0;  // among the count columns
  std::string kind;  // "IRQ", "Thr", "Usr"
};

Error LineError(int line_no, const std::string& what) { return MakeError("line " + std::to_string(line_no) + ": " + what); }

// "0 00:10:00": days, then hours, minutes and seconds.
std::optional<int64_t> ParseRtlaDuration(std::string_view text) {
  std::vector<std::string_view> f = SplitWs(text);
  if (f.size() != 2) return std::nullopt;
  auto days = ParseUint(f[0]);
  std::vector<std::string_view> hms = SplitChar(f[1], ':');
  if (!days || hms.size() != 3) return std::nullopt;
  int64_t s = 0;
  for (std::string_view part : hms) {
    auto n = ParseUint(part);
    if (!n) return std::nullopt;
    s = s * 60 + static_cast<int64_t>(*n);
  }
  s += static_cast<int64_t>(*days) * 86400;
  return s * 1000000000;
}

// What the text's lines hold before the histograms are built from them.
struct RtlaLines {
  int64_t unit_ns = 0;  // 1000 for µs, 1 for ns; 0 until the unit line
  std::vector<Column> columns;
  std::map<uint64_t, std::vector<uint64_t>> rows;
  std::map<std::string, std::vector<std::string_view>> footer;
  bool header_seen = false;
  int last_bucket_line = 0;  // the line of the highest bucket, for the error that bounds it
};

// Every line: the unit and duration comments (the duration into `run`), the "Index" header,
// the bucket rows and the footer rows ("over:", "count:", ...), up to a newer rtla's "ALL:".
Result<RtlaLines> ReadRtlaLines(std::string_view text, ImportedRun& run) {
  RtlaLines in;
  int line_no = 0;
  for (std::string_view raw : SplitLines(text)) {
    ++line_no;
    std::string_view line = TrimView(raw);
    if (line.empty()) continue;
    if (line[0] == '#') {
      if (line.find("Time unit is microseconds") != std::string_view::npos) in.unit_ns = 1000;
      if (line.find("Time unit is nanoseconds") != std::string_view::npos) in.unit_ns = 1;
      if (size_t at = line.find("Duration:"); at != std::string_view::npos) {
        run.duration_ns = ParseRtlaDuration(TrimView(line.substr(at + 9)));
        if (!run.duration_ns) return LineError(line_no, "unreadable duration \"" + std::string(line) + "\"");
      }
      continue;
    }
    std::vector<std::string_view> f = SplitWs(line);
    if (f[0] == "Index") {
      for (size_t i = 1; i < f.size(); ++i) {
        const size_t dash = f[i].find('-');
        auto cpu = dash == std::string_view::npos ? std::nullopt : ParseUint(f[i].substr(dash + 1));
        if (!cpu) return LineError(line_no, "column \"" + std::string(f[i]) + "\" is not KIND-CPU (IRQ-000, Thr-000, Usr-000)");
        in.columns.push_back({static_cast<int>(*cpu), i - 1, std::string(f[i].substr(0, dash))});
      }
      in.header_seen = true;
      continue;
    }
    if (f[0] == "ALL:") break;  // a newer rtla's summary over every CPU: not per CPU, not read
    if (!in.header_seen) continue;  // what rtla prints before its histogram
    if (f[0].back() == ':') {
      if (f.size() != in.columns.size() + 1) {
        return LineError(line_no, "\"" + std::string(f[0]) + "\" has " + std::to_string(f.size() - 1) + " values for " +
                                      std::to_string(in.columns.size()) + " columns");
      }
      in.footer[std::string(f[0].substr(0, f[0].size() - 1))] = std::vector<std::string_view>(f.begin() + 1, f.end());
      continue;
    }
    auto index = ParseUint(f[0]);
    if (!index) return LineError(line_no, "not a bucket row: \"" + std::string(line) + "\"");
    if (f.size() != in.columns.size() + 1) {
      return LineError(line_no, "bucket " + std::string(f[0]) + " has " + std::to_string(f.size() - 1) + " counts for " +
                                    std::to_string(in.columns.size()) + " columns");
    }
    std::vector<uint64_t> counts;
    for (size_t i = 1; i < f.size(); ++i) {
      auto n = ParseUint(f[i]);
      if (!n) return LineError(line_no, "not a count: \"" + std::string(f[i]) + "\"");
      counts.push_back(*n);
    }
    if (in.rows.empty() || *index >= in.rows.rbegin()->first) in.last_bucket_line = line_no;
    in.rows[*index] = std::move(counts);
  }
  return in;
}

// The lines hold a whole histogram: the header, the unit, every footer row, 1 µs buckets.
Result<void> CheckRtlaLines(const RtlaLines& in) {
  if (!in.header_seen) return MakeError("no \"Index IRQ-000 Thr-000 ...\" header line");
  if (in.unit_ns == 0) return MakeError("no \"# Time unit is microseconds (us)\" line");
  for (const char* key : {"over", "count", "min", "avg", "max"}) {
    if (!in.footer.count(key)) return MakeError("no \"" + std::string(key) + ":\" line after the buckets");
  }
  // The histogram holds 1 µs bins up to the highest bucket, so that bucket must leave its limit
  // within what a verdict reader takes (a bucket of 14e15 µs made a limit that wrapped around
  // 32 bits and a write past the bins: fuzz/import_fuzz.cc).
  if (!in.rows.empty()) {
    const uint64_t last = in.rows.rbegin()->first;
    const uint64_t last_us = in.unit_ns == 1000 ? last : last / 1000;
    if (last_us >= Histogram::kMaxLimitUs) {
      return LineError(in.last_bucket_line, "bucket " + std::to_string(last) + (in.unit_ns == 1000 ? " µs" : " ns") +
                                                " is past any histogram (at most " + std::to_string(Histogram::kMaxLimitUs - 1) +
                                                " µs)");
    }
  }
  if (in.unit_ns == 1000 && in.rows.size() >= 2) {
    uint64_t step = 0;
    for (const auto& [index, counts] : in.rows) step = std::gcd(step, index);
    if (step > 1) {
      return MakeError("the buckets step by " + std::to_string(step) + " µs (rtla -b " + std::to_string(step) +
                           "): only 1 µs buckets (the default) are read");
    }
  }
  return Ok();
}

// A footer value of one column ("over", "min", ...); CheckRtlaLines made sure the row is there.
std::optional<uint64_t> FooterNumber(const RtlaLines& in, const char* key, size_t col) {
  return ParseUint(in.footer.at(key)[col]);
}

// One column's histogram, in 1 µs bins of `limit_us`.
Result<Histogram> ColumnHistogram(int cpu, const Column& col, uint32_t limit_us, const RtlaLines& in) {
  HistogramParts p;
  p.limit_us = limit_us;
  p.bins.assign(limit_us, 0);
  const std::string name = col.kind + "-" + std::to_string(cpu);
  uint64_t in_bins = 0;
  auto add = [&](uint64_t count) -> Result<void> {
    if (count > kMaxImportedSamples - in_bins) return MakeError(name + ": more wake-ups than any run (over 10^15)");
    in_bins += count;
    return Ok();
  };
  for (const auto& [index, counts] : in.rows) {
    p.bins[index * static_cast<uint64_t>(in.unit_ns) / 1000] += counts[col.index];
    if (auto ok = add(counts[col.index]); !ok) return ok.error();
  }
  auto over = FooterNumber(in, "over", col.index);
  if (!over) return MakeError(name + ": \"over:\" is not a number");
  if (auto ok = add(*over); !ok) return ok.error();
  p.overflows = *over;
  p.samples = in_bins;
  if (p.samples > 0) {
    auto min = FooterNumber(in, "min", col.index), max = FooterNumber(in, "max", col.index),
         avg = FooterNumber(in, "avg", col.index);
    if (!min || !max || !avg) return MakeError(name + ": min, avg or max is not a number");
    // A latency past kMaxImportedLatencyUs is no wake-up latency, and its ns would not fit.
    const auto most = static_cast<uint64_t>(kMaxImportedLatencyUs) * 1000 / static_cast<uint64_t>(in.unit_ns);
    for (uint64_t v : {*min, *max, *avg}) {
      if (v > most) return MakeError(name + ": min, avg or max " + std::to_string(v) + " is beyond any latency (more than 10^12 µs)");
    }
    auto sum_ns = ImportedSumNs(*avg, in.unit_ns, p.samples);  // rtla rounds avg to its unit
    if (!sum_ns) {
      return MakeError(name + ": " + std::to_string(p.samples) + " wake-ups of mean " + std::to_string(*avg) + " overflow the sum");
    }
    p.min_ns = static_cast<int64_t>(*min) * in.unit_ns;
    p.max_ns = static_cast<int64_t>(*max) * in.unit_ns;
    p.sum_ns = *sum_ns;
    if (p.overflows > 0) p.overflow_max_ns = p.max_ns;
  }
  auto h = Histogram::Restore(std::move(p));
  if (!h) return Wrap(name + ": ", h.error());
  return std::move(*h);
}

}  // namespace

Result<ImportedRun> ParseRtlaTimerlatHist(std::string_view text) {
  ImportedRun run;
  run.tool = "rtla timerlat hist";
  auto in = ReadRtlaLines(text, run);
  if (!in) return in.error();
  if (auto ok = CheckRtlaLines(*in); !ok) return ok.error();
  // One column per CPU: Usr when there is one, else Thr.
  std::map<int, const Column*> chosen;
  for (const Column& c : in->columns) {
    if (c.kind != "Thr" && c.kind != "Usr") continue;
    auto it = chosen.find(c.cpu);
    if (it == chosen.end() || c.kind == "Usr") chosen[c.cpu] = &c;
  }
  if (chosen.empty()) return MakeError("no Thr-NNN or Usr-NNN column: nothing a thread saw");
  const uint32_t limit_us =
      in->rows.empty() ? 1 : static_cast<uint32_t>(in->rows.rbegin()->first * static_cast<uint64_t>(in->unit_ns) / 1000 + 1);
  uint64_t bins = 0;
  for (const auto& [cpu, col] : chosen) {
    if (auto ok = TakeImportBins(bins, limit_us, col->kind + "-" + std::to_string(cpu)); !ok) return ok.error();
    auto h = ColumnHistogram(cpu, *col, limit_us, *in);
    if (!h) return h.error();
    run.threads.push_back(std::move(*h));
    run.cpus.push_back(cpu);
    if (auto count = FooterNumber(*in, "count", col->index); count && *count != run.threads.back().samples()) {
      run.notes.push_back("CPU " + std::to_string(cpu) + ": rtla's count says " + std::to_string(*count) + ", its buckets and over add up to " +
                          std::to_string(run.threads.back().samples()) + "; the buckets are used");
    }
  }
  run.notes.push_back("read from rtla timerlat hist: each CPU's " + std::string(chosen.begin()->second->kind) +
                      " column (the timer IRQ columns are not used)");
  return run;
}

}  // namespace rtagent

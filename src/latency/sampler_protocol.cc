#include "latency/sampler_protocol.h"

#include <charconv>
#include <cstring>

#include "base/kernel_text.h"

namespace rtagent {
namespace {

// Both sides of the stream are built from this file, so numbers are plain decimal and
// fields are separated by single spaces; the reader still checks every field.

std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

template <typename T>
bool ParseNumber(std::string_view text, T& out) {
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && p == end;
}

// "A:B:C" into three numbers.
template <typename A, typename B, typename C>
bool ParseTriple(std::string_view text, A& a, B& b, C& c) {
  const size_t p1 = text.find(':');
  if (p1 == std::string_view::npos) return false;
  const size_t p2 = text.find(':', p1 + 1);
  if (p2 == std::string_view::npos) return false;
  return ParseNumber(text.substr(0, p1), a) && ParseNumber(text.substr(p1 + 1, p2 - p1 - 1), b) &&
         ParseNumber(text.substr(p2 + 1), c);
}

std::string Events(const char* key, const std::vector<OverflowEvent>& events) {
  std::string line = key;
  for (const OverflowEvent& e : events) {
    line += ' ' + std::to_string(e.sample_index) + ':' + std::to_string(e.since_start_ns) + ':' +
            std::to_string(e.latency_ns);
  }
  return line + '\n';
}

Result<std::vector<OverflowEvent>> ParseEvents(const std::vector<std::string_view>& fields) {
  std::vector<OverflowEvent> out;
  for (std::string_view f : fields) {
    OverflowEvent e;
    if (!ParseTriple(f, e.sample_index, e.since_start_ns, e.latency_ns)) {
      return MakeError("unreadable overflow event '" + std::string(f) + "'", EPROTO);
    }
    out.push_back(e);
  }
  return out;
}

bool ParseBool(std::string_view text, bool& out) {
  if (text == "1") out = true;
  else if (text == "0") out = false;
  else return false;
  return true;
}

const char* Flag(bool b) { return b ? "1" : "0"; }

// "result INTERVAL ASKED ACTUAL PRIORITY FIFO LOCKED FALLBACK QOS|- INTERRUPTED": the run's
// settings, into `r`.
Result<void> ReadResultFields(const std::vector<std::string_view>& f, SamplerResult& r) {
  int64_t interval = 0, asked = 0, actual = 0;
  int priority = 0;
  bool fifo = false, locked = false, fallback = false, interrupted = false;
  if (f.size() != 9 || !ParseNumber(f[0], interval) || !ParseNumber(f[1], asked) || !ParseNumber(f[2], actual) ||
      !ParseNumber(f[3], priority) || !ParseBool(f[4], fifo) || !ParseBool(f[5], locked) ||
      !ParseBool(f[6], fallback) || !ParseBool(f[8], interrupted)) {
    return MakeError("an unreadable result line", EPROTO);
  }
  r.interval = std::chrono::microseconds(interval);
  r.duration_asked = std::chrono::nanoseconds(asked);
  r.duration_actual = std::chrono::nanoseconds(actual);
  r.priority_asked = priority;
  r.fifo = fifo;
  r.memory_locked = locked;
  r.unprivileged_fallback = fallback;
  r.interrupted = interrupted;
  if (f[7] != "-") {
    int32_t qos = 0;
    if (!ParseNumber(f[7], qos)) return MakeError("an unreadable PM QoS value", EPROTO);
    r.own_pm_qos_us = qos;
  }
  return Ok();
}

// "cpu CPU POLICY PRIORITY STOPPED ELAPSED LIMIT KEPT SAMPLES OVERFLOWS OVERFLOW_MAX MIN MAX SUM
// SKIPPED": one CPU's run and its histogram's parts (the bins zeroed, to be filled by "bins").
Result<void> ReadCpuFields(const std::vector<std::string_view>& f, CpuRun& c, HistogramParts& p, uint64_t& kept) {
  bool stopped = false;
  if (f.size() != 14 || !ParseNumber(f[0], c.cpu) || !ParseNumber(f[1], c.sched.policy) ||
      !ParseNumber(f[2], c.sched.priority) || !ParseBool(f[3], stopped) || !ParseNumber(f[4], c.elapsed_ns) ||
      !ParseNumber(f[5], p.limit_us) || !ParseNumber(f[6], kept) || !ParseNumber(f[7], p.samples) ||
      !ParseNumber(f[8], p.overflows) || !ParseNumber(f[9], p.overflow_max_ns) || !ParseNumber(f[10], p.min_ns) ||
      !ParseNumber(f[11], p.max_ns) || !ParseNumber(f[12], p.sum_ns) || !ParseNumber(f[13], p.skipped_periods) ||
      p.limit_us == 0) {
    return MakeError("an unreadable cpu line", EPROTO);
  }
  // The fuzzer's find: a limit of 2^32 µs made the reader allocate 32 GiB of bins.
  if (p.limit_us > Histogram::kMaxLimitUs || kept > Histogram::kMaxKeptEvents) {
    return MakeError("a cpu line with a histogram limit above " + std::to_string(Histogram::kMaxLimitUs) +
                         " µs or more than " + std::to_string(Histogram::kMaxKeptEvents) + " kept events",
                     EPROTO);
  }
  c.stopped_early = stopped;
  p.bins.assign(p.limit_us, 0);
  return Ok();
}

}  // namespace

std::string EncodeHello() { return "hello " + std::to_string(kSamplerProtocolVersion) + "\n"; }

std::string EncodeReady() { return "ready\n"; }

std::string EncodeProgress(const std::vector<CpuProgress>& progress) {
  std::string line = "progress";
  for (const CpuProgress& p : progress) {
    line += ' ' + std::to_string(p.cpu) + ':' + std::to_string(p.samples) + ':' +
            std::to_string(p.worst_ns ? *p.worst_ns : -1) + ':' + std::to_string(p.overflows);
  }
  return line + '\n';
}

std::string EncodeError(const Error& error) {
  return "error " + std::to_string(error.err) + ' ' + OneLine(error.message) + '\n';
}

std::string EncodeResult(const SamplerResult& r) {
  std::string out = "result " + std::to_string(r.interval.count()) + ' ' + std::to_string(r.duration_asked.count()) +
                    ' ' + std::to_string(r.duration_actual.count()) + ' ' + std::to_string(r.priority_asked) + ' ' +
                    Flag(r.fifo) + ' ' + Flag(r.memory_locked) + ' ' + Flag(r.unprivileged_fallback) + ' ' +
                    (r.own_pm_qos_us ? std::to_string(*r.own_pm_qos_us) : std::string("-")) + ' ' +
                    Flag(r.interrupted) + '\n';
  for (const std::string& n : r.notes) out += "note " + OneLine(n) + '\n';
  for (const CpuRun& c : r.cpus) {
    const Histogram& h = c.histogram;
    out += "cpu " + std::to_string(c.cpu) + ' ' + std::to_string(c.sched.policy) + ' ' +
           std::to_string(c.sched.priority) + ' ' + Flag(c.stopped_early) + ' ' + std::to_string(c.elapsed_ns) + ' ' +
           std::to_string(h.limit_us()) + ' ' + std::to_string(h.kept_events()) + ' ' + std::to_string(h.samples()) +
           ' ' + std::to_string(h.overflows()) + ' ' + std::to_string(h.overflow_max_ns()) + ' ' +
           std::to_string(h.min_ns()) + ' ' + std::to_string(h.max_ns()) + ' ' + std::to_string(h.sum_ns()) + ' ' +
           std::to_string(h.skipped_periods()) + '\n';
    // Bins sparse (index:count), empty ones left out: a run of a few µs fills a few dozen.
    out += "bins";
    const std::vector<uint64_t>& bins = h.bins();
    for (size_t i = 0; i < bins.size(); ++i) {
      if (bins[i] != 0) out += ' ' + std::to_string(i) + ':' + std::to_string(bins[i]);
    }
    out += '\n';
    out += Events("first", h.first_overflows());
    out += Events("worst", h.worst_overflows());
  }
  return out + "end\n";
}

std::vector<std::string> SamplerArgs(const std::string& binary, const SamplerConfig& c, const std::string& root_dir,
                                     int out_fd, int parent_pid) {
  std::vector<std::string> a = {binary,
                                "--out-fd", std::to_string(out_fd),
                                "--parent", std::to_string(parent_pid),
                                "--root", root_dir,
                                "--cpus", c.cpus.ToList(),
                                "--interval-us", std::to_string(c.interval.count()),
                                "--duration-ns", std::to_string(c.duration.count()),
                                "--priority", std::to_string(c.priority),
                                "--limit-us", std::to_string(c.histogram_limit_us),
                                "--kept", std::to_string(c.kept_overflow_events),
                                "--stack-bytes", std::to_string(c.stack_bytes),
                                "--prefault-bytes", std::to_string(c.stack_prefault_bytes)};
  if (c.hold_pm_qos_us) {
    a.push_back("--pm-qos-us");
    a.push_back(std::to_string(*c.hold_pm_qos_us));
  }
  if (!c.join_cgroup_dir.empty()) {
    a.push_back("--cgroup");
    a.push_back(c.join_cgroup_dir);
  }
  if (c.allow_unprivileged) a.push_back("--allow-unprivileged");
  return a;
}

Result<SamplerInvocation> ParseSamplerArgs(const std::vector<std::string>& args) {
  SamplerInvocation inv;
  SamplerConfig& c = inv.config;
  bool have_out = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& key = args[i];
    if (key == "--allow-unprivileged") {
      c.allow_unprivileged = true;
      continue;
    }
    if (i + 1 >= args.size()) return InvalidInput("argument " + key + " needs a value");
    const std::string& value = args[++i];
    auto bad = [&] { return InvalidInput("argument " + key + ": cannot read '" + value + "'"); };
    int64_t n = 0;
    if (key == "--root") {
      inv.root_dir = value;
    } else if (key == "--cgroup") {
      c.join_cgroup_dir = value;
    } else if (key == "--cpus") {
      auto cpus = CpuSet::ParseList(value);
      if (!cpus) return InvalidInput("argument --cpus: " + cpus.error().message);
      c.cpus = *cpus;
    } else if (!ParseNumber(value, n)) {
      return bad();
    } else if (key == "--out-fd") {
      inv.out_fd = static_cast<int>(n);
      have_out = true;
    } else if (key == "--parent") {
      inv.parent_pid = static_cast<int>(n);
    } else if (key == "--interval-us") {
      c.interval = std::chrono::microseconds(n);
    } else if (key == "--duration-ns") {
      c.duration = std::chrono::nanoseconds(n);
    } else if (key == "--priority") {
      c.priority = static_cast<int>(n);
    } else if (key == "--limit-us") {
      if (n < 0 || n > Histogram::kMaxLimitUs) return bad();
      c.histogram_limit_us = static_cast<uint32_t>(n);
    } else if (key == "--kept") {
      if (n < 0 || static_cast<unsigned long long>(n) > Histogram::kMaxKeptEvents) return bad();
      c.kept_overflow_events = static_cast<size_t>(n);
    } else if (key == "--stack-bytes") {
      if (n < 0) return bad();
      c.stack_bytes = static_cast<size_t>(n);
    } else if (key == "--prefault-bytes") {
      if (n < 0) return bad();
      c.stack_prefault_bytes = static_cast<size_t>(n);
    } else if (key == "--pm-qos-us") {
      c.hold_pm_qos_us = static_cast<int32_t>(n);
    } else {
      return InvalidInput("unknown argument " + key);
    }
  }
  if (!have_out || inv.out_fd < 0) return InvalidInput("argument --out-fd is required");
  return inv;
}

// ---- the reader ----

Result<void> SamplerStreamReader::Feed(std::string_view line) {
  auto broken = [&](const std::string& why) -> Result<void> {
    broken_ = true;
    return MakeError("the measuring process sent " + why + ": '" + std::string(line.substr(0, 120)) + "'", EPROTO);
  };
  if (broken_) return broken("a line after an unreadable one");
  if (ended_ || failed_) return broken("a line after its last one");
  const size_t sp = line.find(' ');
  const std::string_view key = line.substr(0, sp);
  const std::string_view rest = sp == std::string_view::npos ? std::string_view() : line.substr(sp + 1);
  if (!hello_) {
    int version = 0;
    if (key != "hello" || !ParseNumber(rest, version)) return broken("no greeting");
    if (version != kSamplerProtocolVersion) {
      return broken("protocol version " + std::to_string(version) + ", not " +
                    std::to_string(kSamplerProtocolVersion) + " (rtagent and rtagent-sampler come from different builds)");
    }
    hello_ = true;
    return Ok();
  }
  if (key == "error") {
    const size_t sp2 = rest.find(' ');
    int err = 0;
    if (!ParseNumber(rest.substr(0, sp2), err)) return broken("an unreadable error line");
    // The message was made by MakeError in the other process: it already names the errno.
    failed_ = Error{sp2 == std::string_view::npos ? std::string() : std::string(rest.substr(sp2 + 1)), err};
    return Ok();
  }
  if (key == "ready" && rest.empty() && !ready_) {
    ready_ = true;
    return Ok();
  }
  if (key == "progress" && ready_ && !in_result_) {
    std::vector<CpuProgress> progress;
    for (std::string_view f : SplitWs(rest)) {
      CpuProgress p;
      int64_t worst = -1;
      const size_t last = f.rfind(':');
      if (last == std::string_view::npos || !ParseNumber(f.substr(last + 1), p.overflows) ||
          !ParseTriple(f.substr(0, last), p.cpu, p.samples, worst) || worst < -1) {
        return broken("an unreadable progress line");
      }
      if (worst >= 0) p.worst_ns = worst;
      progress.push_back(p);
    }
    progress_ = std::move(progress);
    return Ok();
  }
  if (!ready_) return broken("a line before 'ready'");
  if (auto ok = FeedResultLine(key, rest); !ok) return broken(ok.error().message);
  return Ok();
}

Result<void> SamplerStreamReader::FeedResultLine(std::string_view key, std::string_view rest) {
  const std::vector<std::string_view> f = SplitWs(rest);
  if (key == "result" && !in_result_) {
    if (auto ok = ReadResultFields(f, result_); !ok) return ok;
    in_result_ = true;
    return Ok();
  }
  if (!in_result_) return MakeError("a line outside a result", EPROTO);
  if (key == "note") {
    result_.notes.emplace_back(rest);
    return Ok();
  }
  if (key == "cpu") {
    if (auto ok = FinishCpu(); !ok) return ok;
    CpuRun c;
    HistogramParts p;
    uint64_t kept = 0;
    if (auto ok = ReadCpuFields(f, c, p, kept); !ok) return ok;
    kept_ = static_cast<size_t>(kept);
    parts_ = std::move(p);
    cpu_ = std::move(c);
    return Ok();
  }
  if (key == "bins" && cpu_) {
    for (std::string_view b : f) {
      const size_t colon = b.find(':');
      uint64_t index = 0, count = 0;
      if (colon == std::string_view::npos || !ParseNumber(b.substr(0, colon), index) ||
          !ParseNumber(b.substr(colon + 1), count) || index >= parts_.bins.size()) {
        return MakeError("an unreadable bin '" + std::string(b) + "'", EPROTO);
      }
      parts_.bins[index] = count;
    }
    return Ok();
  }
  if ((key == "first" || key == "worst") && cpu_) {
    auto events = ParseEvents(f);
    if (!events) return events.error();
    (key == "first" ? parts_.first_overflows : parts_.worst_overflows) = std::move(*events);
    return Ok();
  }
  if (key == "end" && rest.empty()) {
    if (auto ok = FinishCpu(); !ok) return ok;
    ended_ = true;
    return Ok();
  }
  return MakeError("an unknown line", EPROTO);
}

Result<void> SamplerStreamReader::FinishCpu() {
  if (!cpu_) return Ok();
  auto h = Histogram::Restore(std::move(parts_), kept_);
  if (!h) return MakeError("CPU " + std::to_string(cpu_->cpu) + ": " + h.error().message, EPROTO);
  cpu_->histogram = std::move(*h);
  result_.cpus.push_back(std::move(*cpu_));
  cpu_.reset();
  parts_ = HistogramParts();
  return Ok();
}

Result<SamplerResult> SamplerStreamReader::TakeResult() {
  if (failed_) return *failed_;
  if (!ended_) return MakeError("the measuring process ended before it sent a whole result", EPROTO);
  return std::move(result_);
}

}  // namespace rtagent

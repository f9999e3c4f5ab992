#include "trace/ftrace_text.h"

#include <algorithm>
#include <limits>
#include <set>

#include "base/kernel_text.h"

namespace rtagent {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// "5075.958079" or "548.771077442" -> ns; the fraction may have 1 to 9 digits. Seconds are
// capped so that a garbage number cannot overflow.
std::optional<int64_t> ParseSeconds(std::string_view s) {
  size_t dot = s.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 >= s.size()) return std::nullopt;
  std::string_view whole = s.substr(0, dot), frac = s.substr(dot + 1);
  if (whole.size() > 10 || frac.size() > 9) return std::nullopt;
  int64_t sec = 0;
  for (char c : whole) {
    if (!IsDigit(c)) return std::nullopt;
    sec = sec * 10 + (c - '0');
  }
  int64_t ns = 0;
  for (char c : frac) {
    if (!IsDigit(c)) return std::nullopt;
    ns = ns * 10 + (c - '0');
  }
  for (size_t i = frac.size(); i < 9; ++i) ns *= 10;
  return sec * 1000000000 + ns;
}

// One event line, or nullopt. The task field is "comm-pid", right-aligned, and the comm may
// hold spaces and dashes: it is everything before the CPU field, split at its last '-'.
std::optional<TraceEvent> ParseEventLine(std::string_view line, size_t number) {
  // The CPU field: the first "[digits]" that is followed by the timestamp somewhere later.
  size_t lb = std::string_view::npos;
  for (size_t p = line.find('['); p != std::string_view::npos; p = line.find('[', p + 1)) {
    size_t rb = line.find(']', p);
    if (rb == std::string_view::npos) return std::nullopt;
    std::string_view inner = line.substr(p + 1, rb - p - 1);
    if (!inner.empty() && inner.size() <= 6 && std::all_of(inner.begin(), inner.end(), IsDigit)) {
      lb = p;
      break;
    }
  }
  if (lb == std::string_view::npos || lb == 0) return std::nullopt;
  size_t rb = line.find(']', lb);
  TraceEvent e;
  e.line = number;
  auto cpu = ParseInt(line.substr(lb + 1, rb - lb - 1));
  if (!cpu || *cpu < 0 || *cpu > 65535) return std::nullopt;
  e.cpu = static_cast<int>(*cpu);

  // The task: "comm-pid" or "comm-pid (tgid)".
  std::string_view task = TrimView(line.substr(0, lb));
  if (!task.empty() && task.back() == ')') {
    size_t open = task.rfind('(');
    if (open == std::string_view::npos) return std::nullopt;
    task = TrimView(task.substr(0, open));
  }
  size_t dash = task.rfind('-');
  if (dash == std::string_view::npos || dash == 0) return std::nullopt;
  auto pid = ParseInt(task.substr(dash + 1));
  if (!pid || *pid < 0 || *pid > std::numeric_limits<int>::max()) return std::nullopt;
  e.pid = static_cast<int>(*pid);
  e.comm = std::string(task.substr(0, dash));

  // After the CPU: optional flags ("d.h1."), then "SECONDS.FRACTION:", then the event.
  std::string_view rest = line.substr(rb + 1);
  auto words = SplitWs(rest);
  size_t ts_word = 0;
  std::optional<int64_t> ts;
  for (; ts_word < words.size() && ts_word < 3; ++ts_word) {
    std::string_view w = words[ts_word];
    if (w.size() >= 2 && w.back() == ':' && (ts = ParseSeconds(w.substr(0, w.size() - 1)))) break;
  }
  if (!ts) return std::nullopt;
  e.ts_ns = *ts;
  // The text after the timestamp's colon, from the original line (arguments keep their spaces).
  const char* after = words[ts_word].data() + words[ts_word].size();
  std::string_view body = TrimView(std::string_view(after, static_cast<size_t>(line.data() + line.size() - after)));
  if (body.empty()) return std::nullopt;
  if (body.front() == '#') {
    // The tracers' own records: "#1 context irq timer_latency ..." (timerlat), "#1 inner/outer(us): ..." (hwlat).
    e.name = body.find("timer_latency") != std::string_view::npos ? "timerlat"
             : body.find("inner/outer") != std::string_view::npos ? "hwlat"
                                                                   : "tracer";
    e.args = std::string(body);
    return e;
  }
  size_t colon = body.find(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  std::string_view name = body.substr(0, colon);
  if (name.find(' ') != std::string_view::npos) return std::nullopt;
  e.name = std::string(name);
  e.args = std::string(TrimView(body.substr(colon + 1)));
  // trace-cmd report prints a trace marker as "print: <ip> text" or "print: tracing_mark_write: text".
  if (e.name == "print") {
    std::string_view a = e.args;
    if (a.rfind("tracing_mark_write:", 0) == 0) a = TrimView(a.substr(19));
    e.name = "tracing_mark_write";
    e.args = std::string(a);
  }
  // A timerlat record through trace-cmd: "timerlat_sample: ..." is kept by name; its text
  // is the same "#N context ..." line.
  return e;
}

}  // namespace

std::string TraceEvent::Field(std::string_view key) const {
  std::string_view a = args;
  for (size_t p = 0; p < a.size();) {
    size_t at = a.find(key, p);
    if (at == std::string_view::npos) return {};
    const bool starts = at == 0 || a[at - 1] == ' ';
    const size_t eq = at + key.size();
    if (!starts || eq >= a.size() || a[eq] != '=') {
      p = at + 1;
      continue;
    }
    size_t end = a.find(' ', eq + 1);
    if (key.size() >= 4 && key.substr(key.size() - 4) == "comm") {
      // A comm may hold spaces: it runs to the next " word=".
      size_t scan = eq + 1;
      end = std::string_view::npos;
      while ((scan = a.find(' ', scan)) != std::string_view::npos) {
        size_t next_eq = a.find('=', scan + 1);
        size_t next_sp = a.find(' ', scan + 1);
        if (next_eq != std::string_view::npos && (next_sp == std::string_view::npos || next_eq < next_sp)) {
          end = scan;
          break;
        }
        ++scan;
      }
    }
    return std::string(a.substr(eq + 1, end == std::string_view::npos ? std::string_view::npos : end - eq - 1));
  }
  return {};
}

std::optional<int64_t> TraceEvent::IntField(std::string_view key) const {
  std::string v = Field(key);
  if (v.empty()) return std::nullopt;
  auto n = ParseInt(v);
  if (!n) return std::nullopt;
  return static_cast<int64_t>(*n);
}

Result<ParsedTrace> ParseFtraceText(std::string_view text) {
  if (TrimView(text).empty()) return MakeError("the trace is empty");
  ParsedTrace out;
  std::set<int> cpus;
  size_t first_bad = 0;
  std::string first_bad_text;
  size_t number = 0;
  for (std::string_view line : SplitLines(text)) {
    ++number;
    std::string_view t = TrimView(line);
    if (t.empty()) continue;
    if (t.front() == '#') {
      if (t.rfind("# tracer:", 0) == 0) out.tracer = std::string(TrimView(t.substr(9)));
      continue;
    }
    if (t.find("[LOST") != std::string_view::npos && t.find("EVENTS]") != std::string_view::npos) {
      out.losses.emplace_back(t);
      continue;
    }
    // trace-cmd report's header lines ("cpus=4", "version = 6", "CPU 0 is empty").
    if (t.rfind("cpus=", 0) == 0 || t.rfind("version", 0) == 0 || t.rfind("CPU ", 0) == 0 ||
        t.rfind("trace-cmd:", 0) == 0) {
      continue;
    }
    auto e = ParseEventLine(line, number);
    if (!e) {
      ++out.unreadable_lines;
      if (first_bad == 0) {
        first_bad = number;
        first_bad_text = std::string(t.substr(0, 80));
      }
      continue;
    }
    cpus.insert(e->cpu);
    out.events.push_back(std::move(*e));
  }
  if (out.events.empty()) {
    if (first_bad != 0) {
      return MakeError("not a kernel trace in text form: line " + std::to_string(first_bad) + " (\"" + first_bad_text +
                           "\") is not an event line (COMM-PID [CPU] SECONDS: EVENT: ARGS)",
                       0);
    }
    return MakeError("the trace holds no event (only comments and headers)");
  }
  out.cpus.assign(cpus.begin(), cpus.end());
  return out;
}

}  // namespace rtagent

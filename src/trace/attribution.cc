#include "trace/attribution.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>

#include "base/kernel_text.h"

namespace rtagent {
namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
constexpr int64_t kAlways = std::numeric_limits<int64_t>::min();

// Softirq kinds by vector (include/linux/interrupt.h, softirq_to_name).
const char* const kSoftirqNames[] = {"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU"};

std::string SoftirqName(int64_t vec) {
  if (vec >= 0 && vec < static_cast<int64_t>(std::size(kSoftirqNames))) return kSoftirqNames[vec];
  return "vector " + std::to_string(vec);
}

// "duration 7597 ns" -> 7597.
std::optional<int64_t> NoiseDuration(const std::string& args) {
  size_t d = args.find("duration ");
  if (d == std::string::npos) return std::nullopt;
  auto words = SplitWs(std::string_view(args).substr(d + 9));
  if (words.empty()) return std::nullopt;
  auto n = ParseInt(words[0]);
  if (!n || *n < 0) return std::nullopt;
  return static_cast<int64_t>(*n);
}

// The "name:number" before " start " of an osnoise noise event ("local_timer:236",
// "virtio0-req.2:25", "noise spin:412"), split at the last colon.
bool NoiseSubject(const std::string& args, std::string& name, int64_t& number) {
  size_t s = args.find(" start ");
  if (s == std::string::npos) return false;
  std::string_view subject = TrimView(std::string_view(args).substr(0, s));
  size_t colon = subject.rfind(':');
  if (colon == std::string_view::npos) return false;
  auto n = ParseInt(subject.substr(colon + 1));
  if (!n) return false;
  name = std::string(TrimView(subject.substr(0, colon)));
  number = *n;
  return true;
}

// A timerlat record: "#402268 context    irq timer_latency     13585 ns".
struct TimerlatSample {
  int64_t seq = 0;
  bool thread = false;
  int64_t latency_ns = 0;
};
std::optional<TimerlatSample> ParseTimerlat(const std::string& args) {
  auto words = SplitWs(args);
  if (words.size() < 5 || words[0].size() < 2 || words[0][0] != '#' || words[1] != "context") return std::nullopt;
  auto seq = ParseInt(words[0].substr(1));
  if (!seq) return std::nullopt;
  TimerlatSample t;
  t.seq = *seq;
  if (words[2] == "thread") {
    t.thread = true;
  } else if (words[2] != "irq") {
    return std::nullopt;  // "user-ret" and later contexts are not wake-ups of a thread
  }
  for (size_t i = 3; i + 1 < words.size(); ++i) {
    if (words[i] == "timer_latency") {
      auto n = ParseInt(words[i + 1]);
      if (!n || *n < 0) return std::nullopt;
      t.latency_ns = *n;
      return t;
    }
  }
  return std::nullopt;
}

// ---- the CPU's timeline ----

struct Span {
  int level = 0;  // 1 softirq, 2 IRQ, 3 NMI
  int64_t start = kAlways, end = kNever;
  std::string kind;  // "irq", "softirq", "nmi"
  std::string name;
  std::optional<int> number;
};

struct Task {
  int pid = -1;
  std::string comm;
  std::optional<int> prio;  // kernel priority
};

struct Switch {
  int64_t ts = 0;
  Task prev, next;
};

Task NextOf(const TraceEvent& e) {
  Task t;
  t.pid = static_cast<int>(e.IntField("next_pid").value_or(-1));
  t.comm = e.Field("next_comm");
  if (auto p = e.IntField("next_prio")) t.prio = static_cast<int>(*p);
  return t;
}
Task PrevOf(const TraceEvent& e) {
  Task t;
  t.pid = static_cast<int>(e.IntField("prev_pid").value_or(-1));
  t.comm = e.Field("prev_comm");
  if (auto p = e.IntField("prev_prio")) t.prio = static_cast<int>(*p);
  return t;
}

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

struct Timeline {
  std::vector<Span> spans;
  std::vector<Switch> switches;
  std::vector<Span> thread_noise;  // osnoise thread_noise, used when there is no sched_switch
  std::map<std::string, std::vector<size_t>> open;  // entry events waiting for their exit
  std::vector<std::string> families;
};

void AddFamily(Timeline& t, const std::string& f) {
  if (std::find(t.families.begin(), t.families.end(), f) == t.families.end()) t.families.push_back(f);
}

void Open(Timeline& t, const std::string& key, Span s) {
  t.spans.push_back(std::move(s));
  t.open[key].push_back(t.spans.size() - 1);
}
void Close(Timeline& t, const std::string& key, int64_t ts, Span if_unopened) {
  auto it = t.open.find(key);
  if (it != t.open.end() && !it->second.empty()) {
    t.spans[it->second.back()].end = ts;
    it->second.pop_back();
    return;
  }
  // The trace began inside it.
  if_unopened.end = ts;
  t.spans.push_back(std::move(if_unopened));
}

Timeline BuildTimeline(const ParsedTrace& trace, int cpu) {
  Timeline t;
  for (const TraceEvent& e : trace.events) {
    if (e.cpu != cpu) continue;
    const std::string& n = e.name;
    if (n == "sched_switch") {
      t.switches.push_back({e.ts_ns, PrevOf(e), NextOf(e)});
      AddFamily(t, "sched_switch");
    } else if (n == "irq_handler_entry" || n == "irq_handler_exit") {
      auto irq = e.IntField("irq");
      if (!irq) continue;
      const std::string key = "irq" + std::to_string(*irq);
      Span s{2, kAlways, kNever, "irq", e.Field("name"), static_cast<int>(*irq)};
      if (n == "irq_handler_entry") {
        s.start = e.ts_ns;
        Open(t, key, s);
      } else {
        Close(t, key, e.ts_ns, s);
      }
      AddFamily(t, "irq");
    } else if (n == "softirq_entry" || n == "softirq_exit") {
      auto vec = e.IntField("vec");
      if (!vec) continue;
      const std::string key = "softirq" + std::to_string(*vec);
      Span s{1, kAlways, kNever, "softirq", SoftirqName(*vec), static_cast<int>(*vec)};
      if (n == "softirq_entry") {
        s.start = e.ts_ns;
        Open(t, key, s);
      } else {
        Close(t, key, e.ts_ns, s);
      }
      AddFamily(t, "irq");
    } else if ((EndsWith(n, "_entry") || EndsWith(n, "_exit")) && e.IntField("vector")) {
      // x86 arch vectors (irq_vectors: local_timer_entry, reschedule_entry, call_function_entry...).
      const bool entry = EndsWith(n, "_entry");
      const std::string base = n.substr(0, n.size() - (entry ? 6 : 5));
      const int vec = static_cast<int>(*e.IntField("vector"));
      Span s{2, kAlways, kNever, "irq", base, vec};
      if (entry) {
        s.start = e.ts_ns;
        Open(t, "vec" + base, s);
      } else {
        Close(t, "vec" + base, e.ts_ns, s);
      }
      AddFamily(t, "irq_vectors");
    } else if (n == "nmi_handler") {
      auto d = e.IntField("delta_ns");
      if (!d || *d < 0) continue;
      t.spans.push_back({3, e.ts_ns - *d, e.ts_ns, "nmi", "NMI", std::nullopt});
      AddFamily(t, "nmi");
    } else if (n == "irq_noise" || n == "softirq_noise" || n == "nmi_noise" || n == "thread_noise") {
      // osnoise: recorded when the noise ended; its duration leaves out what interrupted it.
      auto d = NoiseDuration(e.args);
      if (!d) continue;
      AddFamily(t, "osnoise");
      if (n == "nmi_noise") {
        t.spans.push_back({3, e.ts_ns - *d, e.ts_ns, "nmi", "NMI", std::nullopt});
        continue;
      }
      std::string name;
      int64_t number = 0;
      if (!NoiseSubject(e.args, name, number)) continue;
      if (n == "irq_noise") {
        t.spans.push_back({2, e.ts_ns - *d, e.ts_ns, "irq", name, static_cast<int>(number)});
      } else if (n == "softirq_noise") {
        t.spans.push_back({1, e.ts_ns - *d, e.ts_ns, "softirq", name, static_cast<int>(number)});
      } else {
        t.thread_noise.push_back({0, e.ts_ns - *d, e.ts_ns, "thread", name, static_cast<int>(number)});
      }
    }
  }
  return t;
}

// The task on the CPU at `ts` (after every switch at or before it).
std::optional<Task> CurrentAt(const Timeline& t, int64_t ts) {
  std::optional<Task> cur;
  for (const Switch& s : t.switches) {
    if (s.ts <= ts) {
      cur = s.next;
    } else {
      if (!cur) cur = s.prev;  // before the first switch: its previous task
      break;
    }
  }
  return cur;
}

std::string TaskName(const Task& t) { return (t.comm.empty() ? std::string("<...>") : t.comm) + ":" + std::to_string(t.pid); }

Cause ThreadCause(const std::string& kind, const Task& t) {
  Cause c;
  c.kind = kind;
  c.name = TaskName(t);
  c.pid = t.pid;
  c.comm = t.comm;
  if (t.prio) {
    const int p = *t.prio;
    c.policy = p < 0 ? "DEADLINE" : p < 100 ? "RT" : "OTHER";
    if (p >= 0) c.priority = p < 100 ? 99 - p : p - 120;
  }
  return c;
}

// x86's own interrupt vectors (arch/x86/include/asm/trace/irq_vectors.h), which osnoise and
// irq_vectors name by kind: their number is a vector, not an IRQ.
bool IsArchVector(const std::string& name) {
  static const char* const kVectors[] = {"local_timer", "spurious_apic", "error_apic", "x86_platform_ipi",
                                         "irq_work", "reschedule", "call_function", "call_function_single",
                                         "thermal_apic", "threshold_apic", "deferred_error_apic", "reboot"};
  return std::find(std::begin(kVectors), std::end(kVectors), name) != std::end(kVectors);
}

std::string IrqName(const Span& s) {
  if (!s.number) return s.name;
  if (IsArchVector(s.name)) return s.name + " (vector " + std::to_string(*s.number) + ")";
  return "IRQ " + std::to_string(*s.number) + " (" + s.name + ")";
}

// "irq/25-virtio0" is the threaded handler of IRQ 25 (PREEMPT_RT, threadirqs).
std::string IrqThreadNote(const std::string& comm) {
  if (comm.rfind("irq/", 0) != 0) return "";
  size_t dash = comm.find('-');
  return "the threaded handler of IRQ " + comm.substr(4, dash == std::string::npos ? std::string::npos : dash - 4);
}

}  // namespace

int64_t Attribution::TotalNs() const {
  int64_t sum = 0;
  for (const Cause& c : causes) sum += c.ns;
  return sum;
}

std::vector<LateWakeup> FindWakeups(const ParsedTrace& trace) {
  std::vector<LateWakeup> out;
  // timerlat: the IRQ sample of each sequence number per CPU, then its thread sample.
  std::map<std::pair<int, int64_t>, std::pair<int64_t, int64_t>> irq;  // (cpu, seq) -> (ts, latency)
  for (const TraceEvent& e : trace.events) {
    if (e.name != "timerlat" && e.name != "timerlat_sample") continue;
    auto s = ParseTimerlat(e.args);
    if (!s) continue;
    if (!s->thread) {
      irq[{e.cpu, s->seq}] = {e.ts_ns, s->latency_ns};
      continue;
    }
    LateWakeup w;
    w.cpu = e.cpu;
    w.latency_ns = s->latency_ns;
    w.pid = e.pid;
    w.comm = e.comm;
    w.source = "timerlat";
    auto it = irq.find({e.cpu, s->seq});
    // The timer's expiry: the IRQ sample's time less its latency (rtla's "expected start").
    w.deadline_ns = it != irq.end() ? it->second.first - it->second.second : e.ts_ns - s->latency_ns;
    if (it != irq.end()) w.irq_latency_ns = it->second.second;
    w.end_ns = w.deadline_ns + w.latency_ns;
    w.sample_ns = e.ts_ns;
    out.push_back(w);
  }
  return out;
}

Result<LateWakeup> PickWakeup(const ParsedTrace& trace, const WakeupQuery& q) {
  const std::vector<LateWakeup> all = FindWakeups(trace);
  const LateWakeup* best = nullptr;
  size_t on_cpu = 0;
  for (const LateWakeup& w : all) {
    if (!q.cpus.Empty() && !q.cpus.Has(w.cpu)) continue;
    ++on_cpu;
    if (q.threshold_ns) {
      if (w.latency_ns > *q.threshold_ns) return w;
      continue;
    }
    if (best == nullptr || w.latency_ns > best->latency_ns) best = &w;
  }
  const std::string where = q.cpus.Empty() ? "" : " on CPU " + q.cpus.ToList();
  if (on_cpu == 0) {
    return MakeError("the trace holds no wake-up to explain" + where +
                     ": no timerlat thread sample (record it with the timerlat tracer)");
  }
  if (best == nullptr) {
    return MakeError("no wake-up" + where + " in the trace was later than " + std::to_string(*q.threshold_ns / 1000) +
                     " µs (" + std::to_string(on_cpu) + " looked at)");
  }
  return *best;
}

Result<LateWakeup> ChooseWakeup(const ParsedTrace& trace, const WakeupQuery& query, bool& crossed) {
  auto first = PickWakeup(trace, query);
  crossed = query.threshold_ns.has_value() && static_cast<bool>(first);
  if (first || !query.threshold_ns) return first;
  WakeupQuery worst = query;
  worst.threshold_ns.reset();
  return PickWakeup(trace, worst);
}

namespace {

// The woken thread's rank: from its wake-up or from the switch to it; and when it was woken.
struct OwnWakeup {
  std::optional<int> prio;
  std::optional<int64_t> ts;
};

OwnWakeup FindOwnWakeup(const ParsedTrace& trace, const Timeline& t, const LateWakeup& w) {
  OwnWakeup o;
  for (const TraceEvent& e : trace.events) {
    if ((e.name == "sched_wakeup" || e.name == "sched_waking") && e.IntField("pid") == w.pid &&
        e.ts_ns >= w.deadline_ns - 1000 && e.ts_ns <= w.end_ns) {
      if (!o.ts) o.ts = e.ts_ns;
      if (auto p = e.IntField("prio")) o.prio = static_cast<int>(*p);
    }
  }
  for (const Switch& s : t.switches) {
    if (s.next.pid == w.pid && s.next.prio && !o.prio) o.prio = s.next.prio;
  }
  return o;
}

// The timer's IRQ: the IRQ that woke the thread (it contains the wake-up), else the one that
// holds the timerlat IRQ sample, else the first timer IRQ of the window.
const Span* FindTimerIrq(const Timeline& t, const LateWakeup& w, std::optional<int64_t> anchor) {
  const Span* timer = nullptr;
  for (const Span& s : t.spans) {
    if (s.level != 2) continue;
    if (anchor && s.start <= *anchor && *anchor <= s.end && s.end >= w.deadline_ns) {
      if (timer == nullptr || s.start > timer->start) timer = &s;  // the innermost
    }
  }
  if (timer != nullptr) return timer;
  for (const Span& s : t.spans) {
    if (s.level == 2 && s.start >= w.deadline_ns && s.start < w.end_ns && s.name.find("timer") != std::string::npos &&
        (timer == nullptr || s.start < timer->start)) {
      timer = &s;
    }
  }
  return timer;
}

// Every boundary inside the window, sorted and unique.
std::vector<int64_t> Cuts(const Timeline& t, int64_t w0, int64_t w1, int64_t timer_start, std::optional<int64_t> wakeup_ts) {
  std::vector<int64_t> cuts = {w0, w1, timer_start};
  if (wakeup_ts) cuts.push_back(*wakeup_ts);
  for (const Span& s : t.spans) cuts.insert(cuts.end(), {s.start, s.end});
  for (const Span& s : t.thread_noise) cuts.insert(cuts.end(), {s.start, s.end});
  for (const Switch& s : t.switches) cuts.push_back(s.ts);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  return cuts;
}

// The causes, summed by kind and name, in the order first met.
class CauseRows {
 public:
  void Add(Cause c, int64_t ns) {
    const std::string key = c.kind + "|" + c.name;
    auto it = rows_.find(key);
    if (it == rows_.end()) {
      c.ns = 0;
      it = rows_.emplace(key, std::move(c)).first;
      order_.push_back(key);
    }
    it->second.ns += ns;
  }
  /// Largest first (ties in the order first met).
  std::vector<Cause> Take() {
    std::vector<Cause> out;
    for (const std::string& k : order_) out.push_back(std::move(rows_[k]));
    std::stable_sort(out.begin(), out.end(), [](const Cause& x, const Cause& y) { return x.ns > y.ns; });
    return out;
  }

 private:
  std::map<std::string, Cause> rows_;
  std::vector<std::string> order_;
};

// The innermost IRQ, softirq or NMI span holding [a0, a1], or nullptr.
const Span* InnermostSpan(const Timeline& t, int64_t a0, int64_t a1) {
  const Span* top = nullptr;
  for (const Span& s : t.spans) {
    if (s.start <= a0 && a1 <= s.end &&
        (top == nullptr || s.level > top->level || (s.level == top->level && s.start > top->start))) {
      top = &s;
    }
  }
  return top;
}

Cause SpanCause(const Span& top, const Span* timer, bool before_timer) {
  Cause c;
  c.irq = top.number;
  if (&top == timer) {
    c.kind = "timer_irq";
    c.name = "timer IRQ handler (" + top.name + ")";
    c.detail = "the timer's interrupt handler, which wakes the thread";
  } else if (top.kind == "irq") {
    c.kind = "irq";
    c.name = IrqName(top);
    c.detail = before_timer ? "an interrupt handler that ran before the timer's could"
                            : "an interrupt handler that ran before the thread could";
  } else if (top.kind == "softirq") {
    c.kind = "softirq";
    c.name = "softirq " + top.name;
    c.detail = "deferred interrupt work (a softirq) run on the CPU";
  } else {
    c.kind = "nmi";
    c.name = "NMI";
    c.detail = "a non-maskable interrupt";
  }
  return c;
}

// No event says which task ran: before the timer's IRQ, the IRQ was late; after it, unexplained.
Cause UnknownTaskCause(bool before_timer) {
  Cause c;
  if (before_timer) {
    c.kind = "timer_irq_delay";
    c.name = "timer IRQ delay";
    c.detail = "the timer's interrupt was held back (interrupts off, or the CPU leaving idle)";
  } else {
    c.kind = "unexplained";
    c.name = "not explained by the trace";
    c.detail = "no event says what the CPU did (a hypervisor or the firmware can take it unseen)";
  }
  return c;
}

// The task `cur` ran during a piece of the window.
Cause TaskCause(const Task& cur, const LateWakeup& w, std::optional<int> own_prio, bool before_timer) {
  if (before_timer) {
    Cause c = ThreadCause("timer_irq_delay", cur);
    c.name = cur.pid == 0 ? "timer IRQ delay: exit from idle" : "timer IRQ delay: IRQs off in " + TaskName(cur);
    c.detail = cur.pid == 0 ? "the CPU was idle: the wake from its idle state delayed the timer's interrupt"
                            : "the timer's interrupt was held back while this task ran with interrupts off";
    if (cur.pid == 0) {  // the idle task has no rank to show
      c.pid.reset();
      c.comm.clear();
      c.policy.clear();
      c.priority.reset();
    }
    return c;
  }
  Cause c;
  if (cur.pid == w.pid) {
    c.kind = "wakeup_path";
    c.name = "the woken thread's own wake-up path";
    c.pid = w.pid;
    c.comm = w.comm;
    c.detail = "context switch to the thread and its return to user space";
    return c;
  }
  if (cur.pid == 0) {
    c.kind = "wakeup_path";
    c.name = "switch from idle";
    c.detail = "the scheduler leaving the idle task for the woken thread";
    return c;
  }
  const bool above = cur.prio && own_prio && *cur.prio < *own_prio;
  c = ThreadCause(above || !own_prio ? "thread" : "blocking", cur);
  c.detail = c.kind == "thread" ? "a thread ranked above the woken one ran first"
                                : "ranked at or below the woken thread, it kept the CPU (preemption or interrupts off, "
                                  "or the woken thread was not yet runnable)";
  if (std::string n = IrqThreadNote(cur.comm); !n.empty()) c.detail = n + "; " + c.detail;
  return c;
}

// The task on the CPU over [a0, a1]: from sched_switch, else from osnoise's thread_noise.
std::optional<Task> TaskDuring(const Timeline& t, bool have_switches, int64_t a0, int64_t a1) {
  if (have_switches) return CurrentAt(t, a0);
  std::optional<Task> cur;
  for (const Span& s : t.thread_noise) {
    if (s.start <= a0 && a1 <= s.end) cur = Task{s.number.value_or(-1), s.name, std::nullopt};
  }
  return cur;
}

// The part of the latency the trace's clock did not see: timerlat measures on its hrtimer's
// clock (CLOCK_MONOTONIC), the events are stamped with the trace clock. When the thread's own
// sample is stamped well before deadline + latency, the two clocks disagree (sched_clock in a
// virtual machine can stand still for a jiffy): the pieces stop at the sample and the rest is
// one row that says so, so the rows still add up to the measured latency. Up to 5 % of the
// latency (at least 1 µs, the text format's resolution) is the clocks' ordinary disagreement and
// stays with the pieces.
int64_t ClockSlackNs(int64_t latency_ns) { return std::max<int64_t>(1000, latency_ns / 20); }

std::string Us(int64_t ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", static_cast<double>(ns) / 1000.0);
  return b;
}

Cause ClockGapCause() {
  Cause c;
  c.kind = "clock_gap";
  c.name = "not seen on the trace's clock";
  c.detail = "timerlat measured this much more than the trace's time stamps show between the timer's expiry and "
             "the thread's sample: the trace clock and timerlat's disagree (a virtual machine's unstable clock)";
  return c;
}

}  // namespace

Attribution Attribute(const ParsedTrace& trace, const LateWakeup& w) {
  Attribution a;
  a.wakeup = w;
  const int64_t w0 = w.deadline_ns;
  int64_t w1 = w.end_ns;
  if (w.sample_ns && *w.sample_ns < w.end_ns - ClockSlackNs(w.latency_ns)) {
    w1 = std::max(w0, *w.sample_ns);
    a.notes.push_back("the trace's clock saw " + Us(w1 - w0) + " µs from the timer's expiry to the thread's " +
                      "sample where timerlat measured " + Us(w.latency_ns) +
                      " µs: the causes cover what the trace saw, the rest is one row (record with trace_clock mono, "
                      "as rtagent does, so the two agree)");
  }
  // 1. The CPU's timeline and what the trace could tell.
  Timeline t = BuildTimeline(trace, w.cpu);
  a.events = t.families.empty() ? "none" : "";
  for (const std::string& f : t.families) a.events += (a.events.empty() ? "" : ", ") + f;
  if (!trace.losses.empty()) {
    a.notes.push_back("the kernel lost events while recording (" + trace.losses.front() +
                      "): parts of the window may be missing");
  }
  const bool have_switches = !t.switches.empty();
  if (!have_switches) {
    a.notes.push_back("no sched_switch events on CPU " + std::to_string(w.cpu) +
                      ": threads are named from osnoise's thread_noise only");
  }
  // 2. The woken thread and the timer's IRQ that woke it.
  const OwnWakeup own = FindOwnWakeup(trace, t, w);
  std::optional<int64_t> anchor = own.ts;
  if (!anchor && w.irq_latency_ns) anchor = w0 + *w.irq_latency_ns;
  const Span* timer = FindTimerIrq(t, w, anchor);
  const int64_t timer_start = timer ? std::max(timer->start, w0) : (anchor ? *anchor : w0);
  if (timer) a.timer_irq_start_ns = timer_start - w0;
  // 3. Each piece of the window between two boundaries, to its innermost cause.
  const std::vector<int64_t> cuts = Cuts(t, w0, w1, timer_start, own.ts);
  CauseRows rows;
  bool unknown_task = false;
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    const int64_t a0 = cuts[i], a1 = cuts[i + 1];
    if (a1 <= w0 || a0 >= w1) continue;
    const int64_t ns = std::min(a1, w1) - std::max(a0, w0);
    const bool before_timer = a0 < timer_start;
    if (const Span* top = InnermostSpan(t, a0, a1)) {
      rows.Add(SpanCause(*top, timer, before_timer), ns);
    } else if (std::optional<Task> cur = TaskDuring(t, have_switches, a0, a1)) {
      rows.Add(TaskCause(*cur, w, own.prio, before_timer), ns);
    } else {
      unknown_task = unknown_task || !before_timer;
      rows.Add(UnknownTaskCause(before_timer), ns);
    }
  }
  if (w1 < w.end_ns) rows.Add(ClockGapCause(), w.end_ns - w1);
  if (unknown_task && !have_switches) a.notes.push_back("parts of the window have no event at all");
  // 4. Largest first.
  a.causes = rows.Take();
  return a;
}

}  // namespace rtagent

// interrupts: /proc/interrupts and /proc/softirqs read twice over a window; every row whose
// count moved on an isolated CPU, as a rate per second per CPU, against the profile's
// allow-list (irqs.allowed, irqs.allowed_softirqs). Real-Time Linux, Chapter 6 ("Read
// /proc/interrupts ... twice, ten seconds apart"; isolcpus moves programs, never taps) and
// the Field Guide's item 11.
#include <cstdio>

#include "check/chapters.h"
#include "check/check.h"
#include "inspect/interrupt_counts.h"

namespace rtagent::check {
namespace {

// checks.interrupts in the profile.
struct InterruptsSettings {
  profile::Marked<bool> enabled;
  profile::Marked<Duration> window;
};

constexpr Duration kMinWindow = std::chrono::milliseconds(100);

const profile::CheckBlock<InterruptsSettings>& Settings() {
  static const profile::CheckBlock<InterruptsSettings> kSettings{
      "interrupts",
      "the counts of /proc/interrupts and /proc/softirqs read twice; every line that moved on an isolated CPU against `irqs.allowed`",
      {profile::Dur("window", &InterruptsSettings::window, kMinWindow, std::chrono::seconds(10),
                    "time between the two readings")}};
  return kSettings;
}

constexpr const char* kTickNote =
    "on a nohz_full CPU the tick stops \"whenever possible\": with one task running a residual tick of about "
    "once a second remains (Chapter 6); a rate near HZ means it did not stop (more than one runnable task, or "
    "timers and RCU work left on the CPU)";

std::string Rate(double per_second) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f/s", per_second);
  return buf;
}

std::string Limit(const profile::IrqAllowance& a) {
  if (!a.per_second) return "any rate";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g/s", *a.per_second);
  return buf;
}

// "IRQ 125 (eno1, IR-PCI-MSI)", "LOC (Local timer interrupts)", "softirq NET_RX".
std::string Label(const CounterRow& row) {
  if (row.source == CounterSource::kSoftirqs) return "softirq " + row.id;
  if (row.irq >= 0) {
    std::string what = row.name.empty() ? "no handler named" : row.name;
    if (!row.chip.empty()) what += ", " + row.chip;
    return "IRQ " + row.id + " (" + what + ")";
  }
  return row.name.empty() ? row.id : row.id + " (" + row.name + ")";
}

std::string Id(const CounterRow& row) {
  if (row.source == CounterSource::kSoftirqs) return "interrupts.softirq." + row.id;
  if (row.irq >= 0) return "interrupts.irq." + row.id;
  return "interrupts." + row.id;
}

// The allow-list matches the row label (LOC, IPI0, 57) or what it is called: a named row's
// description, a numbered row's handler names one by one or joined as /proc shows them.
const profile::IrqAllowance* Allowance(const std::vector<profile::IrqAllowance>& list, const CounterRow& row) {
  for (const auto& a : list) {
    if (a.match.Matches(row.id)) return &a;
    if (!row.name.empty() && a.match.Matches(row.name)) return &a;
    for (const auto& act : row.actions) {
      if (a.match.Matches(act)) return &a;
    }
  }
  return nullptr;
}

// The local timer: x86's LOC row, arm's arch_timer PPI (kernel/time/tick-sched.c stops it on
// nohz_full CPUs).
bool IsTick(const CounterRow& row) {
  if (row.source != CounterSource::kInterrupts) return false;
  if (row.id == "LOC") return true;
  for (const auto& a : row.actions) {
    if (a == "arch_timer") return true;
  }
  return false;
}

class InterruptsCheck : public Check {
 public:
  const CheckInfo& Info() const override {
    static const CheckInfo kInfo{
        .name = "interrupts",
        .title = "interrupts and softirqs moving on isolated CPUs, per second",
        .chapters = "3, 6",
        .live_window = true,
        .settings = &Settings(),
        .window = WindowSetting{[](const profile::Profile& p) -> const profile::Marked<Duration>& {
                                return Settings().Of(p).window;
                              },
                              kMinWindow}};
    return kInfo;
  }

  std::vector<CheckResult> Run(CheckEnv& env) const override {
    const CpuSet& isolated = env.profile.cores.isolated->cpus;
    if (isolated.Empty()) {
      return {Make(Status::kSkip, "interrupts",
                     "the profile isolates no CPU (cores.isolated is empty): there is no CPU to keep quiet", {})};
    }
    const Duration window = env.Window(Info());
    // Two readings of a tree that never changes would "prove" a quiet window nobody measured.
    if (auto no_time = env.NoLiveTime()) {
      return {Make(Status::kSkip, "interrupts", "not measured over " + Seconds(window) + ": " + *no_time, {})};
    }
    auto before = ReadCounters(env.root);
    if (!before) return {Make(Status::kSkip, "interrupts", "cannot read the counters: " + before.error().message, {})};
    if (!env.wait(window)) {
      return {Make(Status::kSkip, "interrupts", "interrupted before the " + Seconds(window) + " window ended", {})};
    }
    auto after = ReadCounters(env.root);
    if (!after) {
      return {Make(Status::kSkip, "interrupts", "cannot read the counters again: " + after.error().message, {})};
    }

    std::vector<CheckResult> out;
    const std::vector<CounterMove> moves = Moves(*before, *after, isolated, window);
    const CpuSet nohz = env.state.cpu_sets.nohz_full.value_or(CpuSet());
    // One result per row: its worst CPU decides, every CPU it moved on is listed.
    for (size_t i = 0; i < moves.size();) {
      const CounterRow& row = *moves[i].row;
      size_t end = i;
      while (end < moves.size() && moves[end].row == &row) ++end;
      out.push_back(RowResult(env.profile, moves.data() + i, moves.data() + end, window, nohz));
      i = end;
    }
    if (out.empty()) {
      out.push_back(Make(Status::kPass, "interrupts",
                           "no interrupt or softirq moved on isolated CPUs " + isolated.ToList() + " in " +
                               Seconds(window),
                           "0 moves"));
    }
    if (!after->softirqs_error.empty()) {
      out.push_back(Make(Status::kSkip, "interrupts.softirqs",
                           "softirqs not judged: " + after->softirqs_error, {}));
    }
    return out;
  }

 private:
  // One counter row's result (its moves are [first, last)): its worst CPU decides, every CPU
  // it moved on is listed, judged against irqs.allowed or irqs.allowed_softirqs.
  static CheckResult RowResult(const profile::Profile& p, const CounterMove* first, const CounterMove* last,
                               Duration window, const CpuSet& nohz) {
    const CounterRow& row = *first->row;
    const auto& list = row.source == CounterSource::kSoftirqs ? *p.irqs.allowed_softirqs
                                                              : *p.irqs.allowed;
    const profile::IrqAllowance* allow = Allowance(list, row);
    const std::string key = row.source == CounterSource::kSoftirqs ? "irqs.allowed_softirqs" : "irqs.allowed";
    CheckResult r = Make(Status::kPass, Id(row), "", {});
    std::string measured;
    const CounterMove* worst = first;
    std::vector<std::string> over;
    bool tick_on_nohz = false;
    for (const CounterMove* it = first; it != last; ++it) {
      const CounterMove& m = *it;
      measured += (measured.empty() ? "" : ", ") + std::string("CPU ") + std::to_string(m.cpu) + " " + Rate(m.per_second);
      if (m.per_second > worst->per_second) worst = &m;
      if (allow && allow->per_second && m.per_second > *allow->per_second) over.push_back("CPU " + std::to_string(m.cpu));
      tick_on_nohz |= IsTick(row) && nohz.Has(m.cpu) && m.per_second > 2.0;
    }
    r.measured = measured;
    std::string where = " on isolated CPU " + std::to_string(worst->cpu);
    if (!allow) {
      r.status = Status::kFail;
      r.limit = "0/s (not in " + key + ")";
      r.mark = p.irqs.allowed.mark;
      r.summary = Label(row) + " fired " + Rate(worst->per_second) + where + " over " + Seconds(window) +
                  ", and " + key + " does not allow it";
      r.hint = row.source == CounterSource::kSoftirqs
                   ? "find what raises it there (the IRQ or timer behind it) and move that to housekeeping, or "
                     "allow it in " + key + " with a per_second limit"
                   : "send it to housekeeping CPUs (irqs.default or an irqs.rules entry, then apply), or allow it "
                     "in " + key + " with a per_second limit if the loop needs it on its core";
    } else {
      r.limit = Limit(*allow) + " per CPU (" + key + " \"" + allow->match.pattern + "\")";
      r.mark = allow->mark;
      if (!over.empty()) {
        r.status = Status::kFail;
        r.summary = Label(row) + " fired " + Rate(worst->per_second) + where + ", above the " + Limit(*allow) +
                    " " + key + " allows";
        r.hint = "find what drives it on that CPU, or raise the limit if that rate is expected";
      } else {
        r.summary = Label(row) + " moved on isolated CPUs, within " + Limit(*allow) + " (worst " +
                    Rate(worst->per_second) + " on CPU " + std::to_string(worst->cpu) + ")";
      }
    }
    if (tick_on_nohz) r.summary += "; " + std::string(kTickNote);
    return r;
  }

  static CheckResult Make(Status s, const std::string& id, std::string summary, std::string measured) {
    CheckResult r;
    r.check = "interrupts";
    r.id = id;
    r.status = s;
    r.summary = std::move(summary);
    r.measured = std::move(measured);
    r.chapter = kChapter6;
    return r;
  }
  static std::string Seconds(Duration d) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%gs", std::chrono::duration<double>(d).count());
    return buf;
  }
};

}  // namespace

std::unique_ptr<Check> MakeInterruptsCheck() { return std::make_unique<InterruptsCheck>(); }

}  // namespace rtagent::check

#include "bench/bench_markdown.h"

#include <sstream>
#include <vector>

#include "latency/statistics.h"
#include "report/format.h"
#include "report/markdown.h"

namespace rtagent::bench {
namespace {

std::string PhaseHeading(Phase p) {
  switch (p) {
    case Phase::kIdle: return "idle";
    case Phase::kLower: return "lower-rank load";
    case Phase::kEqual: return "equal-rank load";
  }
  return "?";
}

std::string PhaseSentence(const BenchRun& run, const PhaseLoad& l) {
  switch (l.phase) {
    case Phase::kIdle: return "**idle**: nothing else asks for a CPU";
    case Phase::kLower:
      return "**lower-rank load**: every CPU (" + l.cpus.ToList() + ") busy with a " + l.policy +
             (l.priority > 0 ? " " + std::to_string(l.priority) : std::string()) +
             " spinner, below the measuring thread, while each test runs";
    case Phase::kEqual:
      return "**equal-rank load**: every CPU (" + l.cpus.ToList() + ") busy with a " + l.policy +
             (l.priority > 0 ? " " + std::to_string(l.priority) : std::string()) +
             " spinner at the measuring thread's rank, while each test runs" +
             (run.realtime && run.rr_timeslice_ms > 0
                  ? " (it gives the CPU up only at the end of its round-robin timeslice, " +
                        std::to_string(run.rr_timeslice_ms) +
                        " ms here: kernel.sched_rr_timeslice_ms); the measuring thread and its peers run at "
                        "SCHED_RR at their ranks in this phase, since beside one SCHED_RR task a SCHED_FIFO one "
                        "lets a nohz_full CPU's tick stop and the timeslice never ends"
                  : std::string());
  }
  return "";
}

std::vector<Phase> PhasesRun(const BenchRun& run) {
  std::vector<Phase> out;
  for (const PhaseLoad& l : run.phases) out.push_back(l.phase);
  return out;
}

// The tests of `group` in the order they first appear.
std::vector<const TestResult*> Rows(const BenchRun& run, Group group) {
  std::vector<const TestResult*> rows;
  for (const TestResult& r : run.results) {
    if (r.group != group) continue;
    bool seen = false;
    for (const TestResult* x : rows) seen = seen || x->id == r.id;
    if (!seen) rows.push_back(&r);
  }
  return rows;
}

std::string RowTitle(const TestResult& r) {
  return r.payload > 0 ? r.title + ", " + PayloadText(r.payload) : r.title;
}

}  // namespace

std::string FigureCell(const TestResult* r) {
  if (r == nullptr) return "–";
  if (!r->error.empty()) return "error";
  if (!r->skipped.empty()) return "skipped";
  if (r->summary.count == 0) return "no sample";
  const Summary& s = r->summary;
  return FormatNsShort(s.p50_ns) + " / " + FormatNsShort(s.p99_ns) + " / " + FormatNsShort(s.max_ns) + " (" +
         FormatCount(s.count) + ")";
}

std::string RenderBenchMarkdown(const BenchRun& run) {
  std::ostringstream o;
  o << "# rtagent bench — " << (run.host.hostname.empty() ? std::string("this machine") : run.host.hostname)
    << ": Linux " << run.host.kernel_release << (run.host.preempt_rt ? " (PREEMPT_RT)" : " (not PREEMPT_RT)") << "\n\n";

  // What qualifies the figures comes before any figure, as one quoted block.
  std::vector<std::string> warnings;
  if (run.host.virtual_machine) {
    warnings.push_back("**Virtual machine**" + (run.host.hypervisor.empty() ? std::string() : " (" + run.host.hypervisor + ")") +
                       ": these are virtual-machine figures, not the board's real-time figures. The shapes carry "
                       "over; the absolute values do not.");
  }
  if (run.health.coarse) warnings.push_back("**COARSE CLOCK**: the timer figures below come from the clock's granularity.");
  if (!run.realtime) warnings.push_back("**Not real-time**: measured at " + run.policy + ", not SCHED_FIFO.");
  if (run.interrupted) warnings.push_back("**Interrupted**: the run was stopped early; some tests or phases are missing.");
  if (run.quick) {
    warnings.push_back("**--quick**: few samples per test (a p99 of fewer than " + FormatCount(MinSamplesFor(0.99)) +
                       " samples is little more than the worst few), and the equal-rank phase measures only the tests "
                       "that show its timeslice.");
  }
  for (const std::string& n : run.notes) warnings.push_back(n);
  for (size_t i = 0; i < warnings.size(); ++i) o << (i == 0 ? "> " : ">\n> ") << warnings[i] << "\n";
  if (!warnings.empty()) o << "\n";

  o << "## How it measured\n\n";
  o << "- CPU " << run.cpu << ", " << run.policy << (run.priority > 0 ? " " + std::to_string(run.priority) : "")
    << ", memory " << (run.memory_locked ? "locked" : "not locked") << "; the other side of a two-party test runs on "
    << "the same CPU (same rank for switches and round trips, one rank above for wake-ups).\n";
  o << "- Clock: CLOCK_MONOTONIC, resolution " << FormatNsShort(run.host.clock_resolution_ns) << ", one read costs "
    << FormatNsShort(run.host.clock_read_cost_ns)
    << (run.host.clocksource.empty() ? "" : " (clocksource " + run.host.clocksource + ")")
    << "; every sample lies between two reads and includes one.\n";
  for (const PhaseLoad& l : run.phases) o << "- " << PhaseSentence(run, l) << ".\n";
  o << "- Each cell: p50 / p99 / max (samples). The paper reports averages; a real-time design is sized by the "
       "tail, so the tail is here.\n\n";

  const std::vector<Phase> phases = PhasesRun(run);
  std::vector<const TestResult*> timers;
  for (const TestResult& r : run.results) {
    if (r.period_ns > 0) timers.push_back(&r);
  }
  o << "## Timer health: " << run.health.Verdict() << "\n\n";
  for (const std::string& reason : run.health.reasons) o << "- " << MarkdownCell(reason) << "\n";
  if (!run.health.reasons.empty()) o << "\n";
  if (!timers.empty()) {
    o << "| timer | phase | median error | p99 error | max error | wake-ups | achieved | overruns |\n";
    o << "|---|---|---:|---:|---:|---:|---:|---:|\n";
    for (const TestResult* t : timers) {
      o << "| " << FormatDuration(t->period_ns) << " | " << PhaseHeading(t->phase) << " | ";
      if (t->summary.count == 0) {
        o << (t->error.empty() ? (t->skipped.empty() ? "no sample" : "skipped") : "error") << " | | | | | |\n";
        continue;
      }
      o << FormatNsShort(t->summary.p50_ns) << " | " << FormatNsShort(t->summary.p99_ns) << " | "
        << FormatNsShort(t->summary.max_ns) << " | " << FormatCount(t->wakeups) << " | "
        << FormatFixed(t->AchievedHz(), 1) << " Hz of " << FormatFixed(1e9 / static_cast<double>(t->period_ns), 0)
        << " | " << FormatCount(t->overruns) << " |\n";
    }
    o << "\n";
  }

  for (Group g : AllGroups()) {
    const std::vector<const TestResult*> rows = Rows(run, g);
    if (rows.empty()) continue;
    o << "## " << GroupTitle(g) << "\n\n| test | calls |";
    for (Phase p : phases) o << " " << PhaseHeading(p) << " |";
    o << "\n|---|---|";
    for (size_t i = 0; i < phases.size(); ++i) o << "---:|";
    o << "\n";
    std::vector<std::string> footnotes;
    for (const TestResult* row : rows) {
      o << "| " << MarkdownCell(RowTitle(*row)) << " | `" << MarkdownCell(row->calls) << "` |";
      for (Phase p : phases) {
        const TestResult* r = run.Find(row->id, p);
        o << " " << FigureCell(r) << " |";
        if (r != nullptr && (!r->error.empty() || !r->skipped.empty())) {
          footnotes.push_back("`" + r->id + "` (" + PhaseHeading(p) + "): " +
                              (r->error.empty() ? "skipped: " + r->skipped : "error: " + r->error));
        }
      }
      o << "\n";
    }
    o << "\n";
    for (const std::string& f : footnotes) o << "- " << MarkdownCell(f) << "\n";
    if (!footnotes.empty()) o << "\n";
  }
  return o.str();
}

}  // namespace rtagent::bench

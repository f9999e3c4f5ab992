#include "bench/bench_compare.h"

#include <sstream>

#include "report/format.h"
#include "report/markdown.h"

namespace rtagent::bench {
namespace {

std::string Class(const BenchRun& r) {
  return "CPU " + std::to_string(r.cpu) + ", " + r.policy + (r.priority > 0 ? " " + std::to_string(r.priority) : "");
}

std::string Machine(const BenchRun& r) {
  if (!r.host.virtual_machine) return "no";
  return "yes" + (r.host.hypervisor.empty() ? std::string() : " (" + r.host.hypervisor + ")");
}

std::string Clock(const BenchRun& r) {
  return (r.host.clocksource.empty() ? std::string("?") : r.host.clocksource) + ", read " +
         FormatNsShort(r.host.clock_read_cost_ns);
}

bool Measured(const TestResult* r) { return r != nullptr && r->summary.count > 0; }

}  // namespace

std::string Ratio(int64_t a, int64_t b) {
  if (a <= 0) return "–";
  return "×" + FormatFixed(static_cast<double>(b) / static_cast<double>(a), 2);
}

std::string RenderBenchCompare(const BenchRun& a, const std::string& a_name, const BenchRun& b,
                               const std::string& b_name) {
  std::ostringstream o;
  const std::string an = MarkdownCell(a_name), bn = MarkdownCell(b_name);
  o << "# rtagent bench: " << an << " (A) against " << bn << " (B)\n\n";
  if (a.host.virtual_machine || b.host.virtual_machine) {
    o << "> **Virtual machine**: a run on a virtual machine has virtual-machine figures; set beside a board's, the "
         "difference includes the hypervisor.\n\n";
  }
  o << "| | A | B |\n|---|---|---|\n";
  o << "| file | " << an << " | " << bn << " |\n";
  o << "| host | " << MarkdownCell(a.host.hostname) << " | " << MarkdownCell(b.host.hostname) << " |\n";
  o << "| kernel | " << MarkdownCell(a.host.kernel_release) << " | " << MarkdownCell(b.host.kernel_release) << " |\n";
  o << "| PREEMPT_RT | " << (a.host.preempt_rt ? "yes" : "no") << " | " << (b.host.preempt_rt ? "yes" : "no") << " |\n";
  o << "| virtual machine | " << Machine(a) << " | " << Machine(b) << " |\n";
  o << "| clock | " << Clock(a) << " | " << Clock(b) << " |\n";
  o << "| measured | " << Class(a) << " | " << Class(b) << " |\n";
  o << "| run | " << (a.quick ? "--quick" : "full") << " | " << (b.quick ? "--quick" : "full") << " |\n";
  o << "| timer health | " << a.health.Verdict() << " | " << b.health.Verdict() << " |\n\n";

  std::vector<std::string> only;
  for (Phase p : AllPhases()) {
    std::vector<std::string> lines;
    for (const TestResult& ra : a.results) {
      if (ra.phase != p) continue;
      const TestResult* rb = b.Find(ra.id, p);
      if (!Measured(&ra) || !Measured(rb)) {
        if (Measured(&ra) != Measured(rb)) {
          only.push_back("`" + ra.id + "` (" + PhaseName(p) + "): measured in " + (Measured(&ra) ? "A" : "B") + " only");
        }
        continue;
      }
      const std::string title = ra.payload > 0 ? ra.title + ", " + PayloadText(ra.payload) : ra.title;
      lines.push_back("| " + MarkdownCell(title) + " | " + FormatNsShort(ra.summary.p50_ns) + " | " +
                      FormatNsShort(rb->summary.p50_ns) + " | " + Ratio(ra.summary.p50_ns, rb->summary.p50_ns) + " | " +
                      FormatNsShort(ra.summary.p99_ns) + " | " + FormatNsShort(rb->summary.p99_ns) + " | " +
                      Ratio(ra.summary.p99_ns, rb->summary.p99_ns) + " |");
    }
    for (const TestResult& rb : b.results) {
      if (rb.phase == p && Measured(&rb) && a.Find(rb.id, p) == nullptr) {
        only.push_back("`" + rb.id + "` (" + PhaseName(p) + "): measured in B only");
      }
    }
    if (lines.empty()) continue;
    o << "## " << PhaseName(p) << "\n\n| test | A p50 | B p50 | B/A | A p99 | B p99 | B/A |\n";
    o << "|---|---:|---:|---:|---:|---:|---:|\n";
    for (const std::string& l : lines) o << l << "\n";
    o << "\n";
  }
  if (!only.empty()) {
    o << "## Measured on one side only\n\n";
    for (const std::string& s : only) o << "- " << s << "\n";
    o << "\n";
  }
  return o.str();
}

}  // namespace rtagent::bench

// `rtagent bench` and `rtagent bench pi` (issue 14, docs/bench.md): the kernel-primitives
// table of the QNX paper and ipcbench on this machine, in three load phases, and the
// priority-inversion experiment. The measuring is src/bench/'s; this file picks the CPU and
// rank (options, else the profile's acceptance section), states the host facts, prints each
// phase after it ran, writes the files and picks the exit code.
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <sstream>

#include "base/exit_codes.h"
#include "base/kernel_paths.h"
#include "base/kernel_text.h"
#include "base/text_table.h"
#include "base/time_text.h"
#include "bench/bench_compare.h"
#include "bench/bench_json.h"
#include "bench/bench_markdown.h"
#include "bench/bench_svg.h"
#include "bench/mqueue_limit.h"
#include "bench/pi_report.h"
#include "bench/pi_trace.h"
#include "bench/runner.h"
#include "bench/timer_health.h"
#include "cli/commands.h"
#include "cli/profile_arg.h"
#include "cli/stop_signal.h"
#include "cli/verdict_files.h"
#include "latency/measuring_cgroup.h"
#include "latency/run_facts.h"
#include "profile/loader.h"
#include "report/format.h"

namespace rtagent {
namespace {

using bench::Phase;
using bench::TestResult;

std::string LiveOnly(const SysRoot& root) {
  return "it measures the live machine only; --root " + root.Dir() + " is a fixture tree (run it without --root)";
}

int Compare(const BenchOptions& o) {
  bench::BenchRun runs[2];
  for (int i = 0; i < 2; ++i) {
    auto text = ReadTextFile(o.compare[i]);
    if (!text) {
      std::cerr << "rtagent bench --compare: " << text.error().message << "\n";
      return kExitBadInput;
    }
    auto run = bench::ParseJsonLines(*text, o.compare[i]);
    if (!run) {
      std::cerr << "rtagent bench --compare: " << run.error().message << "\n";
      return kExitBadInput;
    }
    runs[i] = std::move(*run);
  }
  std::cout << bench::RenderBenchCompare(runs[0], o.compare[0], runs[1], o.compare[1]);
  return kExitOk;
}

Result<std::vector<bench::Group>> ParseGroups(const std::string& only) {
  std::vector<bench::Group> groups;
  if (only.empty()) return groups;
  for (std::string_view name : SplitChar(only, ',')) {
    auto g = bench::ParseGroup(Trim(name));
    if (!g) return InvalidInput("--only: no group \"" + Trim(name) + "\" (groups: " + bench::GroupNames() + ")");
    groups.push_back(*g);
  }
  return groups;
}

// The measured CPU: --cpu, else the first CPU of the profile's acceptance.cpus.
Result<int> PickCpu(int asked, const profile::Profile& p, const SysRoot& root) {
  auto cpus = profile::ReadSystemCpus(root);
  if (!cpus) return cpus.error();
  const int cpu = asked >= 0 ? asked : p.acceptance.cpus.value.cpus.Empty() ? 0 : p.acceptance.cpus.value.cpus.Cpus().front();
  if (!cpus->online.Has(cpu)) {
    return InvalidInput("CPU " + std::to_string(cpu) + " is not online (online: " + cpus->online.ToList() + ")");
  }
  return cpu;
}

// A partition on the measured CPU (apply made one) is closed to a process outside it: the
// benchmark joins it, as an RT application on those CPUs must, and its loads spin on the
// partition's CPUs. The note for the run; empty when nothing was joined.
Result<std::string> JoinPartitionOfCpu(SysRoot& root, bench::RunOptions& ro) {
  auto partition = JoinPartitionHolding(root, CpuSet::Of({ro.cpu}));
  if (!partition) return partition.error();
  if (!*partition) return std::string();
  ro.load_cpus = ro.load_cpus.Intersect((*partition)->cpus);
  return "the benchmark ran in cgroup " + (*partition)->cgroup + ", the partition that holds CPU " +
         std::to_string(ro.cpu) + ", and its loads spun on CPUs " + ro.load_cpus.ToList() +
         " (a process outside the partition cannot run there)";
}

// Every output file named can be written, checked before anything runs; says which cannot.
bool OutputsWritable(const BenchOptions& o) {
  for (const auto& [path, option] : {std::pair{o.json, "--json"}, {o.md, "--md"}, {o.svg, "--svg"}}) {
    if (path.empty()) continue;
    if (auto ok = CheckWritable(path); !ok) {
      std::cerr << "rtagent bench: " << option << ": " << ok.error().message << "; nothing was run\n";
      return false;
    }
  }
  return true;
}

void PrintPhase(std::ostream& out, Phase phase, const std::vector<TestResult>& results, const bench::BenchRun& run) {
  const bench::PhaseLoad* load = run.Load(phase);
  out << "\n" << bench::PhaseName(phase) << " (load: " << (load ? load->Describe() : "none") << ")\n";
  if (results.empty()) {
    // Not an empty table under its header: say why nothing is in it.
    out << "  no test of the selected groups is measured in this phase";
    if (run.quick && phase == Phase::kEqual) {
      out << ": with --quick it measures only the tests that show the timeslice (groups timer, switch and message);"
             " without --quick, every test";
    }
    out << "\n" << std::flush;
    return;
  }
  TextTable t({"test", ">p50", ">p99", ">max", ">samples", ""});
  std::optional<bench::Group> group;
  for (const TestResult& r : results) {
    if (!group || *group != r.group) {
      group = r.group;
      t.Row({bench::GroupTitle(r.group)});
    }
    const std::string name = "  " + r.title + (r.payload > 0 ? ", " + bench::PayloadText(r.payload) : "");
    if (!r.error.empty()) {
      t.Row({name, "", "", "", "", "error: " + r.error});
    } else if (!r.skipped.empty()) {
      t.Row({name, "", "", "", "", "skipped: " + r.skipped});
    } else if (r.summary.count == 0) {
      t.Row({name, "", "", "", "", "no sample"});
    } else {
      t.Row({name, FormatNsShort(r.summary.p50_ns), FormatNsShort(r.summary.p99_ns), FormatNsShort(r.summary.max_ns),
             FormatCount(r.summary.count)});
    }
  }
  out << t.Render() << std::flush;
}

// The line before the tables: host, kernel, the measured CPU, and a virtual machine said so.
void PrintRunHeader(std::ostream& out, const bench::BenchRun& run, const bench::RunOptions& ro) {
  out << "bench: " << (run.host.hostname.empty() ? "this machine" : run.host.hostname) << ", Linux "
      << run.host.kernel_release << (run.host.preempt_rt ? " (PREEMPT_RT)" : " (not PREEMPT_RT)") << ", CPU " << ro.cpu
      << (ro.quick ? ", --quick" : "") << "\n";
  if (run.host.virtual_machine) {
    out << "warning: virtual machine" << (run.host.hypervisor.empty() ? "" : " (" + run.host.hypervisor + ")")
        << ": these are virtual-machine figures, not the board's real-time figures\n";
  }
  out << std::flush;
}

// The lines after the tables: the clock, the class measured at, notes, timer health.
void PrintRunTrailer(std::ostream& out, const bench::BenchRun& run) {
  out << "\nclock: resolution " << FormatNsShort(run.host.clock_resolution_ns) << ", one read "
      << FormatNsShort(run.host.clock_read_cost_ns) << "; measured at " << run.policy
      << (run.priority > 0 ? " " + std::to_string(run.priority) : "") << "\n";
  for (const std::string& n : run.notes) out << "note: " << n << "\n";
  out << "timer health: " << run.health.Verdict() << "\n";
  for (const std::string& r : run.health.reasons) out << "  " << r << "\n";
  if (run.interrupted) out << "interrupted: the run stopped early\n";
}

}  // namespace

int CmdBench(const GlobalOptions& g, const BenchOptions& o) {
  if (!o.compare.empty()) return Compare(o);
  auto groups = ParseGroups(o.only);
  if (!groups) {
    std::cerr << "rtagent bench: " << groups.error().message << "\n";
    return kExitBadInput;
  }
  int rc = kExitOk;
  auto lp = LoadForCommand("bench", g, o.profile, &rc);
  if (!lp) return rc;
  SysRoot& root = *lp->root;
  if (!root.IsLive()) {
    std::cerr << "rtagent bench: " << LiveOnly(root) << "\n";
    return kExitCannotRun;
  }
  if (!OutputsWritable(o)) return kExitBadInput;
  auto cpu = PickCpu(o.cpu, lp->profile, root);
  if (!cpu) {
    std::cerr << "rtagent bench: " << cpu.error().message << "\n";
    return kExitBadInput;
  }
  auto online = profile::ReadSystemCpus(root);
  bench::RunOptions ro;
  ro.cpu = *cpu;
  ro.priority = o.priority > 0 ? o.priority : lp->profile.acceptance.priority.value;
  ro.quick = o.quick;
  ro.groups = *groups;
  ro.load_cpus = online ? online->online : CpuSet::Of({*cpu});
  if (auto ok = bench::ValidateRunOptions(ro, ro.load_cpus); !ok) {
    std::cerr << "rtagent bench: " << ok.error().message << "\n";
    return kExitBadInput;
  }
  auto partition_note = JoinPartitionOfCpu(root, ro);
  if (!partition_note) {
    std::cerr << "rtagent bench: " << partition_note.error().message << "\n";
    return kExitCannotRun;
  }

  bench::BenchRun run;
  run.tool_version = o.version;
  run.started_at = IsoTime(UnixNow());
  run.host = ReadHostFacts(root);
  run.rr_timeslice_ms = static_cast<int>(root.ReadInt(kpath::Sysctl("kernel.sched_rr_timeslice_ms")).value_or(0));
  if (!partition_note->empty()) run.notes.push_back(*partition_note);
  // Printing goes to stdout; with --json - the JSON lines own it and the table goes to stderr.
  std::ostream& out = o.json == "-" ? std::cerr : std::cout;
  PrintRunHeader(out, run, ro);

  StopSignals signals;
  ro.stop = &StopFlag();
  // Queue messages above fs.mqueue.msgsize_max need it raised for the run (as root); the lease
  // puts it back below, or on any other way out of this function.
  const bool queues = ro.groups.empty() || std::count(ro.groups.begin(), ro.groups.end(), bench::Group::kMessage) > 0;
  bench::MqueueLimit mqueue = queues ? bench::RaiseMqueueLimit(root, bench::MessagePayloads().back()) : bench::MqueueLimit{};
  if (!mqueue.note.empty()) run.notes.push_back(mqueue.note);
  auto ran = bench::RunBench(ro, run, [&](Phase p, const std::vector<TestResult>& r) { PrintPhase(out, p, r, run); });
  Result<void> restored = mqueue.lease ? mqueue.lease->Restore() : Ok();
  if (!restored) std::cerr << "rtagent bench: " << restored.error().message << "; write it back by hand (as root)\n";
  if (!ran) {
    std::cerr << "rtagent bench: " << ran.error().message << "\n";
    return kExitCannotRun;
  }
  run.health = bench::JudgeTimerHealth(run);

  PrintRunTrailer(out, run);

  const std::pair<std::string, std::string> files[] = {
      {o.json, bench::RenderJsonLines(run)}, {o.md, bench::RenderBenchMarkdown(run)}, {o.svg, bench::RenderBenchSvg(run)}};
  for (const auto& [path, text] : files) {
    if (path.empty()) continue;
    if (auto ok = WriteTextFile(path, text); !ok) {
      std::cerr << "rtagent bench: " << ok.error().message << "\n";
      return kExitCannotRun;
    }
  }
  return restored ? kExitOk : kExitCannotRun;
}

int CmdBenchPi(const GlobalOptions& g, const BenchPiOptions& o) {
  int rc = kExitOk;
  auto lp = LoadForCommand("bench pi", g, o.profile, &rc);
  if (!lp) return rc;
  SysRoot& root = *lp->root;
  if (!root.IsLive()) {
    std::cerr << "rtagent bench pi: " << LiveOnly(root) << "\n";
    return kExitCannotRun;
  }
  auto cpu = PickCpu(o.cpu, lp->profile, root);
  if (!cpu) {
    std::cerr << "rtagent bench pi: " << cpu.error().message << "\n";
    return kExitBadInput;
  }
  bench::PiOptions po;
  po.cpu = *cpu;
  po.priority = o.priority > 0 ? o.priority : lp->profile.acceptance.priority.value;
  po.periods = o.periods;
  if (auto ok = bench::ValidatePiOptions(po); !ok) {
    std::cerr << "rtagent bench pi: " << ok.error().message << "\n";
    return kExitBadInput;
  }
  StopSignals signals;
  po.stop = &StopFlag();
  auto r = bench::RunPiWithEvidence(root, po);
  if (!r) {
    std::cerr << "rtagent bench pi: " << r.error().message
              << (r.error().err == EPERM ? " (the experiment needs SCHED_FIFO: run it as root)" : "") << "\n";
    return kExitCannotRun;
  }
  const bench::PiJudgement j = bench::JudgePi(*r);
  const bool vm = ReadHostFacts(root).virtual_machine;
  std::cout << (o.json ? bench::RenderPiJson(*r, j, vm) : bench::RenderPiText(*r, j, vm));
  switch (j.verdict) {
    case bench::PiJudgement::Verdict::kPass: return kExitOk;
    case bench::PiJudgement::Verdict::kFail: return kExitFail;
    case bench::PiJudgement::Verdict::kInconclusive: return kExitCannotRun;
  }
  return kExitCannotRun;
}

}  // namespace rtagent

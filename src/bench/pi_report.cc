#include "bench/pi_report.h"

#include <nlohmann/json.hpp>
#include <sstream>

#include "report/format.h"

namespace rtagent::bench {
namespace {

using json = nlohmann::ordered_json;

json ModeJson(const PiModeResult& m) {
  return json{{"protocol", m.protocol},
              {"periods", m.periods},
              {"misses", m.misses},
              {"inversions", m.inversions},
              {"contended", m.contended},
              {"attempts", m.attempts},
              {"out_of_time", m.out_of_time},
              {"capped_burns", m.capped},
              {"worst_response_ns", m.worst_response_ns},
              {"worst_block_ns", m.worst_block_ns},
              {"worst_medium_ns", m.worst_medium_ns},
              {"low_tid", m.low_tid},
              {"low_tids", m.low_tids}};
}

std::string ModeText(const std::string& name, const PiModeResult& m, const PiTiming& t, int64_t limit_ns) {
  std::ostringstream o;
  o << "  " << name << ": " << m.misses << " of " << m.periods << " missed the " << FormatNsShort(t.deadline_ns)
    << " deadline; slowest request " << FormatNsShort(m.worst_response_ns) << ", longest wait for the lock "
    << FormatNsShort(m.worst_block_ns) << "\n"
    << "    the medium thread ran during the wait in " << m.inversions << " of " << m.periods << " periods (up to "
    << FormatNsShort(m.worst_medium_ns) << ")\n"
    << "    the high thread found the lock held in " << m.contended << " of " << m.periods << " periods";
  if (m.attempts > 1) o << " (" << m.attempts << " runs: a run without contention tests nothing and is repeated)";
  o << "\n";
  if (m.capped > 0) o << "    " << m.capped << " burns ended at their wall-clock cap before their work was counted\n";
  if (m.out_of_time) o << "    its runs were stopped at its half of the " << FormatNsShort(limit_ns) << " time limit\n";
  return o.str();
}

}  // namespace

std::string RenderPiText(const PiResult& r, const PiJudgement& j, bool virtual_machine) {
  const PiTiming& t = r.timing;
  std::ostringstream o;
  o << "pi: " << VerdictName(j.verdict) << " — " << j.summary << "\n";
  if (virtual_machine) o << "warning: measured on a virtual machine: these timings are virtual-machine timings\n";
  if (r.interrupted) o << "warning: interrupted: fewer periods than asked\n";
  o << "\nCPU " << r.cpu << ", SCHED_FIFO: low " << r.priority - 2 << " takes the lock at 0 and works "
    << FormatNsShort(t.low_work_ns) << "; medium " << r.priority - 1 << " burns " << FormatNsShort(t.medium_work_ns)
    << " from " << FormatNsShort(t.medium_start_ns) << "; high " << r.priority << " wants the lock at "
    << FormatNsShort(t.high_start_ns) << " for " << FormatNsShort(t.high_work_ns) << ", deadline "
    << FormatNsShort(t.deadline_ns) << "; every " << FormatNsShort(t.period_ns) << "\n";
  if (!r.cgroup.empty()) {
    o << "  the three threads ran in a process of their own in cgroup " << r.cgroup
      << ", the partition that holds CPU " << r.cpu << "\n";
  }
  o << ModeText("plain mutex", r.none, t, r.time_limit_ns);
  o << ModeText("PTHREAD_PRIO_INHERIT", r.inherit, t, r.time_limit_ns);
  const PiEvidence& e = r.evidence;
  if (e.traced) {
    o << "  tracefs sched_pi_setprio: the lock holder was raised " << e.boosts_inherit << " times with inheritance, "
      << e.boosts_none << " without\n";
    if (!e.example.empty()) o << "    " << e.example << "\n";
  } else {
    o << "  tracefs evidence: none (" << e.why_not << ")\n";
  }
  return o.str();
}

std::string RenderPiJson(const PiResult& r, const PiJudgement& j, bool virtual_machine) {
  const PiTiming& t = r.timing;
  json out{{"schema", "rtagent.bench-pi/1"},
           {"verdict", VerdictName(j.verdict)},
           {"summary", j.summary},
           {"virtual_machine", virtual_machine},
           {"interrupted", r.interrupted},
           {"time_limit_ns", r.time_limit_ns},
           {"cpu", r.cpu},
           {"cgroup", r.cgroup},
           {"priorities", json{{"low", r.priority - 2}, {"medium", r.priority - 1}, {"high", r.priority}}},
           {"timing_ns", json{{"period", t.period_ns},
                              {"low_work", t.low_work_ns},
                              {"medium_start", t.medium_start_ns},
                              {"medium_work", t.medium_work_ns},
                              {"high_start", t.high_start_ns},
                              {"high_work", t.high_work_ns},
                              {"deadline", t.deadline_ns}}},
           {"none", ModeJson(r.none)},
           {"inherit", ModeJson(r.inherit)},
           {"evidence", json{{"traced", r.evidence.traced},
                             {"why_not", r.evidence.why_not},
                             {"boosts_inherit", r.evidence.boosts_inherit},
                             {"boosts_none", r.evidence.boosts_none},
                             {"example", r.evidence.example}}}};
  return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace rtagent::bench

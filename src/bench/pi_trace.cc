#include "bench/pi_trace.h"

#include <algorithm>
#include <optional>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"
#include "base/cpuset.h"
#include "base/tracefs.h"
#include "bench/pi_child.h"
#include "latency/measuring_cgroup.h"

namespace rtagent::bench {
namespace {

// The value after "key=" up to the next space (comm may hold spaces: it runs up to " pid=").
std::optional<std::string> Field(std::string_view line, std::string_view key, std::string_view until = " ") {
  const size_t at = line.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  const size_t from = at + key.size();
  const size_t end = line.find(until, from);
  return std::string(line.substr(from, end == std::string_view::npos ? std::string_view::npos : end - from));
}

}  // namespace

std::vector<PiSetprio> ParsePiSetprio(std::string_view text) {
  std::vector<PiSetprio> out;
  for (std::string_view line : SplitLines(text)) {
    const size_t ev = line.find("sched_pi_setprio:");
    if (ev == std::string_view::npos || TrimView(line).front() == '#') continue;
    const std::string_view rest = line.substr(ev);
    auto comm = Field(rest, "comm=", " pid=");
    auto pid = Field(rest, " pid=");
    auto oldp = Field(rest, " oldprio=");
    auto newp = Field(rest, " newprio=");
    if (!comm || !pid || !oldp || !newp) continue;
    auto p = ParseInt(*pid), o = ParseInt(*oldp), n = ParseInt(*newp);
    if (!p || !o || !n) continue;
    out.push_back({*comm, static_cast<int>(*p), static_cast<int>(*o), static_cast<int>(*n), std::string(TrimView(line))});
  }
  return out;
}

PiEvidence EvidenceFrom(const std::vector<PiSetprio>& events, const PiResult& r) {
  PiEvidence e;
  e.traced = true;
  for (const PiSetprio& ev : events) {
    if (!ev.Boost()) continue;
    auto holder = [&](const PiModeResult& m) {
      return ev.pid == m.low_tid || std::find(m.low_tids.begin(), m.low_tids.end(), ev.pid) != m.low_tids.end();
    };
    if (holder(r.inherit)) {
      ++e.boosts_inherit;
      if (e.example.empty()) e.example = ev.line;
    } else if (holder(r.none)) {
      ++e.boosts_none;
    }
  }
  return e;
}

PiTraceSession::PiTraceSession(SysRoot& root) : root_(root) {
  auto dir = FindTracefs(root_);
  if (!dir) {
    why_not_ = dir.error().message;
    return;
  }
  tracefs_ = *dir;
  const std::string enable = kpath::TracefsFile(tracefs_, kpath::kEventSchedPiSetprioEnable);
  if (!root_.Exists(enable)) {
    why_not_ = "this kernel has no sched_pi_setprio event (no " + enable + ")";
    return;
  }
  auto taken = TracefsLease::Take(root_, tracefs_, {kpath::kEventSchedPiSetprioEnable, kpath::kTracingOn});
  if (!taken) {
    why_not_ = "cannot read the tracefs state: " + taken.error().message;
    return;
  }
  lease_.emplace(std::move(*taken));
  auto on = lease_->Set(kpath::kEventSchedPiSetprioEnable, "1");
  if (on && lease_->Saved(kpath::kTracingOn) != "1") on = lease_->Set(kpath::kTracingOn, "1");
  if (!on) {
    why_not_ = "cannot switch the sched_pi_setprio event on: " + on.error().message;
    (void)lease_->Restore();
    lease_.reset();
  }
}

Result<void> PiTraceSession::Finish(PiResult& r) {
  if (!lease_) {
    r.evidence = PiEvidence{};
    r.evidence.why_not = why_not_;
    return Ok();
  }
  auto text = root_.Read(kpath::TracefsFile(tracefs_, kpath::kTrace));
  auto restored = lease_->Restore();
  lease_.reset();
  if (text) {
    r.evidence = EvidenceFrom(ParsePiSetprio(*text), r);
  } else {
    r.evidence = PiEvidence{};
    r.evidence.why_not = "cannot read the trace: " + text.error().message;
  }
  return restored;
}

Result<PiResult> RunPiWithEvidence(SysRoot& root, const PiOptions& options) {
  if (!root.IsLive()) {
    return InvalidInput("the priority-inversion experiment measures the live machine only, not " + root.Dir());
  }
  // A partition on the CPU (apply made one) is closed to this process: the threads then run in
  // a child that joins it.
  auto where = FindMeasuringCgroup(root, CpuSet::Of({options.cpu}));
  if (!where) return where.error();
  PiTraceSession trace(root);
  auto r = *where ? RunPiExperimentInCgroup(root, (*where)->dir, options) : RunPiExperiment(options);
  if (!r) return r;
  if (auto finished = trace.Finish(*r); !finished) return finished.error();
  return r;
}

}  // namespace rtagent::bench

// `rtagent hold` (the boot-time daemon, service/hold.h) and `rtagent status`.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "base/exit_codes.h"
#include "base/time_text.h"
#include "cli/commands.h"
#include "cli/profile_arg.h"
#include "cli/verdict_files.h"
#include "profile/duration.h"
#include "service/hold.h"
#include "service/hold_state.h"

namespace rtagent {

namespace {

// The verdict's worst wake-up over every measured CPU, for status and Prometheus.
std::optional<service::VerdictSummary> ReadVerdictSummary(const std::string& path,
                                                          const std::shared_ptr<spdlog::logger>& log) {
  auto v = ReadVerdictFile(path);
  if (!v) {
    log->warn("verdict {}: {}", path, v.error().message);
    return std::nullopt;
  }
  service::VerdictSummary s;
  s.path = path;
  s.pass = v->pass;
  s.started_at = v->started_at;
  if (auto start = ParseIsoTime(v->started_at); start && v->config.duration_actual_ns > 0) {
    s.ended_at = *start + v->config.duration_actual_ns / 1000000000;
  }
  for (const auto& c : v->cpus) {
    service::VerdictCpuSummary cs;
    cs.cpu = c.cpu;
    cs.overflows = c.stats.overflows;
    cs.samples = c.stats.samples;
    if (const Percentile* p99 = c.stats.Find(0.99); p99 && p99->us) cs.p99_us = static_cast<double>(*p99->us);
    if (c.stats.max_ns) {
      const double us = static_cast<double>(*c.stats.max_ns) / 1000.0;
      cs.worst_us = us;
      s.worst_us = s.worst_us ? std::max(*s.worst_us, us) : us;
    }
    s.cpus.push_back(cs);
  }
  return s;
}

// Alive when kill(pid, 0) reaches it (EPERM: alive, someone else's).
bool PidAlive(int pid) { return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM); }

}  // namespace

int CmdHold(const GlobalOptions& g, const HoldOptions& o) {
  int rc = kExitOk;
  auto replan = profile::ParseDuration(o.replan_interval);
  if (!replan || *replan < std::chrono::milliseconds(100)) {
    std::cerr << "rtagent hold: --replan-interval " << o.replan_interval << ": "
              << (replan ? std::string("shorter than the shortest watch interval") : replan.error().message)
              << "; write a duration of at least 100ms, e.g. 5m (the default) or 30s\n";
    return kExitBadInput;
  }
  auto lp = LoadForCommand("hold", g, o.profile, &rc);
  if (!lp) return rc;
  if (!CanWrite("hold", *lp->root)) return kExitCannotRun;
  const auto lock = ClaimWriting("hold", *lp->root);  // for the hold's life: it writes the journal at each tick
  if (!lock) return kExitCannotRun;
  // Signals are blocked and read from a signalfd before anything is applied, so a SIGTERM
  // during start is handled once the state is consistent, never in the middle of a write.
  auto sigfd = service::OpenSignalFd();
  if (!sigfd) {
    std::cerr << "rtagent hold: " << sigfd.error().message << "\n";
    return kExitCannotRun;
  }
  auto log = service::MakeStderrLogger();
  service::HoldOptions ho;
  std::error_code ec;
  ho.profile_path = lp->path.empty() ? "" : std::filesystem::absolute(lp->path, ec).string();
  ho.log = log;
  ho.give_back_memory = !o.once;
  ho.replan_interval = *replan;
  if (!o.verdict.empty()) {
    std::string path = std::filesystem::absolute(o.verdict, ec).string();
    ho.verdict = [path, log] { return ReadVerdictSummary(path, log); };
  }
  auto notifier = service::MakeSystemdNotifier();
  if (!notifier) {
    std::cerr << "rtagent hold: " << notifier.error().message << "\n";
    ::close(*sigfd);
    return kExitCannotRun;
  }
  SysRoot& root = *lp->root;
  service::HoldDaemon daemon(root, std::move(lp->profile), std::move(ho), **notifier, MakeQosDevice(root));
  const service::StartResult started = daemon.Start();
  if (started != service::StartResult::kHolding) {
    ::close(*sigfd);
    return started == service::StartResult::kRolledBack ? kExitRolledBack : kExitCannotRun;
  }
  bool verify_failed = false;
  bool reverted_all = true;
  if (o.once) {
    verify_failed = daemon.state().last_verify.result == "FAIL";
    reverted_all = daemon.Stop("--once");
    std::cout << service::RenderOnceText(daemon.state(), UnixNow());
  } else {
    reverted_all = daemon.Run(*sigfd);
  }
  ::close(*sigfd);
  return !reverted_all || verify_failed ? kExitFail : kExitOk;
}

int CmdStatus(const GlobalOptions& g, const StatusOptions& o) {
  auto root = OpenRoot(g.root);
  if (!root) {
    std::cerr << "rtagent status: " << root.error().message << "\n";
    return kExitBadInput;
  }
  const std::string where = service::StateFileOnHost(**root);
  auto read = service::ReadHoldState(**root);
  if (!read) {
    std::cerr << "rtagent status: " << read.error().message << "\n";
    return kExitBadInput;
  }
  if (!*read) {
    if (o.json) {
      std::cout << nlohmann::json{{"running", false}, {"state_file", where}, {"reason", "no state file"}}.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    } else {
      std::cout << "rtagent hold: not running (no state file at " << where << ")\n";
    }
    return kExitCannotRun;
  }
  const service::HoldState& state = **read;
  const bool live_state = state.ClaimsToHold();
  const bool running = live_state && PidAlive(state.pid);
  if (o.json) {
    auto j = service::ToJson(state);
    j["running"] = running;
    j["state_file"] = where;
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    std::cout << service::RenderStatusText(state, running, UnixNow());
  }
  if (!running) return kExitCannotRun;
  return state.last_verify.result == "FAIL" ? kExitFail : kExitOk;
}

}  // namespace rtagent

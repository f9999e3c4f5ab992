// `rtagent explain`: why the worst (or first too late) wake-up was late, from a trace recorded
// now with the timerlat tracer or from a saved one (docs/explain.md).
#include <cerrno>
#include <chrono>
#include <iostream>
#include <thread>

#include "base/exit_codes.h"
#include "base/kernel_paths.h"
#include "cli/commands.h"
#include "cli/profile_arg.h"
#include "cli/stop_signal.h"
#include "cli/verdict_files.h"
#include "profile/duration.h"
#include "report/diff.h"
#include "report/why.h"
#include "report/why_diff.h"
#include "trace/attribution.h"
#include "trace/ftrace_text.h"
#include "trace/tracer_session.h"

namespace rtagent {
namespace {

constexpr const char* kCmd = "rtagent explain";

// The wake-up to explain (ChooseWakeup); the error says what the trace holds instead.
Result<LateWakeup> Choose(const ParsedTrace& trace, const CpuSet& cpus, std::optional<int64_t> threshold_ns,
                          bool& crossed) {
  return ChooseWakeup(trace, WakeupQuery{cpus, threshold_ns}, crossed);
}

// Prints the attribution, writes --json; the exit code for it.
int Report(const ParsedTrace& trace, const LateWakeup& w, bool crossed, std::optional<int64_t> threshold_ns,
           const ExplainOptions& o) {
  Attribution a = Attribute(trace, w);
  if (threshold_ns && !crossed) {
    std::cout << "No wake-up was later than " << *threshold_ns / 1000 << " µs; the latest one:\n";
  }
  std::cout << RenderWhyText(a);
  if (!o.json.empty()) {
    nlohmann::ordered_json j;
    j["schema"] = "rtagent-explain/1";
    j["threshold_us"] = threshold_ns ? nlohmann::ordered_json(*threshold_ns / 1000) : nlohmann::ordered_json();
    j["crossed"] = crossed;
    j["why"] = WhyJson(a);
    if (auto r = WriteTextFile(o.json, j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"); !r) {
      std::cerr << kCmd << ": --json " << o.json << ": " << r.error().message << "\n";
      return kExitBadInput;
    }
  }
  return crossed ? kExitFail : kExitOk;
}

// The attribution FILE holds: a trace's (the first wake-up past `threshold_ns`, else its worst),
// or the one a verdict's why section or an `explain --json` file carries.
Result<Attribution> AttributionIn(const std::string& path, const CpuSet& cpus, std::optional<int64_t> threshold_ns) {
  auto text = ReadTextFile(path);
  if (!text) return text.error();
  const size_t first = text->find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (*text)[first] == '{') {
    auto j = nlohmann::ordered_json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) return MakeError(path + ": not valid JSON");
    if (!j.contains("why") || !j["why"].is_object()) return MakeError(path + ": no \"why\" (neither a verdict nor explain --json)");
    const auto& why = j["why"];
    if (why.contains("wakeup")) return ParseWhyJson(why);  // explain --json
    if (why.contains("attribution")) return ParseWhyJson(why["attribution"]);
    return MakeError(path + ": its why holds no attribution (status " + why.value("status", std::string("?")) + ": " +
                     why.value("reason", std::string("")) + ")");
  }
  auto trace = ParseFtraceText(*text);
  if (!trace) return Wrap(path + ": ", trace.error());
  bool crossed = false;
  auto w = Choose(*trace, cpus, threshold_ns, crossed);
  if (!w) return Wrap(path + ": ", w.error());
  return Attribute(*trace, *w);
}

int Diff(const ExplainOptions& o, const CpuSet& cpus) {
  std::optional<int64_t> threshold_ns;
  if (o.threshold_us >= 0) threshold_ns = o.threshold_us * 1000;
  auto before = AttributionIn(o.diff[0], cpus, threshold_ns);
  auto after = before ? AttributionIn(o.diff[1], cpus, threshold_ns) : Result<Attribution>(before.error());
  if (!before || !after) {
    std::cerr << kCmd << ": --diff: " << (before ? after : before).error().message << "\n";
    return kExitBadInput;
  }
  const CauseDiff d = DiffCauses(*before, *after, DiffTolerance{});
  std::cout << RenderCauseDiffText(d);
  if (!o.json.empty()) {
    nlohmann::ordered_json j;
    j["schema"] = "rtagent-explain-diff/1";
    j["before"] = o.diff[0];
    j["after"] = o.diff[1];
    j["diff"] = CauseDiffJson(d);
    if (auto r = WriteTextFile(o.json, j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"); !r) {
      std::cerr << kCmd << ": --json " << o.json << ": " << r.error().message << "\n";
      return kExitBadInput;
    }
  }
  return kExitOk;
}

int FromFile(const ExplainOptions& o, const CpuSet& cpus) {
  auto text = ReadTextFile(o.from);
  if (!text) {
    std::cerr << kCmd << ": --from " << o.from << ": " << text.error().message << "\n";
    return kExitBadInput;
  }
  auto trace = ParseFtraceText(*text);
  if (!trace) {
    std::cerr << kCmd << ": " << o.from << ": " << trace.error().message << "\n";
    return kExitBadInput;
  }
  std::optional<int64_t> threshold_ns;
  if (o.threshold_us >= 0) threshold_ns = o.threshold_us * 1000;
  bool crossed = false;
  auto w = Choose(*trace, cpus, threshold_ns, crossed);
  if (!w) {
    std::cerr << kCmd << ": " << o.from << ": " << w.error().message << "\n";
    return kExitBadInput;
  }
  return Report(*trace, *w, crossed, threshold_ns, o);
}

// What a live recording was asked for: the profile's measured CPUs, duration and limit unless
// the options say otherwise.
struct Request {
  CpuSet cpus;
  std::chrono::nanoseconds duration{};
  std::optional<int64_t> threshold_ns;
};

// The options checked against the profile; nullopt (with `code` set) when one is bad.
std::optional<Request> ResolveRequest(const ExplainOptions& o, const CpuSet& cpus,
                                      const profile::AcceptanceConfig& acc, int& code) {
  Request r;
  r.cpus = cpus.Empty() ? acc.cpus.value.cpus : cpus;
  r.duration = acc.duration.value;
  if (!o.duration.empty()) {
    auto d = profile::ParseDuration(o.duration);
    if (!d || d->count() <= 0) {
      std::cerr << kCmd << ": --duration " << o.duration << ": " << (d ? "must be longer than 0" : d.error().message)
                << "\n";
      code = kExitBadInput;
      return std::nullopt;
    }
    r.duration = *d;
  }
  if (o.threshold_us >= 0) {
    r.threshold_ns = o.threshold_us * 1000;
  } else if (acc.max_us.value) {
    r.threshold_ns = static_cast<int64_t>(*acc.max_us.value) * 1000;
  }
  for (const auto& [flag, path] : {std::pair<const char*, const std::string&>{"--json", o.json}, {"--trace", o.trace}}) {
    if (path.empty()) continue;
    if (auto w = CheckWritable(path); !w) {
      std::cerr << kCmd << ": " << flag << " " << path << ": " << w.error().message << "\n";
      code = kExitBadInput;
      return std::nullopt;
    }
  }
  return r;
}

// The trace text of one recording (until the kernel stops at the threshold, the duration
// ends or Ctrl-C); nullopt (with `code` set) when it cannot record. The tracer files are put
// back whatever happens.
std::optional<std::string> Record(SysRoot& root, const TracerSupport& support, const Request& req, bool& stopped,
                                  int& code) {
  if (!support.missing_events.empty()) {
    std::string list;
    for (const std::string& e : support.missing_events) list += (list.empty() ? "" : ", ") + e;
    std::cout << "The kernel lacks these events; their causes will not be named: " << list << "\n";
  }
  StopSignals signals;
  SessionSpec spec;
  spec.cpus = req.cpus;
  spec.threshold_us = req.threshold_ns ? *req.threshold_ns / 1000 : 0;
  std::cout << "Recording the timerlat tracer on CPU " << req.cpus.ToList() << " for up to "
            << std::chrono::duration_cast<std::chrono::seconds>(req.duration).count() << " s"
            << (req.threshold_ns ? ", stopping at a wake-up later than " + std::to_string(*req.threshold_ns / 1000) + " µs"
                                 : "")
            << " (virtual-machine figures when run in one)...\n";
  auto session = TracerSession::Start(root, support, spec);
  if (!session) {
    std::cerr << kCmd << ": " << session.error().message << "\n";
    code = kExitCannotRun;
    return std::nullopt;
  }
  const auto end = std::chrono::steady_clock::now() + req.duration;
  while (std::chrono::steady_clock::now() < end && !StopFlag().load()) {
    if ((stopped = session->StoppedByKernel())) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::string restore_error;
  auto text = session->Finish(restore_error);
  if (!restore_error.empty()) std::cerr << kCmd << ": tracefs not fully restored: " << restore_error << "\n";
  if (!text) {
    std::cerr << kCmd << ": " << text.error().message << "\n";
    code = kExitCannotRun;
    return std::nullopt;
  }
  return *text;
}

}  // namespace

int CmdExplain(const GlobalOptions& g, const ExplainOptions& o) {
  // 1. The CPUs, and a saved trace when one is named.
  CpuSet cpus;
  if (!o.cpus.empty()) {
    auto c = CpuSet::ParseList(o.cpus);
    if (!c || c->Empty()) {
      std::cerr << kCmd << ": --cpus " << o.cpus << ": " << (c ? "names no CPU" : c.error().message) << "\n";
      return kExitBadInput;
    }
    cpus = *c;
  }
  if (!o.diff.empty()) return Diff(o, cpus);
  if (!o.from.empty()) return FromFile(o, cpus);
  // 2. The profile and the request.
  int code = kExitOk;
  auto loaded = LoadForCommand("explain", g, o.profile, &code);
  if (!loaded) return code;
  std::optional<Request> req = ResolveRequest(o, cpus, loaded->profile.acceptance, code);
  if (!req) return code;
  // 3. Can this kernel record?
  SysRoot& root = *loaded->root;
  if (!CanWrite("explain", root)) return kExitCannotRun;
  TracerSupport support = ProbeTracers(root);
  if (!support.timerlat) {
    std::cerr << kCmd << ": cannot record here: " << support.reason << "\n";
    if (support.tracefs.empty()) {
      std::cerr << "  hint: mount it (mount -t tracefs nodev /" << kpath::kTracefs
                << "; systemd mounts it at boot) and run this again, or explain a trace recorded elsewhere with"
                   " --from TRACE (trace-cmd report, rtla timerlat -a)\n";
    }
    return kExitCannotRun;
  }
  // 4. Record, keep the trace when asked, and explain the wake-up.
  bool stopped = false;
  std::optional<std::string> text = Record(root, support, *req, stopped, code);
  if (!text) return code;
  if (!o.trace.empty()) {
    if (auto r = WriteTextFile(o.trace, *text); !r) {
      std::cerr << kCmd << ": --trace " << o.trace << ": " << r.error().message << "\n";
      return kExitBadInput;
    }
  }
  auto trace = ParseFtraceText(*text);
  if (!trace) {
    std::cerr << kCmd << ": the recorded trace: " << trace.error().message << "\n";
    return kExitCannotRun;
  }
  bool crossed = false;
  auto w = Choose(*trace, req->cpus, req->threshold_ns, crossed);
  if (!w) {
    std::cerr << kCmd << ": " << w.error().message << "\n";
    return stopped ? kExitFail : kExitOk;
  }
  return Report(*trace, *w, crossed || stopped, req->threshold_ns, o);
}

}  // namespace rtagent

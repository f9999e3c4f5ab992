#include "tune/irqbalance.h"

#include "base/kernel_paths.h"
#include "base/stale_temps.h"
#include "inspect/irqbalance.h"

namespace rtagent {

namespace {

constexpr const char* kWhy =
    "Real-Time Linux, chapters 3 and 6: irqbalance moves IRQs every ten seconds, onto isolated CPUs too, unless "
    "they are banned";
constexpr char kUnit[] = "irqbalance.service";
constexpr char kAbsent[] = "absent";
constexpr char kNoFile[] = "no-file";

Result<std::pair<std::string, std::string>> SplitKey(const std::string& key) {
  size_t hash = key.rfind('#');
  if (hash == std::string::npos) return InvalidInput("irqbalance-config: key " + key + " has no '#VAR'");
  return std::make_pair(key.substr(0, hash), key.substr(hash + 1));
}

}  // namespace

void PlanIrqbalance(const PlanContext& ctx, SectionPlan& plan) {
  const auto& mode = ctx.profile.irqs.irqbalance;
  if (*mode == profile::IrqbalanceMode::kLeave) return;
  const CpuSet& isolated = ctx.profile.cores.isolated->cpus;
  // Nothing to ban without isolated CPUs: no look through /proc at every plan (and hold tick).
  if (*mode == profile::IrqbalanceMode::kBan && isolated.Empty()) return;
  IrqbalanceInfo info = DetectIrqbalance(ctx.root, ctx.state.tasks.get());
  if (*mode == profile::IrqbalanceMode::kStop) {
    const bool masked = ctx.root.ReadLink(kpath::SystemdUnitMask(kUnit)).value_or("") == kpath::kSystemdMaskTarget;
    if (!info.running && !masked) return;  // nothing runs and nothing will: no item
    Change c;
    c.section = plan.section;
    c.what = "irqbalance (" + (info.running ? info.how : std::string("not running")) + ")";
    c.actuator = kIrqbalanceUnitActuator;
    c.key = kUnit;
    c.before = masked ? "masked" : info.running ? "running" : "stopped";
    c.after = "masked";
    c.why = kWhy;
    plan.items.push_back(std::move(c));
    return;
  }
  if (!info.running) return;
  const int nr = std::max(ctx.state.cpu_sets.nr_cpus, ctx.profile.system.NrIds());
  const std::string path = info.config.empty() ? kpath::kIrqbalanceDefault : info.config;
  std::string before = kNoFile;
  if (!info.config.empty()) before = EnvFileValue(info.config_text, info.ban_var).value_or(kAbsent);
  Change c;
  c.section = plan.section;
  c.what = "irqbalance banned CPUs (" + info.how + ")";
  c.actuator = kIrqbalanceConfigActuator;
  c.key = path + "#" + info.ban_var;
  c.before = before;
  const bool mask = info.ban_var == kBannedCpusVar;
  c.after = mask ? isolated.ToMask(nr) : isolated.ToList();
  c.compare = mask ? Compare::kCpuMask : Compare::kCpuList;
  c.why = kWhy;
  plan.items.push_back(std::move(c));
}

Result<std::string> IrqbalanceConfigActuator::Read(const std::string& key) {
  auto k = SplitKey(key);
  if (!k) return k.error();
  auto text = root_.Read(k->first);
  if (!text) return text.error().err == ENOENT ? Result<std::string>(kNoFile) : Result<std::string>(text.error());
  return EnvFileValue(*text, k->second).value_or(kAbsent);
}

Result<void> IrqbalanceConfigActuator::Write(const std::string& key, const std::string& value) {
  auto k = SplitKey(key);
  if (!k) return k.error();
  // Plain names, not a structured binding: the lambdas below use `path`, which clang before 16
  // does not allow for a binding (the fuzz and sanitizer builds use Debian's clang 14).
  const std::string& path = k->first;
  const std::string& var = k->second;
  auto had = root_.Read(path);
  auto put = [&](const std::optional<std::string>& text) -> Result<void> {
    // Not a kernel file: the whole file is replaced at once, so a crash leaves old or new.
    auto r = text ? root_.WriteDurable(path, *text) : root_.Remove(path);
    if (!r) return r;
    // And the temporary twin a killed earlier apply left, never renamed, goes.
    return RemoveStaleTemps(root_, path);
  };
  std::optional<std::string> next;
  if (value != kNoFile) {
    next = SetEnvFileValue(had.value_or(""), var, value == kAbsent ? std::nullopt : std::optional<std::string>(value));
  }
  if (auto r = put(next); !r) return r;
  // irqbalance reads its environment once, at start (irqbalance(1)).
  auto restart = [&]() {
    CommandRun run = runner_->Run({"systemctl", "try-restart", kUnit});
    const bool ok = !run.Failed();
    runs_.push_back(std::move(run));
    return ok;
  };
  if (restart()) return Ok();
  // The executor undoes only the writes that succeeded: like a boot file whose update step
  // failed, the file is put back here and irqbalance restarted on it again.
  const std::string status = runs_.back().Status();
  (void)put(had ? std::optional<std::string>(*had) : std::nullopt);
  restart();
  return Error{"systemctl try-restart " + std::string(kUnit) + ": " + status + "; " + path + " put back", EIO};
}

std::vector<CommandRun> IrqbalanceConfigActuator::TakeRuns() { return std::exchange(runs_, {}); }

Result<std::string> IrqbalanceUnitActuator::Read(const std::string& key) {
  if (root_.ReadLink(kpath::SystemdUnitMask(key)).value_or("") == kpath::kSystemdMaskTarget) return std::string("masked");
  return std::string(DetectIrqbalance(root_).running ? "running" : "stopped");
}

Result<void> IrqbalanceUnitActuator::Run(std::vector<std::string> argv) {
  CommandRun run = runner_->Run(argv);
  const bool failed = run.Failed();
  const std::string line = run.CommandLine() + ": " + run.Status();
  runs_.push_back(std::move(run));
  if (failed) return MakeError(line, EIO);
  return Ok();
}

Result<void> IrqbalanceUnitActuator::Write(const std::string& key, const std::string& value) {
  if (value == "masked") return Run({"systemctl", "mask", "--now", key});
  if (auto r = Run({"systemctl", "unmask", key}); !r) return r;
  return Run({"systemctl", value == "running" ? "start" : "stop", key});
}

std::vector<CommandRun> IrqbalanceUnitActuator::TakeRuns() { return std::exchange(runs_, {}); }

void AddIrqbalanceActuators(Executor& executor, SysRoot& root, const CommandRunnerFactory& factory) {
  executor.AddActuator(kIrqbalanceConfigActuator, std::make_unique<IrqbalanceConfigActuator>(root, factory(root)));
  executor.AddActuator(kIrqbalanceUnitActuator, std::make_unique<IrqbalanceUnitActuator>(root, factory(root)));
}

}  // namespace rtagent

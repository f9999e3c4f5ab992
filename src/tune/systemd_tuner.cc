#include "tune/systemd_tuner.h"

#include <cerrno>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"

namespace rtagent {

namespace {

using profile::CpuKeyword;
using profile::CpuSpec;

constexpr char kNoFile[] = "no-file";
constexpr const char* kWhy =
    "Real-Time Linux, chapter 6 (ordinary processes on the housekeeping CPUs); TuneD's cpu-partitioning "
    "[systemd] cpu_affinity";
constexpr const char* kReexec =
    "systemd reads CPUAffinity= only when it starts: run `systemctl daemon-reexec` or reboot, then services "
    "started after that run on these CPUs";

void CheckAffinity(const profile::CrossCheck& cc, const SystemdConfig& s) {
  const auto& a = s.cpu_affinity;
  if (a->keyword == CpuKeyword::kKeep) return;
  CpuSet on = a->cpus.Intersect(cc.Isolated());
  if (!on.Empty()) {
    cc.diags().Warning(a.mark, "systemd.cpu_affinity includes isolated CPU " + on.ToList(),
                       "every service would start there too; use housekeeping (Chapter 6)");
  }
}

// "Cpus_allowed_list:\t0-3" of proc/PID/status.
std::optional<std::string> CpusAllowed(const std::string& status) {
  for (std::string_view line : SplitLines(status)) {
    constexpr std::string_view kField = "Cpus_allowed_list:";
    if (line.substr(0, kField.size()) == kField) return Trim(line.substr(kField.size()));
  }
  return std::nullopt;
}

}  // namespace

std::string SystemdDropInText(const std::string& cpus) {
  return "# Written by `rtagent apply` (systemd.cpu_affinity); `rtagent revert` removes it.\n"
         "# systemd reads it when it starts or re-executes (systemctl daemon-reexec).\n"
         "[Manager]\nCPUAffinity=" + cpus + "\n";
}

const profile::Block<SystemdConfig>& SystemdSection() {
  const profile::CpuKeywords keep{false, true, true, true};
  static const profile::Block<SystemdConfig> kBlock{
      "systemd",
      "the service manager's CPU affinity",
      {
          profile::Cpus("cpu_affinity", &SystemdConfig::cpu_affinity, keep, profile::KeepCpus(),
                        "CPUs PID 1 and every service it starts run on")
              .Checked(CheckAffinity),
      }};
  return kBlock;
}

Result<std::string> DropInActuator::Read(const std::string& key) {
  auto text = root_.Read(key);
  if (!text) return text.error().err == ENOENT ? Result<std::string>(kNoFile) : text;
  return text;
}

Result<void> DropInActuator::Write(const std::string& key, const std::string& value) {
  if (value == kNoFile) return root_.Remove(key);
  return root_.WriteDurable(key, value);
}

Result<SectionPlan> SystemdTuner::Plan(const PlanContext& ctx) const {
  SectionPlan plan;
  plan.section = Section();
  const auto& want = SystemdOf(ctx.profile).cpu_affinity;
  if (want->keyword == CpuKeyword::kKeep || want->cpus.Empty()) return plan;
  auto now = ctx.root.Read(kSystemdDropIn);
  if (!now && now.error().err == ENOENT) now = std::string(kNoFile);
  if (!now) {
    plan.findings.push_back({Finding::Level::kError, std::string(kSystemdDropIn) + " cannot be read: " + now.error().message,
                             want.mark, kWhy});
    return plan;
  }
  Change c;
  c.section = plan.section;
  c.what = "systemd CPUAffinity= (" + std::string(kSystemdDropIn) + ")";
  c.actuator = kDropInActuator;
  c.key = kSystemdDropIn;
  c.before = *now;
  c.after = SystemdDropInText(want->cpus.ToList());
  c.compare = Compare::kExact;
  c.why = kWhy;
  const bool written = SameValue(c.compare, c.before, c.after);
  plan.items.push_back(std::move(c));
  if (!written) {
    plan.findings.push_back({Finding::Level::kInfo, kReexec, want.mark, kWhy});
    return plan;
  }
  // Written: on a live system, PID 1 tells whether it has re-executed since.
  if (!ctx.root.IsLive()) return plan;
  auto status = ctx.root.Read(kpath::TaskStatus(1, 1));
  std::optional<std::string> runs = status ? CpusAllowed(*status) : std::nullopt;
  if (!runs) return plan;
  auto set = CpuSet::ParseList(*runs);
  if (set && *set == want->cpus) return plan;
  plan.findings.push_back({Finding::Level::kWarning,
                           "systemd (PID 1) still runs on " + (set ? set->Named() : "CPUs " + *runs) + ", not " +
                               want->cpus.Named() + ": the drop-in is written but not read yet",
                           want.mark, kReexec});
  return plan;
}

void SystemdTuner::AddActuators(Executor& executor, SysRoot& root) const {
  executor.AddActuator(kDropInActuator, std::make_unique<DropInActuator>(root));
}

}  // namespace rtagent

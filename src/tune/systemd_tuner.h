// systemd: CPUAffinity= of the service manager (TuneD's cpu-partitioning [systemd] plugin),
// so PID 1 and every service it starts run on the housekeeping CPUs (Chapter 6). Written as a
// drop-in, /etc/systemd/system.conf.d/50-rtagent.conf (systemd-system.conf(5)), journaled like
// every item: a drop-in that did not exist is removed by revert. systemd reads it only when it
// starts or re-executes, so the plan says `systemctl daemon-reexec` or a reboot is needed, and
// verify on a live system compares PID 1's Cpus_allowed_list. The tuner declares its section.
#pragma once

#include "profile/keys.h"
#include "tune/tuner.h"

namespace rtagent {

/// What the profile's systemd section says.
struct SystemdConfig {
  profile::Marked<profile::CpuSpec> cpu_affinity;  ///< keep = leave
};

/// The systemd section's declaration; SystemdOf reads a loaded profile's.
const profile::Block<SystemdConfig>& SystemdSection();
inline const SystemdConfig& SystemdOf(const profile::Profile& p) { return SystemdSection().Of(p); }

/// The drop-in rtagent writes, root-relative. Not a kernel path: systemd's own configuration,
/// under the root like every file.
inline constexpr char kSystemdDropIn[] = "etc/systemd/system.conf.d/50-rtagent.conf";
/// The actuator that writes it (the key is the root-relative path).
inline constexpr char kDropInActuator[] = "dropin";
/// The drop-in's whole text for `cpus` ("0-1").
std::string SystemdDropInText(const std::string& cpus);

/// A whole file of rtagent's own. Key: its root-relative path. Reads its text, or "no-file";
/// writing "no-file" removes it, anything else writes it whole (durably, directories made).
class DropInActuator : public Actuator {
 public:
  explicit DropInActuator(SysRoot& root) : root_(root) {}
  Result<std::string> Read(const std::string& key) override;
  Result<void> Write(const std::string& key, const std::string& value) override;

 private:
  SysRoot& root_;
};

class SystemdTuner : public Tuner {
 public:
  std::string Section() const override { return SystemdSection().path(); }
  int Chapter() const override { return 6; }
  const profile::BlockBase* OwnSection() const override { return &SystemdSection(); }
  Result<SectionPlan> Plan(const PlanContext& ctx) const override;
  void AddActuators(Executor& executor, SysRoot& root) const override;
};

}  // namespace rtagent

// sysctls: any kernel sysctl the target has, as TuneD's [sysctl] plugin takes them
// (Documentation/admin-guide/sysctl/). memory.sysctl keeps the documented RT set with its
// ranges; this section takes every other key, checked against the target's proc/sys when the
// profile loads (a key the kernel lacks is an error with the nearest existing one as a hint).
// A key another section sets too is refused, naming both places.
#pragma once

#include "profile/keys.h"
#include "tune/memory_tuner.h"
#include "tune/tuner.h"

namespace rtagent {

/// What the profile's sysctls section says, in file order.
struct SysctlsConfig {
  std::vector<Sysctl> sysctls;  ///< name dotted as sysctl(8) spells it, value as written
};

/// The sysctls section's declaration; SysctlsOf reads a loaded profile's.
const profile::BlockBase& SysctlsSection();
/// The sysctls section of a loaded profile.
const SysctlsConfig& SysctlsOf(const profile::Profile& p);

/// A sysctl's dotted name from either form sysctl.d(5) accepts: "vm.stat_interval" or
/// "vm/stat_interval" (when the first separator is a '/', the dots after it belong to names:
/// "net/ipv4/conf/eth0.100/rp_filter" is "net.ipv4.conf.eth0/100.rp_filter").
std::string DottedSysctl(const std::string& key);

/// The value the profile gives a sysctl, in memory.sysctl or sysctls (a name cannot be in
/// both); nullptr when neither sets it. The lint and the profile's cross-checks ask here.
const Sysctl* ProfileSysctl(const profile::Profile& p, const std::string& dotted);

/// Plans the sysctls section: one file item per key, compared as integers or as words.
class SysctlsTuner : public Tuner {
 public:
  std::string Section() const override { return SysctlsSection().path(); }
  /// Chapter 6: most of what RT guides set here is the kernel's own noise on isolated CPUs.
  int Chapter() const override { return 6; }
  const profile::BlockBase* OwnSection() const override { return &SysctlsSection(); }
  Result<SectionPlan> Plan(const PlanContext& ctx) const override;
};

}  // namespace rtagent

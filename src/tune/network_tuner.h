// network: where received packets are steered (RPS) and which CPUs send on which queue (XPS),
// and busy polling (Documentation/networking/scaling.rst; Documentation/admin-guide/sysctl/
// net.rst). Issue 20: TuneD users had NIC softirq work kept off the isolated CPUs and busy
// polling set by network-latency; rtagent left every one of them alone. The tuner declares
// the profile's network section itself.
#pragma once

#include <optional>

#include "profile/keys.h"
#include "tune/tuner.h"

namespace rtagent {

/// What the profile's network section says.
struct NetworkConfig {
  profile::Marked<profile::CpuSpec> rps;              ///< rx-N/rps_cpus of every interface; keep = leave
  profile::Marked<profile::CpuSpec> xps;              ///< tx-N/xps_cpus of every interface; keep = leave
  profile::Marked<std::optional<int>> busy_poll;      ///< net.core.busy_poll (µs); nullopt = leave
  profile::Marked<std::optional<int>> busy_read;      ///< net.core.busy_read (µs); nullopt = leave
};

/// The network section's declaration; NetworkOf reads a loaded profile's.
const profile::Block<NetworkConfig>& NetworkSection();
/// The network section of a loaded profile.
inline const NetworkConfig& NetworkOf(const profile::Profile& p) { return NetworkSection().Of(p); }

/// Plans the RPS and XPS masks of every queue of every interface but loopback (as hex masks)
/// and the two busy polling sysctls.
class NetworkTuner : public Tuner {
 public:
  std::string Section() const override { return NetworkSection().path(); }
  /// Chapter 6: the network's softirq work is one of the chores kept off isolated CPUs.
  int Chapter() const override { return 6; }
  const profile::BlockBase* OwnSection() const override { return &NetworkSection(); }
  Result<SectionPlan> Plan(const PlanContext& ctx) const override;
};

}  // namespace rtagent

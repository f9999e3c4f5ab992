// network: where received packets are steered (RPS) and which CPUs send on which queue (XPS),
// and busy polling (Documentation/networking/scaling.rst; Documentation/admin-guide/sysctl/
// net.rst). Issue 20: TuneD users had NIC softirq work kept off the isolated CPUs and busy
// polling set by network-latency; rtagent left every one of them alone. The tuner declares
// the profile's network section itself.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/ethtool_port.h"

#include "profile/keys.h"
#include "tune/tuner.h"

namespace rtagent {

/// A channel count from the profile: a number, or as many as the housekeeping CPUs.
struct ChannelCount {
  bool housekeeping = false;
  int n = 0;
};

/// network.channels: the queue counts of NIC drivers (ethtool -L; TuneD's `channels =
/// combined N`). Absent, channels are left alone.
struct ChannelsConfig {
  profile::Marked<bool> given;                                ///< the mapping is in the profile
  profile::Marked<std::optional<ChannelCount>> combined;      ///< nullopt: housekeeping unless rx/tx are given
  profile::Marked<std::optional<ChannelCount>> rx;            ///< receive-only channels; nullopt = leave
  profile::Marked<std::optional<ChannelCount>> tx;            ///< transmit-only channels; nullopt = leave
  profile::Marked<std::vector<std::string>> devices;          ///< empty: every interface but lo
};

/// What the profile's network section says.
struct NetworkConfig {
  ChannelsConfig channels;
  profile::Marked<profile::CpuSpec> rps;              ///< rx-N/rps_cpus of every interface; keep = leave
  profile::Marked<profile::CpuSpec> xps;              ///< tx-N/xps_cpus of every interface; keep = leave
  profile::Marked<std::optional<int>> busy_poll;      ///< net.core.busy_poll (µs); nullopt = leave
  profile::Marked<std::optional<int>> busy_read;      ///< net.core.busy_read (µs); nullopt = leave
};

/// The network section's declaration; NetworkOf reads a loaded profile's.
const profile::Block<NetworkConfig>& NetworkSection();
/// The network section of a loaded profile.
inline const NetworkConfig& NetworkOf(const profile::Profile& p) { return NetworkSection().Of(p); }

/// Makes the channels port for a root (base/ethtool_port.h); tests hand in their own.
using EthtoolFactory = std::function<std::unique_ptr<EthtoolPort>(const SysRoot& reads, SysRoot* writes)>;

/// Plans the channel counts of the NICs the profile names (actuator "channels", key
/// "IFACE KIND"), the RPS and XPS masks of every queue of every interface but loopback (as hex
/// masks; for an interface whose channels change, the queues it will have), and the two busy
/// polling sysctls.
class NetworkTuner : public Tuner {
 public:
  explicit NetworkTuner(EthtoolFactory factory = MakeEthtoolPort) : factory_(std::move(factory)) {}
  std::string Section() const override { return NetworkSection().path(); }
  /// Chapter 6: the network's softirq work is one of the chores kept off isolated CPUs.
  int Chapter() const override { return 6; }
  const profile::BlockBase* OwnSection() const override { return &NetworkSection(); }
  Result<SectionPlan> Plan(const PlanContext& ctx) const override;
  /// "channels": the channel counts through the port (netlink live, the fixture file under --root).
  void AddActuators(Executor& executor, SysRoot& root) const override;

 private:
  EthtoolFactory factory_;
};

/// Reads and writes one channel count: key "IFACE KIND" (kind combined, rx or tx), the value
/// a decimal count. Not batchable: the queues an RPS or XPS item addresses exist only once
/// the count is written.
class ChannelsActuator : public Actuator {
 public:
  explicit ChannelsActuator(std::unique_ptr<EthtoolPort> port) : port_(std::move(port)) {}
  Result<std::string> Read(const std::string& key) override;
  Result<void> Write(const std::string& key, const std::string& value) override;
  bool Batchable() const override { return false; }

 private:
  std::unique_ptr<EthtoolPort> port_;
};

}  // namespace rtagent

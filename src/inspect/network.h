// The network interfaces and their channel counts (the queues `network.channels` sets), so a
// user sees before apply what the setting will change. The counts come through the ethtool
// port (base/ethtool_port.h): netlink on the running system, the fixture file under --root.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/ethtool_port.h"
#include "base/sysroot.h"

namespace rtagent {

/// How an interface's channel counts were read.
enum class ChannelsState {
  kOk,            ///< `channels` holds them
  kNotSupported,  ///< the driver has no channel settings (EOPNOTSUPP): fixed queues
  kNotReadable,   ///< another error (no ethtool netlink before Linux 5.6, ...): `error` says
};

/// One interface (loopback left out, as network.channels leaves it).
struct NicInfo {
  std::string name;
  std::optional<std::string> operstate;  ///< `up`, `down`, `unknown`, ...; nullopt when absent
  ChannelsState channels_state = ChannelsState::kNotReadable;
  std::optional<Channels> channels;      ///< current and maximum counts when kOk
  std::string error;                     ///< the port's message when kNotReadable
};

/// What inspect's "network" section shows.
struct NetworkState {
  bool listed = false;          ///< the class/net directory could be listed
  std::vector<NicInfo> nics;    ///< sorted by name
};

/// Lists the interfaces under `root` and reads each one's channels through `port`. Lists each
/// interface's directory, so a capture through a recording root holds it.
NetworkState CollectNetwork(const SysRoot& root, const EthtoolPort& port);

/// "ok", "not_supported", "not_readable" (the JSON's names).
std::string ChannelsStateName(ChannelsState s);

}  // namespace rtagent

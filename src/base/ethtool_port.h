// A network interface's channel counts (the queues its driver runs: `ethtool -l/-L`), through
// the kernel's ethtool netlink interface (genetlink family "ethtool", ETHTOOL_MSG_CHANNELS_GET
// and _SET, include/uapi/linux/ethtool_netlink.h, Documentation/networking/ethtool-netlink.rst).
// Channels have no file under /sys, so they sit behind their own seam, like the scheduling
// syscalls: the live port talks netlink (libmnl, as ethtool itself does), the fixture twin
// reads and writes a file of the fixture tree, and under --root nothing reaches the running
// system's NICs (STYLE.md, "One door").
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "base/kernel_paths.h"
#include "base/result.h"
#include "base/sysroot.h"

namespace rtagent {

namespace kpath {
/// A network interface's directory: its existence is the interface's.
inline std::string NetDevice(const std::string& iface) { return kNetClassDir + "/" + iface; }
/// An interface's operational state (RFC 2863: up, down, dormant, unknown, ...).
inline std::string NetOperstate(const std::string& iface) { return NetDevice(iface) + "/operstate"; }
/// The fixture twin of the kernel's channel counts (ETHTOOL_MSG_CHANNELS_GET has no file):
/// "name value" lines (combined_max 8, combined 4, ...) a fixture tree may hold beside an
/// interface's sysfs files. Never read on a live system, where the counts come over netlink.
inline std::string NetChannelsFixture(const std::string& iface) { return NetDevice(iface) + "/rtagent-channels"; }
}  // namespace kpath

/// What ETHTOOL_MSG_CHANNELS_GET answers: each kind's maximum and current count. A driver
/// that has no kind of channel reports its maximum as 0.
struct Channels {
  uint32_t rx_max = 0, tx_max = 0, other_max = 0, combined_max = 0;
  uint32_t rx = 0, tx = 0, other = 0, combined = 0;
};

/// The new counts of a CHANNELS_SET: only the kinds given are sent, the others stay.
struct ChannelCounts {
  std::optional<uint32_t> rx, tx, combined;
};

/// Reads and sets channel counts. Errors carry the kernel's errno: ENODEV for an interface
/// that does not exist, EOPNOTSUPP for a driver without channel support, EINVAL for a count
/// above the maximum (the message then holds the kernel's extended ack text when it gave one),
/// EPERM without CAP_NET_ADMIN.
class EthtoolPort {
 public:
  virtual ~EthtoolPort() = default;
  virtual Result<Channels> Get(const std::string& iface) const = 0;
  virtual Result<void> Set(const std::string& iface, const ChannelCounts& counts) = 0;
};

/// The port for a root: netlink only when `reads` is the running system (and `writes` too, when
/// given), the fixture twin otherwise. `writes` is null when only reading (plan).
std::unique_ptr<EthtoolPort> MakeEthtoolPort(const SysRoot& reads, SysRoot* writes);

/// The live port over netlink (ethtool_netlink.cc), or over the SIOCETHTOOL ioctl on a kernel
/// without the ethtool netlink family (before 5.6, or built without CONFIG_ETHTOOL_NETLINK).
/// `family` is the generic netlink family it asks for: "ethtool" (ETHTOOL_GENL_NAME); tests
/// name one no kernel has, to take the ioctl path on this one.
std::unique_ptr<EthtoolPort> MakeNetlinkEthtoolPort(const std::string& family = "ethtool");

/// The twin over a fixture tree: kpath::NetChannelsFixture(iface) holds "name value" lines
/// (rx_max tx_max other_max combined_max rx tx other combined); a missing interface directory
/// is ENODEV, a missing file EOPNOTSUPP, and Set checks the maxima as the kernel does
/// (ethnl_set_channels: EINVAL above a maximum) before rewriting the file.
class FixtureEthtoolPort : public EthtoolPort {
 public:
  FixtureEthtoolPort(const SysRoot& reads, SysRoot* writes) : reads_(reads), writes_(writes) {}
  Result<Channels> Get(const std::string& iface) const override;
  Result<void> Set(const std::string& iface, const ChannelCounts& counts) override;

 private:
  const SysRoot& reads_;
  SysRoot* writes_;
};

/// The fixture file's text for `c` (FixtureEthtoolPort's format).
std::string FormatChannelsFixture(const Channels& c);

}  // namespace rtagent

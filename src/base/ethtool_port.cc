#include "base/ethtool_port.h"

#include <cerrno>
#include <sstream>
#include <utility>
#include <vector>

#include "base/kernel_paths.h"

namespace rtagent {

namespace {

// The fixture file's fields, in the order ETHTOOL_A_CHANNELS_* lists them.
struct Field {
  const char* name;
  uint32_t Channels::*member;
};
const std::vector<Field>& Fields() {
  static const std::vector<Field> kFields{
      {"rx_max", &Channels::rx_max}, {"tx_max", &Channels::tx_max}, {"other_max", &Channels::other_max},
      {"combined_max", &Channels::combined_max}, {"rx", &Channels::rx}, {"tx", &Channels::tx},
      {"other", &Channels::other}, {"combined", &Channels::combined}};
  return kFields;
}

Result<Channels> ParseFixture(const std::string& path, const std::string& text) {
  Channels c;
  std::istringstream in(text);
  std::string name;
  long long value = 0;
  while (in >> name >> value) {
    bool known = false;
    for (const Field& f : Fields()) {
      if (name != f.name) continue;
      if (value < 0 || value > UINT32_MAX) return MakeError(path + ": " + name + " " + std::to_string(value) + " is out of range");
      c.*f.member = static_cast<uint32_t>(value);
      known = true;
    }
    if (!known) return MakeError(path + ": unknown field \"" + name + "\"");
  }
  if (!in.eof()) return MakeError(path + ": expected \"name value\" lines");
  return c;
}

}  // namespace

std::string FormatChannelsFixture(const Channels& c) {
  std::string out;
  for (const Field& f : Fields()) out += std::string(f.name) + " " + std::to_string(c.*f.member) + "\n";
  return out;
}

Result<Channels> FixtureEthtoolPort::Get(const std::string& iface) const {
  if (!reads_.IsDir(kpath::NetDevice(iface))) return MakeError("no network interface " + iface, ENODEV);
  const std::string path = kpath::NetChannelsFixture(iface);
  auto text = reads_.Read(path);
  if (!text) {
    // No file: the fixture's driver has no get_channels, as the kernel answers then.
    if (text.error().err == ENOENT) return MakeError("channels of " + iface, EOPNOTSUPP);
    return text.error();
  }
  return ParseFixture(path, *text);
}

Result<void> FixtureEthtoolPort::Set(const std::string& iface, const ChannelCounts& counts) {
  if (writes_ == nullptr) return MakeError("channels of " + iface + ": read-only port", EROFS);
  auto now = Get(iface);
  if (!now) return now.error();
  Channels c = *now;
  // ethnl_set_channels (net/ethtool/channels.c): a count above its maximum is refused, and
  // so is a result with no receive or no transmit queue left.
  auto take = [&](const std::optional<uint32_t>& want, uint32_t Channels::*count, uint32_t max,
                  const char* kind) -> Result<void> {
    if (!want) return Ok();
    if (*want > max) {
      return InvalidInput("channels of " + iface + ": requested " + kind + " count " + std::to_string(*want) +
                              " exceeds maximum " + std::to_string(max));
    }
    c.*count = *want;
    return Ok();
  };
  if (auto r = take(counts.rx, &Channels::rx, now->rx_max, "rx"); !r) return r;
  if (auto r = take(counts.tx, &Channels::tx, now->tx_max, "tx"); !r) return r;
  if (auto r = take(counts.combined, &Channels::combined, now->combined_max, "combined"); !r) return r;
  if (c.combined + c.rx == 0 || c.combined + c.tx == 0) {
    return InvalidInput("channels of " + iface + ": requested channel counts leave no receive or transmit queue");
  }
  return writes_->Write(kpath::NetChannelsFixture(iface), FormatChannelsFixture(c));
}

std::unique_ptr<EthtoolPort> MakeEthtoolPort(const SysRoot& reads, SysRoot* writes) {
  // Only the running system gets netlink; a fixture interface that shares a live one's name
  // never reaches that NIC.
  if (reads.IsLive() && (writes == nullptr || writes->IsLive())) return MakeNetlinkEthtoolPort();
  return std::make_unique<FixtureEthtoolPort>(reads, writes);
}

}  // namespace rtagent

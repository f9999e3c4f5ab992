#include "inspect/network.h"

#include <algorithm>
#include <cerrno>
#include <utility>

#include "base/kernel_paths.h"

namespace rtagent {

NetworkState CollectNetwork(const SysRoot& root, const EthtoolPort& port) {
  NetworkState st;
  auto names = root.List(kpath::kNetClassDir);
  if (!names) return st;
  st.listed = true;
  std::vector<std::string> sorted = std::move(*names);
  std::sort(sorted.begin(), sorted.end());
  for (const std::string& name : sorted) {
    if (name == "lo") continue;
    NicInfo nic;
    nic.name = name;
    (void)root.List(kpath::NetDevice(name));  // recorded by a capture: the interface exists there too
    if (auto s = root.ReadTrimmed(kpath::NetOperstate(name))) nic.operstate = *s;
    auto ch = port.Get(name);
    if (ch) {
      nic.channels_state = ChannelsState::kOk;
      nic.channels = *ch;
    } else if (ch.error().err == EOPNOTSUPP) {
      nic.channels_state = ChannelsState::kNotSupported;
    } else if (ch.error().err == ENODEV) {
      continue;  // gone between the listing and the read
    } else {
      nic.error = ch.error().message;
    }
    st.nics.push_back(std::move(nic));
  }
  return st;
}

std::string ChannelsStateName(ChannelsState s) {
  switch (s) {
    case ChannelsState::kOk: return "ok";
    case ChannelsState::kNotSupported: return "not_supported";
    case ChannelsState::kNotReadable: return "not_readable";
  }
  return "?";
}

}  // namespace rtagent

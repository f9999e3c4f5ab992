// The channels seam: the fixture twin answers as the kernel does (ENODEV, EOPNOTSUPP, EINVAL
// above a maximum) and rewrites only its own file; the live port (netlink, or SIOCETHTOOL on a
// kernel without the netlink family) is read here, and asked to write only to loopback, which
// has no channels, and to an interface that does not exist: this machine's NICs never change.
#include "base/ethtool_port.h"

#include <net/if.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "base/child_test_support.h"
#include "base/fault_root.h"
#include "base/skip_test_support.h"

using namespace rtagent;

namespace {

Channels Combined(uint32_t now, uint32_t max) {
  Channels c;
  c.combined = now;
  c.combined_max = max;
  return c;
}

}  // namespace

TEST_CASE("ethtool fixture port: counts read, set within the maxima, refused above them", "[base]") {
  TempTree t;
  t.Put(kpath::NetChannelsFixture("eth0"), FormatChannelsFixture(Combined(4, 8)));
  FsRoot root(t.dir());
  FixtureEthtoolPort port(root, &root);
  auto got = port.Get("eth0");
  REQUIRE(got);
  CHECK(got->combined == 4);
  CHECK(got->combined_max == 8);
  CHECK(got->rx_max == 0);

  ChannelCounts two;
  two.combined = 2;
  REQUIRE(port.Set("eth0", two));
  CHECK(port.Get("eth0")->combined == 2);
  CHECK(t.Get(kpath::NetChannelsFixture("eth0")) == FormatChannelsFixture(Combined(2, 8)));

  ChannelCounts nine;
  nine.combined = 9;
  auto above = port.Set("eth0", nine);
  REQUIRE_FALSE(above);
  CHECK(above.error().err == EINVAL);
  CHECK_THAT(above.error().message, Catch::Contains("exceeds maximum 8"));
  CHECK(port.Get("eth0")->combined == 2);

  ChannelCounts rx;
  rx.rx = 1;  // this driver has no rx-only channels
  CHECK(port.Set("eth0", rx).error().err == EINVAL);

  ChannelCounts none;
  none.combined = 0;
  auto empty = port.Set("eth0", none);
  REQUIRE_FALSE(empty);
  CHECK_THAT(empty.error().message, Catch::Contains("no receive or transmit queue"));
}

TEST_CASE("ethtool fixture port: a missing interface is ENODEV, a driver without channels EOPNOTSUPP", "[base]") {
  TempTree t;
  t.Put(kpath::NetDevice("dummy0") + "/mtu", "1500\n");
  t.Put(kpath::NetChannelsFixture("bad0"), "combined_max 4\nqueues 2\n");
  FsRoot root(t.dir());
  FixtureEthtoolPort port(root, &root);
  CHECK(port.Get("eth9").error().err == ENODEV);
  CHECK(port.Get("dummy0").error().err == EOPNOTSUPP);
  ChannelCounts one;
  one.combined = 1;
  CHECK(port.Set("dummy0", one).error().err == EOPNOTSUPP);
  auto bad = port.Get("bad0");
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().message, Catch::Contains("unknown field \"queues\""));
}

TEST_CASE("ethtool fixture port: read-only when planning, and a write fault is the writer's", "[base]") {
  TempTree t;
  t.Put(kpath::NetChannelsFixture("eth0"), FormatChannelsFixture(Combined(4, 8)));
  FaultRoot root(t.dir());
  FixtureEthtoolPort reading(root, nullptr);
  ChannelCounts two;
  two.combined = 2;
  CHECK(reading.Set("eth0", two).error().err == EROFS);
  root.FailWrites(kpath::NetChannelsFixture("eth0"), EPERM);
  FixtureEthtoolPort port(root, &root);
  CHECK(port.Set("eth0", two).error().err == EPERM);
  CHECK(port.Get("eth0")->combined == 4);
}

TEST_CASE("ethtool port: a fixture root never gets the netlink port", "[base]") {
  TempTree t;
  t.Put(kpath::NetChannelsFixture("lo"), FormatChannelsFixture(Combined(1, 1)));
  FsRoot root(t.dir());
  auto port = MakeEthtoolPort(root, &root);
  REQUIRE(dynamic_cast<FixtureEthtoolPort*>(port.get()) != nullptr);
  CHECK(port->Get("lo")->combined == 1);  // the fixture's lo, not this machine's
}

TEST_CASE("ethtool netlink port: reads this machine's loopback and a missing interface, writes nothing", "[base][host]") {
  auto port = MakeNetlinkEthtoolPort();
  // Loopback has no get_channels: the kernel answers EOPNOTSUPP (net/ethtool/channels.c).
  auto lo = port->Get("lo");
  REQUIRE_FALSE(lo);
  INFO(lo.error().message);
  if (lo.error().err == EPROTONOSUPPORT || lo.error().err == EAFNOSUPPORT) {
    RTAGENT_SKIP("no generic netlink here: " << lo.error().message);
  }
  CHECK(lo.error().err == EOPNOTSUPP);
  auto none = port->Get("rtagent-none0");
  REQUIRE_FALSE(none);
  CHECK(none.error().err == ENODEV);
}

TEST_CASE("ethtool port without the netlink family: SIOCETHTOOL answers as netlink does, on every interface",
          "[base][host]") {
  // A family no kernel has stands for a kernel built without CONFIG_ETHTOOL_NETLINK (the
  // controller answers ENOENT for both): the port takes the ioctl, as ethtool(8) does.
  auto netlink = MakeNetlinkEthtoolPort();
  auto ioctl = MakeNetlinkEthtoolPort("rtagent-none");
  if (auto lo = netlink->Get("lo"); !lo && (lo.error().err == EPROTONOSUPPORT || lo.error().err == EAFNOSUPPORT)) {
    RTAGENT_SKIP("no generic netlink here: " << lo.error().message);
  }
  int with_channels = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/sys/class/net")) {
    const std::string iface = entry.path().filename();
    INFO(iface);
    auto a = netlink->Get(iface);
    auto b = ioctl->Get(iface);
    REQUIRE(a.ok() == b.ok());
    if (!a) {
      CHECK(b.error().err == a.error().err);
      CHECK(b.error().message == "channels of " + iface + " (SIOCETHTOOL): " + std::strerror(a.error().err));
      continue;
    }
    ++with_channels;
    CHECK(b->rx_max == a->rx_max);
    CHECK(b->tx_max == a->tx_max);
    CHECK(b->other_max == a->other_max);
    CHECK(b->combined_max == a->combined_max);
    CHECK(b->rx == a->rx);
    CHECK(b->tx == a->tx);
    CHECK(b->other == a->other);
    CHECK(b->combined == a->combined);
  }
  INFO("interfaces with channel settings compared: " << with_channels);
  auto none = ioctl->Get("rtagent-none0");
  REQUIRE_FALSE(none);
  CHECK(none.error().err == ENODEV);
  auto long_name = ioctl->Get(std::string(IFNAMSIZ, 'x'));
  REQUIRE_FALSE(long_name);
  CHECK(long_name.error().err == ENODEV);
  // Writes only where nothing can change: loopback has no channels, the other is not there.
  auto lo = ioctl->Set("lo", ChannelCounts{.rx = {}, .tx = {}, .combined = 1});
  REQUIRE_FALSE(lo);
  CHECK(lo.error().err == EOPNOTSUPP);
  CHECK(lo.error().message == std::string("setting the channels of lo (SIOCETHTOOL): ") + std::strerror(EOPNOTSUPP));
  auto gone = ioctl->Set("rtagent-none0", ChannelCounts{.rx = {}, .tx = {}, .combined = 1});
  REQUIRE_FALSE(gone);
  CHECK(gone.error().err == ENODEV);
}

// The ioctl's writes, for real, on a veth pair in a network namespace that only a child process
// enters: this machine's interfaces are neither seen nor changed, and the pair goes with it.
TEST_CASE("SIOCETHTOOL sets a veth pair's channels in a network namespace of its own", "[base][host]") {
  if (::geteuid() != 0) RTAGENT_SKIP("a network namespace of its own needs root");
  if (std::system("command -v ip >/dev/null 2>&1") != 0) RTAGENT_SKIP("no ip (iproute2) to make the veth pair");
  // The child says what went wrong in words, or "ok".
  const test::ChildWords child = test::RunChild([](const test::Say& say) {
    test::EnterNetnsWithVeth(say);
    auto ioctl = MakeNetlinkEthtoolPort("rtagent-none");
    auto before = ioctl->Get("v0");
    if (!before) say("get before: " + before.error().message);
    if (before->rx_max != 4 || before->tx_max != 4 || before->combined_max != 0) say("v0's maxima are not 4 rx, 4 tx, no combined");
    if (auto set = ioctl->Set("v0", ChannelCounts{.rx = 2, .tx = 3, .combined = {}}); !set) say("set: " + set.error().message);
    auto after = MakeNetlinkEthtoolPort()->Get("v0");  // read back the other way
    if (!after) say("get after: " + after.error().message);
    if (after->rx != 2 || after->tx != 3) {
      say("after the set, netlink reads rx " + std::to_string(after->rx) + ", tx " + std::to_string(after->tx));
    }
    auto too_many = ioctl->Set("v0", ChannelCounts{.rx = 8, .tx = {}, .combined = {}});
    if (too_many) say("8 rx channels above a maximum of 4 were taken");
    if (too_many.error().err != EINVAL) say("above the maximum: " + too_many.error().message);
    auto kept = ioctl->Get("v0");
    if (!kept || kept->rx != 2 || kept->tx != 3) say("a refused set changed the counts");
    say("ok");
  });
  CHECK(child.exited);
  const std::string& said = child.said;
  if (said.rfind("no network namespace", 0) == 0) RTAGENT_SKIP(said);
  CHECK(said == "ok");
}

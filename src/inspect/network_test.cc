// inspect's network section: each NIC's channel counts (current and maximum per kind) through
// the ethtool port, a NIC without channel settings said as such, and a capture that replays
// the counts. Fixture trees, except the last case, which reads this machine's NICs (read-only).
#include "inspect/network.h"

#include <catch2/catch.hpp>
#include <cerrno>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "base/fault_root.h"
#include "base/skip_test_support.h"
#include "inspect/capture.h"
#include "inspect/inspect_json.h"
#include "inspect/inspect_test_support.h"
#include "inspect/inspect_text.h"
#include "inspect/system_state.h"

using namespace rtagent;
using rtagent::testing::Fixture;
using rtagent::testing::RunRtagent;
namespace fs = std::filesystem;

namespace {

// x86-ipc-4cpu with enp2s0 (an igb: 4 of 8 combined channels, one "other" for its link IRQ),
// veth0 (one rx and one tx queue, no combined ones), wlan0 (no channel settings) and lo.
void AddNics(const TempTree& t) {
  Channels igb;
  igb.combined = 4;
  igb.combined_max = 8;
  igb.other = igb.other_max = 1;
  t.Put(kpath::NetChannelsFixture("enp2s0"), FormatChannelsFixture(igb));
  t.Put(kpath::NetOperstate("enp2s0"), "up\n");
  Channels veth;
  veth.rx = veth.tx = veth.rx_max = veth.tx_max = 1;
  t.Put(kpath::NetChannelsFixture("veth0"), FormatChannelsFixture(veth));
  t.Put(kpath::NetOperstate("veth0"), "up\n");
  t.Put(kpath::NetOperstate("wlan0"), "down\n");
  t.Put(kpath::NetOperstate("lo"), "unknown\n");
}

// A port that answers as netlink would on a live system: no file behind it.
class MapPort : public EthtoolPort {
 public:
  std::map<std::string, Result<Channels>> answers;
  Result<Channels> Get(const std::string& iface) const override {
    auto it = answers.find(iface);
    if (it == answers.end()) return MakeError("no network interface " + iface, ENODEV);
    return it->second;
  }
  Result<void> Set(const std::string&, const ChannelCounts&) override { return MakeError("read-only", EROFS); }
};

std::string Line(const std::string& text, const std::string& start) {
  size_t b = text.find("\n  " + start);
  if (b == std::string::npos) return "";
  return text.substr(b + 3, text.find('\n', b + 1) - b - 3);
}

}  // namespace

TEST_CASE("inspect shows each NIC's channels, current of maximum, and a driver without them as such", "[inspect]") {
  TempTree t(Fixture("x86-ipc-4cpu"));
  AddNics(t);
  auto text = RunRtagent("--root " + t.dir() + " inspect --section network");
  REQUIRE(text.code == 0);
  CHECK(text.out.find("NETWORK\n") == 0);
  CHECK(Line(text.out, "INTERFACE") ==
        "INTERFACE  STATE  CHANNELS (current of the driver's maximum; network.channels sets them)");
  CHECK(Line(text.out, "enp2s0") == "enp2s0     up     combined 4 of 8, other 1 of 1");
  CHECK(Line(text.out, "veth0") == "veth0      up     rx 1 of 1, tx 1 of 1");
  CHECK(Line(text.out, "wlan0") == "wlan0      down   no channels (driver)");
  CHECK(Line(text.out, "lo ") == "");  // loopback is left out, as network.channels leaves it

  auto json = RunRtagent("--root " + t.dir() + " inspect --json --section network");
  REQUIRE(json.code == 0);
  auto j = nlohmann::json::parse(json.out)["network"];
  CHECK(j["listed"] == true);
  REQUIRE(j["interfaces"].size() == 3);
  auto enp = j["interfaces"][0];
  CHECK(enp["name"] == "enp2s0");
  CHECK(enp["operstate"] == "up");
  CHECK(enp["channels_state"] == "ok");
  CHECK(enp["channels"]["combined"] == 4);
  CHECK(enp["channels"]["combined_max"] == 8);
  CHECK(enp["channels"]["rx_max"] == 0);
  auto wlan = j["interfaces"][2];
  CHECK(wlan["channels_state"] == "not_supported");
  CHECK(wlan["channels"].is_null());  // not zeros
  CHECK(wlan["channels_error"].is_null());
}

TEST_CASE("inspect: channels that cannot be read say why, and a tree without class/net says absent", "[inspect]") {
  TempTree t(Fixture("x86-ipc-4cpu"));
  AddNics(t);
  FsRoot root(t.dir());
  MapPort port;
  port.answers.emplace("enp2s0", MakeError("channels of enp2s0", EPERM));
  port.answers.emplace("veth0", MakeError("channels of veth0", EOPNOTSUPP));
  port.answers.emplace("wlan0", MakeError("no network interface wlan0", ENODEV));  // gone meanwhile
  SystemState s = CollectSystemState(root, {Section::kNetwork}, &port);
  REQUIRE(s.network);
  REQUIRE(s.network->nics.size() == 2);
  std::string text = InspectText(s);
  CHECK(Line(text, "enp2s0") == "enp2s0     up     cannot be read: channels of enp2s0: Operation not permitted");
  CHECK(Line(text, "veth0") == "veth0      up     no channels (driver)");
  auto j = InspectJson(s)["network"]["interfaces"][0];
  CHECK(j["channels_state"] == "not_readable");
  CHECK(j["channels_error"] == "channels of enp2s0: Operation not permitted");

  auto none = RunRtagent("--root " + Fixture("x86-ipc-4cpu") + " inspect --section network");
  CHECK(none.out == "NETWORK\n  interfaces  absent (no class/net directory)\n");
  TempTree lo_only(Fixture("x86-ipc-4cpu"));
  lo_only.Put(kpath::NetOperstate("lo"), "unknown\n");
  CHECK(RunRtagent("--root " + lo_only.dir() + " inspect --section network").out == "NETWORK\n  interfaces  none but lo\n");
}

TEST_CASE("a capture replays the channels: the fixture's file copied, a live port's counts written", "[inspect][capture]") {
  TempTree t(Fixture("x86-ipc-4cpu"));
  AddNics(t);
  FsRoot source(t.dir());
  const nlohmann::ordered_json want = InspectJson(CollectSystemState(source, {Section::kNetwork}))["network"];

  TempTree copy;
  auto r = Capture(source, copy.dir() + "/tree", false, "test");
  REQUIRE(r.ok());
  FsRoot replay(copy.dir() + "/tree");
  CHECK(InspectJson(CollectSystemState(replay, {Section::kNetwork}))["network"] == want);

  // A port with no file behind it, as netlink on the running system: capture writes its counts.
  TempTree bare(Fixture("x86-ipc-4cpu"));
  for (const char* nic : {"enp2s0", "veth0", "wlan0"}) bare.Put(kpath::NetOperstate(nic), std::string(nic) == "wlan0" ? "down\n" : "up\n");
  FsRoot live_like(bare.dir());
  FsRoot fixture(t.dir());
  FixtureEthtoolPort answers(fixture, nullptr);
  TempTree out;
  auto c = Capture(live_like, out.dir() + "/tree", false, "test", &answers);
  REQUIRE(c.ok());
  CHECK(c->copy_errors.empty());
  CHECK(out.Get("tree/" + kpath::NetChannelsFixture("enp2s0")) == t.Get(kpath::NetChannelsFixture("enp2s0")));
  CHECK_FALSE(fs::exists(out.dir() + "/tree/" + kpath::NetChannelsFixture("wlan0")));  // no channels: no file
  CHECK(out.Get("tree/MANIFEST").find("  " + kpath::NetChannelsFixture("veth0") + "\n") != std::string::npos);
  FsRoot replayed(out.dir() + "/tree");
  CHECK(InspectJson(CollectSystemState(replayed, {Section::kNetwork}))["network"] == want);
}

TEST_CASE("inspect reads this machine's NICs' channels read-only and a capture replays them", "[inspect][host]") {
  if (!fs::exists("/sys/class/net")) {
    RTAGENT_SKIP("needs a live sysfs");
  }
  auto r = RunRtagent("inspect --json --section network");
  REQUIRE(r.code == 0);
  auto j = nlohmann::json::parse(r.out)["network"];
  CHECK(j["listed"] == true);
  size_t nics = 0;
  for (const auto& e : fs::directory_iterator("/sys/class/net")) nics += e.path().filename() != "lo";
  REQUIRE(j["interfaces"].size() == nics);
  for (const auto& nic : j["interfaces"]) {
    INFO(nic.dump());
    // netlink answers without privileges: every NIC's counts or its driver's lack of them
    CHECK(nic["channels_state"] != "not_readable");
    if (nic["channels_state"] != "ok") continue;
    for (const char* kind : {"combined", "rx", "tx", "other"}) {
      CHECK(nic["channels"][kind].get<unsigned>() <= nic["channels"][std::string(kind) + "_max"].get<unsigned>());
    }
  }
  TempTree out;
  REQUIRE(RunRtagent("capture -o " + out.dir() + "/live").code == 0);
  auto replay = RunRtagent("--root " + out.dir() + "/live inspect --json --section network");
  REQUIRE(replay.code == 0);
  auto k = nlohmann::json::parse(replay.out)["network"];
  REQUIRE(k["interfaces"].size() == j["interfaces"].size());
  for (size_t i = 0; i < k["interfaces"].size(); ++i) {
    CHECK(k["interfaces"][i]["name"] == j["interfaces"][i]["name"]);
    CHECK(k["interfaces"][i]["channels"] == j["interfaces"][i]["channels"]);
    CHECK(k["interfaces"][i]["channels_state"] == j["interfaces"][i]["channels_state"]);
  }
}

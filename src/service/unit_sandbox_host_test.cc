// The shipped units' sandbox against what network.channels needs of it: a NIC's channels are
// read (verify, hold) and set (hold) from inside the sandbox that systemd/rtagent.service.in
// and rtagent-verify.service.in ask for. systemd is not PID 1 where these tests run, so the
// three settings that decide it are applied by hand, read from the unit's text as systemd
// would apply them (systemd.exec(5)): PrivateNetwork= (a network namespace of its own),
// RestrictAddressFamilies= (a seccomp filter that answers socket() of any other family with
// EAFNOSUPPORT) and CapabilityBoundingSet= (every other capability dropped). The NIC is a veth
// pair made in a network namespace that only a child process enters and that stands for the
// board's own: this machine's interfaces are neither seen nor changed.
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "base/child_test_support.h"
#include "base/ethtool_port.h"
#include "base/skip_test_support.h"

using namespace rtagent;

namespace {

std::string UnitText(const std::string& name) {
  std::ifstream in(std::string(RTAGENT_SOURCE_DIR) + "/systemd/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The words of every `key=` line of the unit, in order (systemd: a later assignment of these
// lists adds to the earlier ones; for a yes/no key the last word wins), or nothing.
std::vector<std::string> Words(const std::string& unit, const std::string& key) {
  std::vector<std::string> out;
  std::istringstream lines(unit);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(key + "=", 0) != 0) continue;
    std::istringstream words(line.substr(key.size() + 1));
    for (std::string w; words >> w;) out.push_back(w);
  }
  return out;
}

// The unit with its `key=` line replaced by `line` (or `line` added when it has none).
std::string With(std::string unit, const std::string& key, const std::string& line) {
  const size_t at = unit.find("\n" + key + "=");
  if (at == std::string::npos) return unit + line + "\n";
  const size_t end = unit.find('\n', at + 1);
  return unit.replace(at + 1, end - at - 1, line);
}

const std::map<std::string, int> kFamilies{{"AF_UNIX", AF_UNIX}, {"AF_INET", AF_INET}, {"AF_INET6", AF_INET6},
                                           {"AF_NETLINK", AF_NETLINK}, {"AF_PACKET", AF_PACKET}};
const std::map<std::string, int> kCaps{
    {"CAP_DAC_OVERRIDE", CAP_DAC_OVERRIDE}, {"CAP_DAC_READ_SEARCH", CAP_DAC_READ_SEARCH},
    {"CAP_NET_ADMIN", CAP_NET_ADMIN},       {"CAP_SYS_ADMIN", CAP_SYS_ADMIN},
    {"CAP_SYS_NICE", CAP_SYS_NICE},         {"CAP_SYS_RESOURCE", CAP_SYS_RESOURCE},
    {"CAP_IPC_LOCK", CAP_IPC_LOCK},         {"CAP_SYS_PTRACE", CAP_SYS_PTRACE}};

// What the child needs of the unit, checked in the parent (a name this table lacks fails the
// test there, not silently in the child).
struct Sandbox {
  bool private_network = false;
  std::vector<int> families;  // empty: no RestrictAddressFamilies=
  uint64_t caps = 0;          // the bounding set as a mask
};

Sandbox Parse(const std::string& unit) {
  Sandbox s;
  for (const std::string& w : Words(unit, "PrivateNetwork")) s.private_network = w == "yes" || w == "true";
  for (const std::string& f : Words(unit, "RestrictAddressFamilies")) {
    INFO("address family " << f);
    REQUIRE(kFamilies.count(f) == 1);
    s.families.push_back(kFamilies.at(f));
  }
  for (const std::string& c : Words(unit, "CapabilityBoundingSet")) {
    INFO("capability " << c);
    REQUIRE(kCaps.count(c) == 1);
    s.caps |= uint64_t{1} << kCaps.at(c);
  }
  return s;
}

// In the child: socket() of a family not in `families` fails with EAFNOSUPPORT, as systemd's
// RestrictAddressFamilies= filter answers. Returns false when the filter cannot be installed.
bool RestrictFamilies(const std::vector<int>& families) {
  std::vector<sock_filter> f;
  f.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
  f.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 1, 0));
  f.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  f.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0])));  // low half (little endian)
  for (size_t i = 0; i < families.size(); ++i) {
    // Allowed: jump over the remaining tests and the refusal to the last statement.
    const auto to_allow = static_cast<unsigned char>(families.size() - i);
    f.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<unsigned>(families[i]), to_allow, 0));
  }
  f.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EAFNOSUPPORT & SECCOMP_RET_DATA)));
  f.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  sock_fprog prog{static_cast<unsigned short>(f.size()), f.data()};
  return ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
}

// In the child: every capability outside `keep` leaves the bounding, permitted and effective sets.
bool KeepOnly(uint64_t keep) {
  // Up to the running kernel's last capability (PR_CAPBSET_READ fails past it), which may be
  // older or newer than these headers.
  for (int cap = 0; ::prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; ++cap) {
    if ((keep >> cap & 1) == 0 && ::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) return false;
  }
  __user_cap_header_struct head{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (::syscall(SYS_capget, &head, data) != 0) return false;
  for (int i = 0; i < 2; ++i) {
    const auto mask = static_cast<uint32_t>(keep >> (32 * i));
    data[i].effective &= mask;
    data[i].permitted &= mask;
    data[i].inheritable &= mask;
  }
  return ::syscall(SYS_capset, &head, data) == 0;
}

std::string ErrName(int err) {
  const char* name = ::strerrorname_np(err);
  return name != nullptr ? name : std::to_string(err);
}

// Makes a veth pair with 4 rx and 4 tx queues in a new network namespace (the board's), then,
// in a grandchild behind `unit`'s sandbox, reads v0's channels and sets its rx channels to 2.
// Returns what happened in one line: "get ok rx 4/4; set ok; rx now 2", or where it stopped,
// with the errno's name.
std::string ChannelsBehind(const std::string& unit) {
  const Sandbox sandbox = Parse(unit);
  const test::ChildWords board = test::RunChild([&](const test::Say& say) {
    test::EnterNetnsWithVeth(say);
    const test::ChildWords service = test::RunChild([&](const test::Say& say_in) {
      if (sandbox.private_network && ::unshare(CLONE_NEWNET) != 0) say_in(std::string("unshare: ") + std::strerror(errno));
      if (!KeepOnly(sandbox.caps)) say_in(std::string("capabilities: ") + std::strerror(errno));
      if (!sandbox.families.empty() && !RestrictFamilies(sandbox.families)) say_in(std::string("seccomp: ") + std::strerror(errno));
      auto port = MakeNetlinkEthtoolPort();
      auto got = port->Get("v0");
      if (!got) say_in("get " + ErrName(got.error().err) + ": " + got.error().message);
      const std::string out = "get ok rx " + std::to_string(got->rx) + "/" + std::to_string(got->rx_max);
      if (auto set = port->Set("v0", ChannelCounts{.rx = 2, .tx = {}, .combined = {}}); !set) {
        say_in(out + "; set " + ErrName(set.error().err));
      }
      auto after = port->Get("v0");
      say_in(out + "; set ok; rx now " + (after ? std::to_string(after->rx) : ErrName(after.error().err)));
    });
    say(service.exited ? service.said : "the sandboxed child died: " + service.said);
  });
  CHECK(board.exited);
  return board.said;
}

}  // namespace

TEST_CASE("the shipped units' sandbox lets hold set a NIC's channels and verify read them", "[service][host]") {
  if (::geteuid() != 0) RTAGENT_SKIP("a network namespace and a capability set of its own need root");
  if (std::system("command -v ip >/dev/null 2>&1") != 0) RTAGENT_SKIP("no ip (iproute2) to make the veth pair");
  const std::string hold = UnitText("rtagent.service.in");
  const std::string verify = UnitText("rtagent-verify.service.in");
  SECTION("rtagent.service: read and set, in the board's network namespace") {
    const std::string said = ChannelsBehind(hold);
    if (said.rfind("no network namespace", 0) == 0) RTAGENT_SKIP(said);
    CHECK(said == "get ok rx 4/4; set ok; rx now 2");
  }
  SECTION("rtagent-verify.service: read only, it has no CAP_NET_ADMIN") {
    const std::string said = ChannelsBehind(verify);
    if (said.rfind("no network namespace", 0) == 0) RTAGENT_SKIP(said);
    CHECK(said == "get ok rx 4/4; set EPERM");
  }
  // The emulation can fail: each setting the units had before, alone, keeps the channels out of
  // reach, as it did under systemd.
  SECTION("PrivateNetwork=yes: the NIC is not in the service's namespace") {
    const std::string said = ChannelsBehind(With(hold, "PrivateNetwork", "PrivateNetwork=yes"));
    if (said.rfind("no network namespace", 0) == 0) RTAGENT_SKIP(said);
    CHECK(said.rfind("get ENODEV: ", 0) == 0);
  }
  SECTION("RestrictAddressFamilies=AF_UNIX: neither socket may be opened, and the error says both") {
    const std::string said = ChannelsBehind(With(hold, "RestrictAddressFamilies", "RestrictAddressFamilies=AF_UNIX"));
    if (said.rfind("no network namespace", 0) == 0) RTAGENT_SKIP(said);
    const std::string refused = std::strerror(EAFNOSUPPORT);
    CHECK(said == "get EAFNOSUPPORT: channels of v0: this process may open neither a generic netlink socket (" + refused +
                      ") nor an AF_INET socket for SIOCETHTOOL (" + refused + ")");
  }
  SECTION("AF_NETLINK refused, AF_INET allowed: the ioctl reads and sets instead") {
    const std::string said =
        ChannelsBehind(With(hold, "RestrictAddressFamilies", "RestrictAddressFamilies=AF_UNIX AF_INET"));
    if (said.rfind("no network namespace", 0) == 0) RTAGENT_SKIP(said);
    CHECK(said == "get ok rx 4/4; set ok; rx now 2");
  }
  SECTION("without CAP_NET_ADMIN hold may read but not set") {
    const std::string said = ChannelsBehind(With(hold, "CapabilityBoundingSet", "CapabilityBoundingSet=CAP_SYS_NICE"));
    if (said.rfind("no network namespace", 0) == 0) RTAGENT_SKIP(said);
    CHECK(said == "get ok rx 4/4; set EPERM");
  }
}

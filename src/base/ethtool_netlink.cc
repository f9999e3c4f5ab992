// The live EthtoolPort: the kernel's ethtool netlink interface through libmnl, as ethtool(8)
// itself talks to it (Documentation/networking/ethtool-netlink.rst). One socket per call: a
// plan asks for a handful of interfaces, so there is nothing worth keeping open. A kernel
// without that interface (before 5.6, or built without CONFIG_ETHTOOL_NETLINK, as many board
// vendors' kernels are) is asked through the older SIOCETHTOOL ioctl instead
// (ETHTOOL_GCHANNELS/_SCHANNELS), as ethtool(8) falls back to it.
#include <libmnl/libmnl.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <functional>
#include <optional>
#include <vector>

#include "base/ethtool_port.h"

namespace rtagent {

namespace {

// What one request's answers left behind: the kernel's errno and its extended ack text.
struct Exchange {
  std::function<void(const nlmsghdr*)> on_reply;
  int err = 0;
  std::string ack_msg;
};

// mnl_attr_for_each, spelled for C++ (the macro assigns a void* to the attribute pointer).
void ForEachAttr(const nlmsghdr* nlh, size_t offset, const std::function<void(const nlattr*)>& fn) {
  const auto* a = static_cast<const nlattr*>(mnl_nlmsg_get_payload_offset(nlh, offset));
  const auto* tail = static_cast<const char*>(mnl_nlmsg_get_payload_tail(nlh));
  while (mnl_attr_ok(a, static_cast<int>(tail - reinterpret_cast<const char*>(a)))) {
    fn(a);
    a = mnl_attr_next(a);
  }
}

int OnData(const nlmsghdr* nlh, void* data) {
  auto* ex = static_cast<Exchange*>(data);
  if (ex->on_reply) ex->on_reply(nlh);
  return MNL_CB_OK;
}

// NLMSG_ERROR is both the ACK (error 0) and the refusal. With NETLINK_EXT_ACK on, the kernel
// appends NLMSGERR_ATTR_MSG ("requested channel count exceeds maximum") after the echoed
// request, or right after the header when it capped the echo (NLM_F_CAPPED).
int OnError(const nlmsghdr* nlh, void* data) {
  auto* ex = static_cast<Exchange*>(data);
  if (mnl_nlmsg_get_payload_len(nlh) < sizeof(nlmsgerr)) {
    ex->err = EBADMSG;
    return MNL_CB_ERROR;
  }
  const auto* e = static_cast<const nlmsgerr*>(mnl_nlmsg_get_payload(nlh));
  if (e->error == 0) return MNL_CB_STOP;
  ex->err = -e->error;
  if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
    size_t offset = sizeof(nlmsgerr);
    if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) offset += e->msg.nlmsg_len - sizeof(nlmsghdr);
    ForEachAttr(nlh, offset, [ex](const nlattr* attr) {
      if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG && mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0) {
        ex->ack_msg = mnl_attr_get_str(attr);
      }
    });
  }
  return MNL_CB_ERROR;
}

int OnDone(const nlmsghdr*, void*) { return MNL_CB_STOP; }

class Socket {
 public:
  Socket() : nl_(mnl_socket_open(NETLINK_GENERIC)), open_errno_(nl_ == nullptr ? errno : 0) {}
  ~Socket() {
    if (nl_ != nullptr) mnl_socket_close(nl_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;

  Result<void> Open() {
    if (nl_ == nullptr) return MakeError("cannot open a generic netlink socket", open_errno_);
    if (mnl_socket_bind(nl_, 0, MNL_SOCKET_AUTOPID) < 0) return MakeError("cannot bind a generic netlink socket", errno);
    int one = 1;
    // Extended acks only make the messages better; an old kernel without them is fine.
    (void)mnl_socket_setsockopt(nl_, NETLINK_EXT_ACK, &one, sizeof(one));
    return Ok();
  }

  /// Sends `nlh` and runs the answers through `ex` until the ACK or the error.
  Result<void> Run(nlmsghdr* nlh, Exchange& ex, const std::string& what) {
    nlh->nlmsg_seq = seq_ = static_cast<unsigned>(time(nullptr)) + counter_++;
    if (mnl_socket_sendto(nl_, nlh, nlh->nlmsg_len) < 0) return MakeError(what + ": netlink send", errno);
    std::vector<char> buf(MNL_SOCKET_BUFFER_SIZE);
    const unsigned portid = mnl_socket_get_portid(nl_);
    mnl_cb_t ctl[NLMSG_MIN_TYPE] = {};
    ctl[NLMSG_ERROR] = OnError;
    ctl[NLMSG_DONE] = OnDone;
    for (;;) {
      ssize_t n = mnl_socket_recvfrom(nl_, buf.data(), buf.size());
      if (n < 0) return MakeError(what + ": netlink receive", errno);
      int ret = mnl_cb_run2(buf.data(), static_cast<size_t>(n), seq_, portid, OnData, &ex, ctl, NLMSG_MIN_TYPE);
      if (ret == MNL_CB_STOP) return Ok();
      if (ret < 0) {
        const int err = ex.err != 0 ? ex.err : errno;
        return MakeError(what + (ex.ack_msg.empty() ? "" : " (" + ex.ack_msg + ")"), err);
      }
    }
  }

 private:
  mnl_socket* nl_;
  int open_errno_;
  unsigned seq_ = 0;
  unsigned counter_ = 0;
};

// A generic netlink request header in `buf`.
nlmsghdr* Request(std::vector<char>& buf, uint16_t type, uint8_t cmd, uint8_t version) {
  nlmsghdr* nlh = mnl_nlmsg_put_header(buf.data());
  nlh->nlmsg_type = type;
  nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
  auto* genl = static_cast<genlmsghdr*>(mnl_nlmsg_put_extra_header(nlh, sizeof(genlmsghdr)));
  genl->cmd = cmd;
  genl->version = version;
  return nlh;
}

// The numeric id of the "ethtool" family (CTRL_CMD_GETFAMILY); nullopt when the kernel has no
// such family (the controller answers ENOENT): built without CONFIG_ETHTOOL_NETLINK.
Result<std::optional<uint16_t>> FamilyId(Socket& s, const std::string& family) {
  std::vector<char> buf(MNL_SOCKET_BUFFER_SIZE);
  nlmsghdr* nlh = Request(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1);
  mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, family.c_str());
  uint16_t id = 0;
  Exchange ex;
  ex.on_reply = [&id](const nlmsghdr* reply) {
    ForEachAttr(reply, sizeof(genlmsghdr), [&id](const nlattr* attr) {
      if (mnl_attr_get_type(attr) == CTRL_ATTR_FAMILY_ID && mnl_attr_validate(attr, MNL_TYPE_U16) >= 0) {
        id = mnl_attr_get_u16(attr);
      }
    });
  };
  auto r = s.Run(nlh, ex, "generic netlink family \"" + family + "\"");
  if (!r) {
    if (r.error().err == ENOENT) return std::optional<uint16_t>();
    return r.error();
  }
  if (id == 0) return MakeError("generic netlink gave no id for \"" + family + "\"", EBADMSG);
  return std::optional<uint16_t>(id);
}

// One SIOCETHTOOL request on `iface`: `cmd` is the ethtool_channels it reads or fills. The
// kernel answers with the errnos the netlink interface uses for the same cases (ENODEV, no
// such interface; EOPNOTSUPP, a driver without channels; EINVAL, a count above a maximum;
// EPERM, no CAP_NET_ADMIN), so callers see no difference but the missing extended ack text.
Result<void> ChannelsIoctl(const std::string& iface, ethtool_channels* cmd, const std::string& what) {
  if (iface.empty() || iface.size() >= IFNAMSIZ) return Error{what + ": no network interface " + iface, ENODEV};
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return MakeError(what + ": socket for SIOCETHTOOL", errno);
  ifreq ifr{};
  std::memcpy(ifr.ifr_name, iface.c_str(), iface.size());
  ifr.ifr_data = reinterpret_cast<char*>(cmd);
  const int rc = ::ioctl(fd, SIOCETHTOOL, &ifr);
  const int e = errno;
  ::close(fd);
  if (rc < 0) return MakeError(what + " (SIOCETHTOOL)", e);
  return Ok();
}

Result<Channels> IoctlGet(const std::string& iface) {
  ethtool_channels ch{};
  ch.cmd = ETHTOOL_GCHANNELS;
  if (auto r = ChannelsIoctl(iface, &ch, "channels of " + iface); !r) return r.error();
  Channels c;
  c.rx_max = ch.max_rx;
  c.tx_max = ch.max_tx;
  c.other_max = ch.max_other;
  c.combined_max = ch.max_combined;
  c.rx = ch.rx_count;
  c.tx = ch.tx_count;
  c.other = ch.other_count;
  c.combined = ch.combined_count;
  return c;
}

// ETHTOOL_SCHANNELS takes every count: the ones not given are sent as they are now.
Result<void> IoctlSet(const std::string& iface, const ChannelCounts& counts) {
  ethtool_channels ch{};
  ch.cmd = ETHTOOL_GCHANNELS;
  const std::string what = "setting the channels of " + iface;
  if (auto r = ChannelsIoctl(iface, &ch, what); !r) return r;
  if (counts.rx) ch.rx_count = *counts.rx;
  if (counts.tx) ch.tx_count = *counts.tx;
  if (counts.combined) ch.combined_count = *counts.combined;
  ch.cmd = ETHTOOL_SCHANNELS;
  return ChannelsIoctl(iface, &ch, what);
}

// Whether this process may open the AF_INET datagram socket SIOCETHTOOL goes through: the
// error of its socket() when it may not.
Result<void> IoctlSocketAllowed() {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Error{"", errno};
  ::close(fd);
  return Ok();
}

// The generic netlink socket was refused (a sandbox's address families, systemd's
// RestrictAddressFamilies=): the ioctl is the other way to the driver, as for a kernel without
// the family. When its socket is refused too, one sentence names both refusals.
template <typename Call>
auto WithoutNetlink(const std::string& what, const Error& netlink, Call by_ioctl) -> decltype(by_ioctl()) {
  auto allowed = IoctlSocketAllowed();
  if (allowed) return by_ioctl();
  return Error{what + ": this process may open neither a generic netlink socket (" + std::strerror(netlink.err) +
                   ") nor an AF_INET socket for SIOCETHTOOL (" + std::strerror(allowed.error().err) + ")",
               netlink.err};
}

// A channels request for `iface`: the header nest naming the device by name.
nlmsghdr* ChannelsRequest(std::vector<char>& buf, uint16_t family, uint8_t cmd, const std::string& iface) {
  nlmsghdr* nlh = Request(buf, family, cmd, ETHTOOL_GENL_VERSION);
  nlattr* nest = mnl_attr_nest_start(nlh, ETHTOOL_A_CHANNELS_HEADER);
  mnl_attr_put_strz(nlh, ETHTOOL_A_HEADER_DEV_NAME, iface.c_str());
  mnl_attr_nest_end(nlh, nest);
  return nlh;
}

class NetlinkEthtoolPort : public EthtoolPort {
 public:
  explicit NetlinkEthtoolPort(std::string family) : family_(std::move(family)) {}

  Result<Channels> Get(const std::string& iface) const override {
    Socket s;
    if (auto r = s.Open(); !r) return WithoutNetlink("channels of " + iface, r.error(), [&] { return IoctlGet(iface); });
    auto family = FamilyId(s, family_);
    if (!family) return family.error();
    if (!*family) return IoctlGet(iface);
    std::vector<char> buf(MNL_SOCKET_BUFFER_SIZE);
    nlmsghdr* nlh = ChannelsRequest(buf, **family, ETHTOOL_MSG_CHANNELS_GET, iface);
    Channels c;
    bool got = false;
    Exchange ex;
    ex.on_reply = [&c, &got](const nlmsghdr* reply) {
      ForEachAttr(reply, sizeof(genlmsghdr), [&c](const nlattr* attr) {
        if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0) return;
        const uint32_t v = mnl_attr_get_u32(attr);
        switch (mnl_attr_get_type(attr)) {
          case ETHTOOL_A_CHANNELS_RX_MAX: c.rx_max = v; break;
          case ETHTOOL_A_CHANNELS_TX_MAX: c.tx_max = v; break;
          case ETHTOOL_A_CHANNELS_OTHER_MAX: c.other_max = v; break;
          case ETHTOOL_A_CHANNELS_COMBINED_MAX: c.combined_max = v; break;
          case ETHTOOL_A_CHANNELS_RX_COUNT: c.rx = v; break;
          case ETHTOOL_A_CHANNELS_TX_COUNT: c.tx = v; break;
          case ETHTOOL_A_CHANNELS_OTHER_COUNT: c.other = v; break;
          case ETHTOOL_A_CHANNELS_COMBINED_COUNT: c.combined = v; break;
          default: break;
        }
      });
      got = true;
    };
    if (auto r = s.Run(nlh, ex, "channels of " + iface); !r) return r.error();
    if (!got) return MakeError("channels of " + iface + ": the kernel sent no reply", EBADMSG);
    return c;
  }

  Result<void> Set(const std::string& iface, const ChannelCounts& counts) override {
    Socket s;
    if (auto r = s.Open(); !r) {
      return WithoutNetlink("setting the channels of " + iface, r.error(), [&] { return IoctlSet(iface, counts); });
    }
    auto family = FamilyId(s, family_);
    if (!family) return family.error();
    if (!*family) return IoctlSet(iface, counts);
    std::vector<char> buf(MNL_SOCKET_BUFFER_SIZE);
    nlmsghdr* nlh = ChannelsRequest(buf, **family, ETHTOOL_MSG_CHANNELS_SET, iface);
    if (counts.rx) mnl_attr_put_u32(nlh, ETHTOOL_A_CHANNELS_RX_COUNT, *counts.rx);
    if (counts.tx) mnl_attr_put_u32(nlh, ETHTOOL_A_CHANNELS_TX_COUNT, *counts.tx);
    if (counts.combined) mnl_attr_put_u32(nlh, ETHTOOL_A_CHANNELS_COMBINED_COUNT, *counts.combined);
    Exchange ex;
    return s.Run(nlh, ex, "setting the channels of " + iface);
  }

 private:
  std::string family_;
};

}  // namespace

std::unique_ptr<EthtoolPort> MakeNetlinkEthtoolPort(const std::string& family) {
  return std::make_unique<NetlinkEthtoolPort>(family);
}

}  // namespace rtagent

#include "tune/network_tuner.h"

#include <algorithm>
#include <cerrno>
#include <map>
#include <set>

#include "base/kernel_paths.h"
#include "tune/memory_tuner.h"
#include "tune/sysctls_tuner.h"

namespace rtagent {

namespace {

using profile::CpuKeyword;
using profile::CpuSpec;
using profile::CrossCheck;

constexpr const char* kWhy = "Real-Time Linux, chapter 6 (the network's softirq work off the isolated CPUs)";
constexpr const char* kBusyWhy =
    "busy polling (TuneD's network-latency): a socket read spins on its own CPU for up to this long instead "
    "of sleeping until the softirq";

// A mask that steers onto isolated CPUs brings the softirq work rtagent keeps off them back.
void WarnIsolated(const CrossCheck& cc, const profile::Marked<CpuSpec>& m, const char* key) {
  if (m->keyword == CpuKeyword::kKeep) return;
  CpuSet on = m->cpus.Intersect(cc.Isolated());
  if (!on.Empty()) {
    cc.diags().Warning(m.mark, std::string("network.") + key + " includes isolated CPU " + on.ToList(),
                       "steer packet work to housekeeping CPUs (Chapter 6)");
  }
}

// One owner per sysctl file: busy polling is set here or in sysctls/memory.sysctl, not both.
void OneOwner(const CrossCheck& cc, const profile::Marked<std::optional<int>>& m, const char* key) {
  if (!m->has_value()) return;
  const std::string name = std::string("net.core.") + key;
  if (const Sysctl* s = ProfileSysctl(cc.profile(), name)) {
    cc.diags().Error(m.mark, std::string("network.") + key + " and sysctls " + name + " (" + s->mark.ToString() +
                                 ") set the same file",
                     std::string("set it in one place: network.") + key);
  }
}

void CheckNetwork(const CrossCheck& cc, const NetworkConfig& n) {
  WarnIsolated(cc, n.rps, "rps");
  WarnIsolated(cc, n.xps, "xps");
  OneOwner(cc, n.busy_poll, "busy_poll");
  OneOwner(cc, n.busy_read, "busy_read");
}


// ---------------------------------------------------------------------------------- channels

constexpr const char* kChannelsWhy =
    "one queue (and its interrupt) per housekeeping CPU, as TuneD's `channels = combined N`: fewer queues "
    "than CPUs leave no queue whose interrupt or softirq can only land on an isolated CPU (Chapter 6)";
constexpr const char* kChannelsActuator = "channels";
constexpr int kMaxChannels = 65535;

// A channel count: `housekeeping` or a number of queues.
std::optional<ChannelCount> ReadCount(profile::LoadContext& c, const profile::YamlNode& v, const std::string& what) {
  if (v.IsScalar() && !v.quoted && v.scalar == "housekeeping") return ChannelCount{true, 0};
  if (v.IsScalar() && (v.scalar.empty() || !std::all_of(v.scalar.begin(), v.scalar.end(), ::isdigit))) {
    c.reader().WrongType(v, what, "a number of channels or `housekeeping`",
                         "e.g. '" + what.substr(what.rfind('.') + 1) + ": housekeeping' (one per housekeeping CPU) or '" +
                             what.substr(what.rfind('.') + 1) + ": 2'");
    return std::nullopt;
  }
  auto n = c.reader().Int(v, what, 1, kMaxChannels);
  if (!n) return std::nullopt;
  return ChannelCount{false, static_cast<int>(*n)};
}

template <class S>
profile::Key<S> CountKey(std::string name, profile::Marked<std::optional<ChannelCount>> S::*m, std::string absent,
                         std::string meaning) {
  profile::KeyDoc doc{std::move(name), "integer 1..65535 or `housekeeping`", std::move(absent), std::move(meaning)};
  return profile::Value(std::move(doc), m, std::optional<std::optional<ChannelCount>>(),
                        [](profile::LoadContext& c, const profile::YamlNode& v, const std::string& what) {
                          auto got = ReadCount(c, v, what);
                          return got ? std::optional<std::optional<ChannelCount>>(*got) : std::nullopt;
                        });
}

const profile::Section<ChannelsConfig>& ChannelsSection() {
  static const profile::Section<ChannelsConfig> kSection{
      "network.channels",
      {
          CountKey("combined", &ChannelsConfig::combined, "`housekeeping` unless rx or tx is given",
                   "combined (receive and transmit) channels"),
          CountKey("rx", &ChannelsConfig::rx, "leave", "receive-only channels"),
          CountKey("tx", &ChannelsConfig::tx, "leave", "transmit-only channels"),
          profile::Value(profile::KeyDoc{"devices", "list of interface names", "every interface but `lo`",
                                         "the NICs whose channels are set"},
                         &ChannelsConfig::devices, std::optional<std::vector<std::string>>(),
                         [](profile::LoadContext& c, const profile::YamlNode& v, const std::string& what) {
                           return c.reader().StringList(v, what, true);
                         }),
      }};
  return kSection;
}

// Each interface once: two entries for one NIC would plan (and journal) its counts twice.
void CheckChannels(const CrossCheck& cc, const ChannelsConfig& ch) {
  if (!*ch.given) return;
  std::set<std::string> seen;
  for (const std::string& d : *ch.devices) {
    if (!seen.insert(d).second) {
      cc.diags().Error(ch.devices.mark, "network.channels.devices names " + d + " twice", "name each interface once");
    }
  }
}

// What the profile's channel settings come to on one interface: the kinds to set, in order.
struct WantedCount {
  const char* kind;
  uint32_t Channels::*count;
  uint32_t Channels::*max;
  const profile::Marked<std::optional<ChannelCount>>* spec;
  bool by_default;  // combined: housekeeping because nothing was said
};

std::vector<WantedCount> Wanted(const ChannelsConfig& ch, const profile::Marked<std::optional<ChannelCount>>& deflt) {
  std::vector<WantedCount> out;
  const bool none = !ch.combined->has_value() && !ch.rx->has_value() && !ch.tx->has_value();
  if (ch.combined->has_value()) out.push_back({"combined", &Channels::combined, &Channels::combined_max, &ch.combined, false});
  if (none) out.push_back({"combined", &Channels::combined, &Channels::combined_max, &deflt, true});
  if (ch.rx->has_value()) out.push_back({"rx", &Channels::rx, &Channels::rx_max, &ch.rx, false});
  if (ch.tx->has_value()) out.push_back({"tx", &Channels::tx, &Channels::tx_max, &ch.tx, false});
  return out;
}

// The queues an interface will have once its channels are set: receive = combined + rx,
// transmit = combined + tx (what the drivers give netif_set_real_num_{rx,tx}_queues).
struct QueueCounts {
  uint32_t rx = 0, tx = 0;
};

// What to do about channels that cannot be read, by the kernel's answer. The two sandbox cases
// are those of a systemd unit hardened past what the job needs: an interface that sysfs (the
// host's) lists but the process's own network namespace lacks (PrivateNetwork=), and sockets
// of the families ethtool's requests travel on refused (RestrictAddressFamilies=).
std::string UnreadableHint(const std::string& iface, int err, bool in_sysfs) {
  if (err == ENODEV && in_sysfs) {
    return iface + " is under /sys/class/net but not in rtagent's network namespace: run it in the host's "
                   "(a systemd unit without PrivateNetwork=, as rtagent.service is)";
  }
  if (err == EAFNOSUPPORT || err == EPERM || err == EACCES) {
    return "channels are read over a netlink socket (or SIOCETHTOOL on an AF_INET one): allow them "
           "(systemd: RestrictAddressFamilies=AF_UNIX AF_NETLINK AF_INET, as rtagent.service has)";
  }
  return "`ethtool -l " + iface + "` asks the kernel the same question";
}

class ChannelsPlanner {
 public:
  ChannelsPlanner(const PlanContext& ctx, const ChannelsConfig& ch, const EthtoolPort& port, SectionPlan& plan)
      : ctx_(ctx), ch_(ch), port_(port), plan_(plan) {
    deflt_.value = ChannelCount{true, 0};
    deflt_.mark = ch.given.mark;
  }

  /// Plans every interface's channels; returns the queue counts of those whose channels change.
  std::map<std::string, QueueCounts> Run() {
    std::map<std::string, QueueCounts> changed;
    if (!*ch_.given) return changed;
    const bool listed = !ch_.devices->empty();
    std::vector<std::string> ifaces = *ch_.devices;
    if (!listed) {
      auto all = ctx_.root.List(kpath::kNetClassDir);
      if (all) ifaces = *all;
      std::sort(ifaces.begin(), ifaces.end());
      ifaces.erase(std::remove(ifaces.begin(), ifaces.end(), "lo"), ifaces.end());
    }
    std::vector<std::string> unsupported;
    for (const std::string& iface : ifaces) {
      if (!ctx_.root.IsDir(kpath::NetDevice(iface))) {
        if (listed) {
          Error(ch_.devices.mark, "network.channels.devices names " + iface + ", which is no network interface here",
                "the interfaces are the names under /sys/class/net (`ip link`); fix the name or leave it out");
        }
        continue;
      }
      auto now = port_.Get(iface);
      if (!now) {
        if (now.error().err == EOPNOTSUPP) {
          if (listed) {
            Error(ch_.devices.mark,
                  "network.channels.devices names " + iface + ", whose driver has no channel settings (" +
                      now.error().message + ")",
                  "its queues are fixed by the driver: leave it out of network.channels.devices");
          } else {
            unsupported.push_back(iface);
          }
          continue;
        }
        const bool in_sysfs = ctx_.root.IsDir(kpath::NetDevice(iface));
        if (now.error().err == ENODEV && !in_sysfs && !listed) continue;  // gone between the listing and the read
        Error(listed ? ch_.devices.mark : ch_.given.mark, "the channels of " + iface + " cannot be read: " + now.error().message,
              UnreadableHint(iface, now.error().err, in_sysfs));
        continue;
      }
      PlanInterface(iface, *now, listed, changed);
    }
    if (!unsupported.empty()) {
      std::string names;
      for (const std::string& u : unsupported) names += (names.empty() ? "" : ", ") + u;
      plan_.findings.push_back({Finding::Level::kInfo,
                                "network.channels leaves " + names + " alone: no channel settings in " +
                                    (unsupported.size() == 1 ? "its driver" : "their drivers"),
                                ch_.given.mark, kChannelsWhy});
    }
    return changed;
  }

 private:
  void Error(const profile::SourceMark& mark, std::string message, std::string hint) {
    plan_.findings.push_back({Finding::Level::kError, std::move(message), mark, std::move(hint)});
  }

  void PlanInterface(const std::string& iface, const Channels& now, bool listed,
                     std::map<std::string, QueueCounts>& changed) {
    Channels after = now;
    const int hk = ctx_.profile.cores.housekeeping->cpus.Count();
    for (const WantedCount& w : Wanted(ch_, deflt_)) {
      const ChannelCount& spec = *w.spec->value;
      const std::string key = std::string("network.channels.") + w.kind;
      const uint32_t max = now.*w.max;
      if (max == 0) {
        // The default on every interface skips drivers without combined channels quietly
        // (veth has only rx and tx); anything the profile asked for by name is an error.
        if (w.by_default && !listed) continue;
        Error(w.spec->mark, key + ": " + iface + "'s driver has no " + w.kind + " channels (its maximum is 0)",
              std::string(w.kind) == "combined" ? "set network.channels.rx and tx for a driver with separate queues"
                                                : "set network.channels.combined for this driver");
        continue;
      }
      if (spec.housekeeping && hk == 0) continue;  // reported at cores
      uint32_t n = spec.housekeeping ? static_cast<uint32_t>(hk) : static_cast<uint32_t>(spec.n);
      if (n > max) {
        if (!spec.housekeeping) {
          Error(w.spec->mark,
                key + " is " + std::to_string(n) + ", above the maximum of " + std::to_string(max) + " " + w.kind +
                    " channels of " + iface,
                "use at most " + std::to_string(max) + ", or `housekeeping` (one per housekeeping CPU, capped at the maximum)");
          continue;
        }
        plan_.findings.push_back({Finding::Level::kInfo,
                                  key + ": " + std::to_string(n) + " housekeeping CPUs but " + iface + " has at most " +
                                      std::to_string(max) + " " + w.kind + " channels; " + std::to_string(max) + " it is",
                                  w.spec->mark, kChannelsWhy});
        n = max;
      }
      after.*w.count = n;
      Change c;
      c.section = plan_.section;
      c.what = iface + " " + w.kind + " channels";
      c.actuator = kChannelsActuator;
      c.key = iface + " " + w.kind;
      c.before = std::to_string(now.*w.count);
      c.after = std::to_string(n);
      c.compare = Compare::kInteger;
      c.why = kChannelsWhy;
      plan_.items.push_back(std::move(c));
    }
    if (after.combined != now.combined || after.rx != now.rx || after.tx != now.tx) {
      changed[iface] = {after.combined + after.rx, after.combined + after.tx};
    }
  }

  const PlanContext& ctx_;
  const ChannelsConfig& ch_;
  const EthtoolPort& port_;
  SectionPlan& plan_;
  profile::Marked<std::optional<ChannelCount>> deflt_;
};

// `resized` holds the interfaces whose channels change first: their queues are the ones they
// will have (a queue that is not there yet is planned from nothing, and read again by apply
// once the channels are written), not the ones they have now.
void PlanQueues(const PlanContext& ctx, const profile::Marked<CpuSpec>& spec, const char* prefix,
                const std::string& file, const char* what, int nr, const std::map<std::string, QueueCounts>& resized,
                SectionPlan& plan) {
  if (spec->keyword == CpuKeyword::kKeep) return;
  auto ifaces = ctx.root.List(kpath::kNetClassDir);
  if (!ifaces) return;
  std::sort(ifaces->begin(), ifaces->end());
  for (const std::string& iface : *ifaces) {
    if (iface == "lo") continue;  // loopback: its packets never come from a device interrupt
    auto queues = ctx.root.List(kpath::NetQueuesDir(iface));
    if (!queues) continue;  // a device without queues (a bond's master, some tunnels)
    std::sort(queues->begin(), queues->end());
    auto size = resized.find(iface);
    if (size != resized.end()) {
      std::vector<std::string> will;
      const uint32_t count = std::string(prefix) == "rx-" ? size->second.rx : size->second.tx;
      for (uint32_t i = 0; i < count; ++i) will.push_back(prefix + std::to_string(i));
      *queues = will;
    }
    for (const std::string& q : *queues) {
      if (q.rfind(prefix, 0) != 0) continue;
      const std::string path = kpath::NetQueueFile(iface, q, file);
      // No file: the kernel is built without CONFIG_RPS / CONFIG_XPS. A tx queue of a device
      // without multiqueue support answers its read with an error: nothing to set.
      auto now = ctx.root.ReadTrimmed(path);
      if (!now && size != resized.end() && !ctx.root.Exists(kpath::NetQueuesDir(iface) + "/" + q)) {
        now = std::string();  // a queue the new channel count adds
      }
      if (!now) continue;
      Change c;
      c.section = plan.section;
      c.what = iface + " " + q + " " + what;
      c.key = path;
      c.before = *now;
      c.after = spec->cpus.ToMask(nr);
      c.compare = Compare::kCpuMask;
      c.why = kWhy;
      plan.items.push_back(std::move(c));
    }
  }
}

void PlanBusy(const PlanContext& ctx, const profile::Marked<std::optional<int>>& want, const std::string& name,
              SectionPlan& plan) {
  if (!want->has_value()) return;
  const std::string path = kpath::Sysctl(name);
  auto now = ctx.root.ReadTrimmed(path);
  if (!now && now.error().err == ENOENT && ctx.root.ReadTrimmed(kpath::kRealtime).value_or("") == "1") {
    // net/Kconfig: NET_RX_BUSY_POLL is `default y if !PREEMPT_RT`, with no prompt, so no RT
    // kernel has these sysctls (TuneD's realtime profile asks for them and logs an error).
    plan.findings.push_back({Finding::Level::kInfo, name + ": a PREEMPT_RT kernel has no busy polling (nothing to set)",
                             want.mark, kBusyWhy});
    return;
  }
  if (!now) {
    plan.findings.push_back({Finding::Level::kError, name + " cannot be read: " + now.error().message, want.mark,
                             "the kernel is built without busy polling (CONFIG_NET_RX_BUSY_POLL)"});
    return;
  }
  plan.items.push_back(SysctlChange(plan.section, name, path, *now, std::to_string(**want), kBusyWhy));
}

// network.channels: a mapping whose presence turns channel setting on.
profile::Key<NetworkConfig> ChannelsKey() {
  profile::Key<NetworkConfig> k = profile::Sub("channels", &NetworkConfig::channels, ChannelsSection(),
                                               "NIC channel (queue) counts, as `ethtool -L`")
                                      .Fallback("leave");
  auto read = std::move(k.load);
  k.load = [read](profile::LoadContext& c, NetworkConfig& s, const profile::YamlNode* v, const std::string& what) {
    s.channels = ChannelsConfig{};
    if (v != nullptr) profile::Assign(&s.channels.given, true, v->mark);
    read(c, s, v, what);
  };
  auto check = std::move(k.check);
  k.check = [check](const CrossCheck& cc, const NetworkConfig& s) {
    check(cc, s);
    CheckChannels(cc, s.channels);
  };
  return k;
}

}  // namespace

const profile::Block<NetworkConfig>& NetworkSection() {
  const profile::CpuKeywords keep{false, true, true, true};
  static const profile::Block<NetworkConfig> kBlock{
      "network",
      "packet steering and busy polling",
      {
          profile::Cpus("rps", &NetworkConfig::rps, keep, profile::KeepCpus(), "CPUs that receive packet processing (RPS)"),
          profile::Cpus("xps", &NetworkConfig::xps, keep, profile::KeepCpus(), "CPUs whose sends use each transmit queue (XPS)"),
          profile::OptInt("busy_poll", &NetworkConfig::busy_poll, {0, 1000000}, "leave",
                          "µs a poll or select spins on the device queue"),
          profile::OptInt("busy_read", &NetworkConfig::busy_read, {0, 1000000}, "leave",
                          "µs a socket read spins on the device queue"),
          ChannelsKey(),
      },
      {CheckNetwork}};
  return kBlock;
}

Result<SectionPlan> NetworkTuner::Plan(const PlanContext& ctx) const {
  SectionPlan plan;
  plan.section = Section();
  const NetworkConfig& cfg = NetworkOf(ctx.profile);
  const int nr = std::max(ctx.state.cpu_sets.nr_cpus, ctx.profile.system.NrIds());
  std::map<std::string, QueueCounts> resized;
  if (*cfg.channels.given) {
    std::unique_ptr<EthtoolPort> port = factory_(ctx.root, nullptr);
    resized = ChannelsPlanner(ctx, cfg.channels, *port, plan).Run();
  }
  PlanQueues(ctx, cfg.rps, "rx-", kpath::kRpsCpus, "RPS mask", nr, resized, plan);
  PlanQueues(ctx, cfg.xps, "tx-", kpath::kXpsCpus, "XPS mask", nr, resized, plan);
  PlanBusy(ctx, cfg.busy_poll, "net.core.busy_poll", plan);
  PlanBusy(ctx, cfg.busy_read, "net.core.busy_read", plan);
  return plan;
}

void NetworkTuner::AddActuators(Executor& executor, SysRoot& root) const {
  executor.AddActuator(kChannelsActuator, std::make_unique<ChannelsActuator>(factory_(root, &root)));
}

namespace {

// "eth0 combined" -> eth0 and the kind; an interface name never holds a space (dev_valid_name).
Result<std::pair<std::string, std::string>> SplitKey(const std::string& key) {
  const size_t sp = key.find(' ');
  if (sp == std::string::npos) return InvalidInput("channels item \"" + key + "\": expected \"IFACE KIND\"");
  std::string kind = key.substr(sp + 1);
  if (kind != "combined" && kind != "rx" && kind != "tx") {
    return InvalidInput("channels item \"" + key + "\": unknown kind " + kind);
  }
  return std::make_pair(key.substr(0, sp), kind);
}

}  // namespace

Result<std::string> ChannelsActuator::Read(const std::string& key) {
  auto k = SplitKey(key);
  if (!k) return k.error();
  auto c = port_->Get(k->first);
  if (!c) return c.error();
  const std::string& kind = k->second;
  return std::to_string(kind == "combined" ? c->combined : kind == "rx" ? c->rx : c->tx);
}

Result<void> ChannelsActuator::Write(const std::string& key, const std::string& value) {
  auto k = SplitKey(key);
  if (!k) return k.error();
  uint32_t n = 0;
  try {
    size_t used = 0;
    const unsigned long v = std::stoul(value, &used);
    if (used != value.size() || v > UINT32_MAX) throw std::out_of_range(value);
    n = static_cast<uint32_t>(v);
  } catch (const std::exception&) {
    return InvalidInput("channels of " + k->first + ": \"" + value + "\" is not a count");
  }
  ChannelCounts counts;
  (k->second == "combined" ? counts.combined : k->second == "rx" ? counts.rx : counts.tx) = n;
  return port_->Set(k->first, counts);
}

}  // namespace rtagent

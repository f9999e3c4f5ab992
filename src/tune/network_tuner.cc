#include "tune/network_tuner.h"

#include <algorithm>

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

void PlanQueues(const PlanContext& ctx, const profile::Marked<CpuSpec>& spec, const char* prefix,
                const std::string& file, const char* what, int nr, SectionPlan& plan) {
  if (spec->keyword == CpuKeyword::kKeep) return;
  auto ifaces = ctx.root.List(kpath::kNetClassDir);
  if (!ifaces) return;
  std::sort(ifaces->begin(), ifaces->end());
  for (const std::string& iface : *ifaces) {
    if (iface == "lo") continue;  // loopback: its packets never come from a device interrupt
    auto queues = ctx.root.List(kpath::NetQueuesDir(iface));
    if (!queues) continue;  // a device without queues (a bond's master, some tunnels)
    std::sort(queues->begin(), queues->end());
    for (const std::string& q : *queues) {
      if (q.rfind(prefix, 0) != 0) continue;
      const std::string path = kpath::NetQueueFile(iface, q, file);
      // No file: the kernel is built without CONFIG_RPS / CONFIG_XPS. A tx queue of a device
      // without multiqueue support answers its read with an error: nothing to set.
      auto now = ctx.root.ReadTrimmed(path);
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
  if (!now) {
    plan.findings.push_back({Finding::Level::kError, name + " cannot be read: " + now.error().message, want.mark,
                             "the kernel is built without busy polling (CONFIG_NET_RX_BUSY_POLL)"});
    return;
  }
  plan.items.push_back(SysctlChange(plan.section, name, path, *now, std::to_string(**want), kBusyWhy));
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
      },
      {CheckNetwork}};
  return kBlock;
}

Result<SectionPlan> NetworkTuner::Plan(const PlanContext& ctx) const {
  SectionPlan plan;
  plan.section = Section();
  const NetworkConfig& cfg = NetworkOf(ctx.profile);
  const int nr = std::max(ctx.state.cpu_sets.nr_cpus, ctx.profile.system.NrIds());
  PlanQueues(ctx, cfg.rps, "rx-", kpath::kRpsCpus, "RPS mask", nr, plan);
  PlanQueues(ctx, cfg.xps, "tx-", kpath::kXpsCpus, "XPS mask", nr, plan);
  PlanBusy(ctx, cfg.busy_poll, "net.core.busy_poll", plan);
  PlanBusy(ctx, cfg.busy_read, "net.core.busy_read", plan);
  return plan;
}

}  // namespace rtagent

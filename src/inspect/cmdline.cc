#include "inspect/cmdline.h"

#include <cctype>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"

namespace rtagent {
namespace {

std::string Normalize(std::string_view key) {
  std::string k(key);
  for (char& c : k) {
    if (c == '-') c = '_';
  }
  return k;
}

CpuListArg ListArg(const CmdlineArg& a, int nr_cpus) {
  CpuListArg out;
  out.text = a.value.value_or("");
  if (auto s = CpuSet::ParseList(out.text, nr_cpus)) out.cpus = *s;
  return out;
}

// Parameters worth showing beside the isolation set: they change latency, the tick, the
// watchdogs, idle states or the clock (kernel-parameters.txt; the lesson's Field Guide).
const char* const kOtherRtParams[] = {
    "nohz",          "nmi_watchdog",         "idle",         "intel_idle.max_cstate",
    "processor.max_cstate", "cpuidle.off",   "cpuidle.governor", "intel_pstate",
    "threadirqs",    "preempt",              "tsc",          "clocksource",
    "mitigations",   "nosmt",                "transparent_hugepage", "hugepages",
    "default_hugepagesz", "rcutree.kthread_prio", "rcupdate.rcu_normal_after_boot", "audit",
    "numa_balancing", "workqueue.power_efficient", "systemd.unified_cgroup_hierarchy", "cgroup_no_v1",
    "cgroup_disable", "irqpoll",
};

}  // namespace

const CmdlineArg* ParsedCmdline::Find(std::string_view key) const {
  std::string want = Normalize(key);
  for (auto it = args.rbegin(); it != args.rend(); ++it) {
    if (Normalize(it->key) == want) return &*it;
  }
  return nullptr;
}

ParsedCmdline ParseCmdline(std::string_view text) {
  ParsedCmdline out;
  size_t i = 0;
  bool init_part = false;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i >= text.size()) break;
    // One argument: quotes toggle, and a quoted stretch may hold spaces (kernel/params.c).
    std::string token;
    bool in_quote = false;
    bool quoted = false;
    while (i < text.size() && (in_quote || !std::isspace(static_cast<unsigned char>(text[i])))) {
      if (text[i] == '"') {
        in_quote = !in_quote;
        quoted = true;
      } else {
        token += text[i];
      }
      ++i;
    }
    if (init_part) {
      out.init_args.push_back(token);
      continue;
    }
    if (token == "--" && !quoted) {
      init_part = true;
      continue;
    }
    size_t eq = token.find('=');
    if (eq == std::string::npos) {
      out.args.push_back({token, std::nullopt});
    } else {
      out.args.push_back({token.substr(0, eq), token.substr(eq + 1)});
    }
  }
  return out;
}

IsolCpusArg ParseIsolcpus(std::string_view value, int nr_cpus) {
  // kernel/sched/isolation.c housekeeping_isolcpus_setup(): flags are alphabetic words each
  // followed by ','; the first thing that is not a flag starts the CPU list.
  IsolCpusArg out;
  std::string_view rest = TrimView(value);
  for (;;) {
    size_t comma = rest.find(',');
    if (comma == std::string_view::npos) break;
    std::string_view word = rest.substr(0, comma);
    bool flag = !word.empty();
    for (char c : word) flag &= std::islower(static_cast<unsigned char>(c)) || c == '_';
    if (!flag) break;
    out.flags.emplace_back(word);
    rest.remove_prefix(comma + 1);
  }
  out.cpus_text = std::string(rest);
  if (auto s = CpuSet::ParseList(rest, nr_cpus)) out.cpus = *s;
  return out;
}

IsolationArgs ExtractIsolation(const ParsedCmdline& cmdline, int nr_cpus) {
  IsolationArgs iso;
  if (const auto* a = cmdline.Find("isolcpus")) iso.isolcpus = ParseIsolcpus(a->value.value_or(""), nr_cpus);
  if (const auto* a = cmdline.Find("nohz_full")) iso.nohz_full = ListArg(*a, nr_cpus);
  if (const auto* a = cmdline.Find("rcu_nocbs")) iso.rcu_nocbs = ListArg(*a, nr_cpus);
  if (const auto* a = cmdline.Find("irqaffinity")) iso.irqaffinity = ListArg(*a, nr_cpus);
  if (const auto* a = cmdline.Find("kthread_cpus")) iso.kthread_cpus = ListArg(*a, nr_cpus);
  if (const auto* a = cmdline.Find("skew_tick")) iso.skew_tick = a->value.value_or("");
  iso.rcu_nocb_poll = cmdline.Find("rcu_nocb_poll") != nullptr;
  iso.nosoftlockup = cmdline.Find("nosoftlockup") != nullptr;
  iso.nowatchdog = cmdline.Find("nowatchdog") != nullptr;
  for (const char* name : kOtherRtParams) {
    if (const auto* a = cmdline.Find(name)) iso.other.push_back(*a);
  }
  return iso;
}

CmdlineInfo CollectCmdline(const SysRoot& root, int nr_cpus) {
  CmdlineInfo c;
  if (auto r = root.ReadTrimmed(kpath::kCmdline)) {
    c.raw = *r;
    c.parsed = ParseCmdline(*r);
    c.isolation = ExtractIsolation(c.parsed, nr_cpus);
  }
  return c;
}

}  // namespace rtagent

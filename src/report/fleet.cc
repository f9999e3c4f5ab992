#include "report/fleet.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/junit_xml.h"
#include "report/format.h"

namespace rtagent {
namespace {

FleetHost HostOf(const std::string& path, const Verdict& v) {
  FleetHost h;
  h.host = v.Knows("host") && !v.host.hostname.empty() ? v.host.hostname : "unknown (" + path + ")";
  h.path = path;
  h.started_at = v.started_at;
  h.pass = v.pass;
  for (const CpuResult& c : v.cpus) {
    h.overflows += c.stats.overflows;
    if (c.stats.max_ns && (!h.worst_ns || *c.stats.max_ns > *h.worst_ns)) {
      h.worst_ns = c.stats.max_ns;
      h.worst_cpu = c.cpu;
    }
    if (const Percentile* p = c.stats.Find(0.99)) {
      if (p->beyond_limit) h.p99_beyond_limit = true;
      if (p->us && (!h.worst_p99_us || *p->us > *h.worst_p99_us)) h.worst_p99_us = p->us;
    }
  }
  if (v.Knows("kernel")) {
    h.kernel = v.host.kernel_release;
    h.preempt_rt = v.host.preempt_rt;
  }
  if (v.Knows("virtual_machine")) h.virtual_machine = v.host.virtual_machine;
  h.profile = v.profile_name;
  h.profile_digest = v.profile_digest;
  for (const Criterion& k : v.criteria) {
    if (!k.pass) h.failed.push_back(k.Role() + ": " + k.name);
  }
  return h;
}

// The value most hosts have (ties: the smaller value, so the answer does not depend on order)
// and the hosts that have another. Hosts whose value is unknown ("") are not counted.
std::optional<FleetDifference> Differs(const std::string& fact, const std::vector<FleetHost>& hosts,
                                       std::string (*value)(const FleetHost&)) {
  std::map<std::string, int> count;
  for (const FleetHost& h : hosts) {
    if (const std::string v = value(h); !v.empty()) ++count[v];
  }
  if (count.size() < 2) return std::nullopt;
  FleetDifference d;
  d.fact = fact;
  for (const auto& [v, n] : count) {
    if (n > d.common_hosts) d.common = v, d.common_hosts = n;
  }
  for (const FleetHost& h : hosts) {
    if (const std::string v = value(h); !v.empty() && v != d.common) d.others.push_back({h.host, v});
  }
  return d;
}

std::string Kernel(const FleetHost& h) {
  if (!h.kernel) return "";
  return *h.kernel + (h.preempt_rt && *h.preempt_rt ? " (PREEMPT_RT)" : "");
}
std::string Profile(const FleetHost& h) {
  return h.profile_digest.empty() ? h.profile : h.profile + " " + h.profile_digest.substr(0, 19);
}

std::string WorstText(const FleetHost& h) {
  if (!h.worst_ns) return "no samples";
  return FormatNsShort(*h.worst_ns) + " on CPU " + std::to_string(*h.worst_cpu);
}

std::string P99Text(const FleetHost& h) {
  if (h.p99_beyond_limit) return "beyond the limit";
  return h.worst_p99_us ? std::to_string(*h.worst_p99_us) + " µs" : "unknown";
}

std::string YesNo(const std::optional<bool>& b) { return !b ? "unknown" : *b ? "yes" : "no"; }

int VirtualHosts(const FleetSummary& f) {
  return static_cast<int>(std::count_if(f.hosts.begin(), f.hosts.end(),
                                        [](const FleetHost& h) { return h.virtual_machine.value_or(false); }));
}

}  // namespace

FleetSummary SummarizeFleet(const std::string& dir, const std::vector<FleetFile>& files) {
  FleetSummary f;
  f.dir = dir;
  std::map<std::string, FleetHost> newest;
  for (const FleetFile& file : files) {
    if (!file.verdict) {
      f.unread.push_back({file.path, file.verdict.error().message});
      continue;
    }
    FleetHost h = HostOf(file.path, *file.verdict);
    auto it = newest.find(h.host);
    if (it == newest.end()) {
      newest.emplace(h.host, std::move(h));
    } else if (h.started_at > it->second.started_at) {
      h.older = it->second.older + 1;
      it->second = std::move(h);
    } else {
      ++it->second.older;
    }
  }
  for (auto& [name, h] : newest) {
    (h.pass ? f.passed : f.failed)++;
    f.hosts.push_back(std::move(h));
  }
  for (size_t i = 0; i < f.hosts.size(); ++i) {
    const auto& w = f.hosts[i].worst_ns;
    if (w && (!f.worst || *w > *f.hosts[*f.worst].worst_ns)) f.worst = i;
  }
  if (auto d = Differs("kernel", f.hosts, Kernel)) f.differences.push_back(*d);
  if (auto d = Differs("profile", f.hosts, Profile)) f.differences.push_back(*d);
  return f;
}

std::string RenderFleetMarkdown(const FleetSummary& f) {
  std::ostringstream o;
  o << "# Fleet: " << CountOf(f.hosts.size(), "host", "hosts") << ", " << f.passed << " passed, " << f.failed
    << " failed\n\n";
  if (f.hosts.empty()) {
    o << "No verdict was found under " << f.dir << ".\n";
  } else if (f.worst) {
    const FleetHost& w = f.hosts[*f.worst];
    o << "Worst wake-up across the fleet: " << WorstText(w) << " of " << w.host
      << (w.virtual_machine.value_or(false) ? " (a virtual machine)" : "") << ".\n";
  }
  if (const int vm = VirtualHosts(f); vm > 0) {
    o << "\nwarning: " << CountOf(vm, "host is a virtual machine", "hosts are virtual machines")
      << ": their figures are virtual-machine figures, not a board's real-time figures.\n";
  }
  if (!f.hosts.empty()) {
    o << "\n| host | verdict | worst | largest p99 | overflows | kernel | PREEMPT_RT | virtual machine | profile | "
         "started |\n|---|---|---|---|---|---|---|---|---|---|\n";
    for (const FleetHost& h : f.hosts) {
      o << "| " << h.host << " | " << (h.pass ? "PASS" : "FAIL") << " | " << WorstText(h) << " | " << P99Text(h) << " | "
        << FormatCount(h.overflows) << " | " << h.kernel.value_or("unknown") << " | " << YesNo(h.preempt_rt) << " | "
        << YesNo(h.virtual_machine) << " | " << Profile(h) << " | " << h.started_at << " |\n";
    }
  }
  bool any_failed = false;
  for (const FleetHost& h : f.hosts) any_failed = any_failed || !h.failed.empty() || !h.pass;
  if (any_failed) {
    o << "\n## Failed\n\n";
    for (const FleetHost& h : f.hosts) {
      if (h.pass) continue;
      o << "- " << h.host << " (" << h.path << "): ";
      for (size_t i = 0; i < h.failed.size(); ++i) o << (i ? ", " : "") << h.failed[i];
      if (h.failed.empty()) o << "the verdict failed";
      o << "\n";
    }
  }
  if (!f.differences.empty()) {
    o << "\n## Not the same on every host\n\n";
    for (const FleetDifference& d : f.differences) {
      o << "- " << d.fact << ": " << d.common << " on " << CountOf(d.common_hosts, "host", "hosts") << "; ";
      for (size_t i = 0; i < d.others.size(); ++i) {
        o << (i ? ", " : "") << d.others[i].first << " has " << d.others[i].second;
      }
      o << "\n";
    }
  }
  int older = 0;
  for (const FleetHost& h : f.hosts) older += h.older;
  if (older > 0) o << "\nOnly each host's newest verdict counts; " << CountOf(older, "older one was", "older ones were") << " left aside.\n";
  if (!f.unread.empty()) {
    o << "\n## Files that are not verdicts\n\n";
    for (const auto& [path, why] : f.unread) o << "- " << path << ": " << why << "\n";
  }
  return o.str();
}

std::string RenderFleetJson(const FleetSummary& f) {
  using json = nlohmann::ordered_json;
  auto opt = [](const auto& v) { return v ? json(*v) : json(nullptr); };
  json j{{"dir", f.dir}, {"hosts_total", f.hosts.size()}, {"passed", f.passed}, {"failed", f.failed},
         {"virtual_machines", VirtualHosts(f)}};
  j["worst"] = f.worst ? json{{"host", f.hosts[*f.worst].host},
                              {"cpu", *f.hosts[*f.worst].worst_cpu},
                              {"max_ns", *f.hosts[*f.worst].worst_ns}}
                       : json(nullptr);
  j["hosts"] = json::array();
  for (const FleetHost& h : f.hosts) {
    j["hosts"].push_back({{"host", h.host},
                          {"path", h.path},
                          {"started_at", h.started_at},
                          {"pass", h.pass},
                          {"max_ns", opt(h.worst_ns)},
                          {"max_cpu", opt(h.worst_cpu)},
                          {"p99_us", opt(h.worst_p99_us)},
                          {"p99_beyond_limit", h.p99_beyond_limit},
                          {"overflows", h.overflows},
                          {"kernel", opt(h.kernel)},
                          {"preempt_rt", opt(h.preempt_rt)},
                          {"virtual_machine", opt(h.virtual_machine)},
                          {"profile", h.profile},
                          {"profile_digest", h.profile_digest},
                          {"failed", h.failed},
                          {"older_verdicts", h.older}});
  }
  j["differences"] = json::array();
  for (const FleetDifference& d : f.differences) {
    json others = json::array();
    for (const auto& [host, value] : d.others) others.push_back({{"host", host}, {"value", value}});
    j["differences"].push_back({{"fact", d.fact}, {"common", d.common}, {"common_hosts", d.common_hosts}, {"others", others}});
  }
  j["unread"] = json::array();
  for (const auto& [path, why] : f.unread) j["unread"].push_back({{"path", path}, {"reason", why}});
  return j.dump(2) + "\n";
}

std::string RenderFleetJUnit(const FleetSummary& f) {
  JUnitReport r;
  r.name = "rtagent fleet";
  r.suite_name = "rtagent fleet: " + f.dir;
  r.properties = {{"hosts", std::to_string(f.hosts.size())},
                  {"passed", std::to_string(f.passed)},
                  {"failed", std::to_string(f.failed)}};
  if (const int vm = VirtualHosts(f); vm > 0) r.properties.push_back({"virtual_machines", std::to_string(vm)});
  for (const FleetDifference& d : f.differences) {
    std::string hosts;
    for (const auto& [host, value] : d.others) hosts += (hosts.empty() ? "" : ", ") + host + "=" + value;
    r.properties.push_back({"differs." + d.fact, hosts});
  }
  for (const FleetHost& h : f.hosts) {
    JUnitCase c{"rtagent.fleet", h.host, "0", std::nullopt, std::nullopt, std::nullopt};
    c.system_out = "worst " + WorstText(h) + ", largest p99 " + P99Text(h) + ", kernel " + h.kernel.value_or("unknown") +
                   ", " + h.path;
    if (!h.pass) {
      std::string what;
      for (const std::string& k : h.failed) what += (what.empty() ? "" : ", ") + k;
      c.failure = JUnitFailure{h.host + " failed: " + (what.empty() ? "the verdict failed" : what), "verdict", std::nullopt};
    }
    r.cases.push_back(std::move(c));
  }
  for (const auto& [path, why] : f.unread) {
    r.cases.push_back({"rtagent.fleet.unread", path, "0", std::nullopt, "not a verdict: " + why, std::nullopt});
  }
  return RenderJUnitXml(r);
}

}  // namespace rtagent

#include "inspect/cgroups.h"

#include <algorithm>
#include <deque>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"

namespace rtagent {
namespace {

// A walk never visits more directories than this: a container host can have tens of
// thousands of cgroups, and inspect must stay fast (the result says it was truncated).
constexpr size_t kMaxCgroupDirs = 20000;

// v1 controllers that can appear as mount options (Documentation/admin-guide/cgroup-v1/).
const char* const kV1Controllers[] = {"cpuset", "cpu", "cpuacct", "blkio", "memory", "devices", "freezer",
                                      "net_cls", "perf_event", "net_prio", "hugetlb", "pids", "rdma", "misc"};

// /proc/mounts escapes space, tab, newline and backslash as octal (fs/proc_namespace.c).
std::string Unescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      int v = 0;
      bool ok = true;
      for (size_t j = 1; j <= 3; ++j) {
        char c = s[i + j];
        ok &= c >= '0' && c <= '7';
        v = v * 8 + (c - '0');
      }
      if (ok) {
        out += static_cast<char>(v);
        i += 3;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

std::optional<CpuSet> ReadList(const SysRoot& root, const std::string& path) {
  auto r = root.Read(path);
  if (!r) return std::nullopt;
  auto s = CpuSet::ParseList(*r);
  if (!s) return std::nullopt;
  return *s;
}

std::optional<bool> ReadBool(const SysRoot& root, const std::string& path) {
  auto r = root.Read(path);
  if (!r) return std::nullopt;
  auto v = ParseInt(*r);
  if (!v) return std::nullopt;
  return *v != 0;
}

std::vector<std::string> ReadWords(const SysRoot& root, const std::string& path) {
  std::vector<std::string> out;
  if (auto r = root.Read(path)) {
    for (auto w : SplitWs(*r)) out.emplace_back(w);
  }
  return out;
}

// Breadth-first walk of a hierarchy: calls visit(dir, rel, names) for each directory.
template <typename Visit>
bool Walk(const SysRoot& root, const std::string& top, Visit visit) {
  std::deque<std::string> queue{""};
  size_t seen = 0;
  while (!queue.empty()) {
    std::string rel = std::move(queue.front());
    queue.pop_front();
    std::string dir = rel.empty() ? top : top + rel;
    auto names = root.List(dir);
    if (!names) continue;
    visit(dir, rel.empty() ? std::string("/") : rel, *names);
    for (const auto& n : *names) {
      if (root.IsDir(dir + "/" + n)) {
        if (++seen >= kMaxCgroupDirs) return false;
        queue.push_back(rel + "/" + n);
      }
    }
  }
  return true;
}

bool Has(const std::vector<std::string>& names, const std::string& n) {
  return std::binary_search(names.begin(), names.end(), n);
}

}  // namespace

bool Mount::HasOption(std::string_view opt) const {
  return std::find(options.begin(), options.end(), opt) != options.end();
}

std::vector<Mount> ParseMounts(std::string_view text) {
  std::vector<Mount> out;
  for (auto line : SplitLines(text)) {
    auto f = SplitWs(line);
    if (f.size() < 4) continue;
    Mount m;
    m.source = Unescape(f[0]);
    m.target = Unescape(f[1]);
    m.fstype = std::string(f[2]);
    for (auto o : SplitChar(f[3], ',')) m.options.emplace_back(o);
    out.push_back(std::move(m));
  }
  return out;
}

std::optional<std::string> CgroupV2Mount(const std::vector<Mount>& mounts) {
  for (const auto& m : mounts) {
    if (m.fstype == "cgroup2") return m.target;
  }
  return std::nullopt;
}

PartitionValue ParsePartition(std::string_view text) {
  PartitionValue p;
  std::string_view t = TrimView(text);
  size_t sp = t.find(' ');
  p.type = std::string(t.substr(0, sp));
  if (sp == std::string_view::npos) return p;
  std::string_view rest = TrimView(t.substr(sp + 1));
  if (rest.substr(0, 7) == "invalid") {
    p.valid = false;
    rest = TrimView(rest.substr(7));
    if (rest.size() >= 2 && rest.front() == '(' && rest.back() == ')') rest = rest.substr(1, rest.size() - 2);
    p.reason = std::string(rest);
  }
  return p;
}

CgroupState CollectCgroups(const SysRoot& root, const std::vector<Mount>& mounts) {
  CgroupState st;
  bool v1 = false;
  bool v2 = false;
  for (const auto& m : mounts) {
    if (m.fstype == "cgroup2") {
      if (!st.v2_mount) st.v2_mount = m.target;
      v2 = true;
    } else if (m.fstype == "cgroup") {
      v1 = true;
      CgroupV1Hierarchy h{m.target, {}};
      for (const auto& o : m.options) {
        bool known = o.rfind("name=", 0) == 0;
        for (const char* c : kV1Controllers) known |= o == c;
        if (known) h.controllers.push_back(o);
      }
      if (!st.v1_cpuset_mount && m.HasOption("cpuset")) st.v1_cpuset_mount = m.target;
      st.v1_hierarchies.push_back(std::move(h));
    }
  }
  st.layout = v1 && v2 ? "hybrid" : v1 ? "v1" : v2 ? "v2" : "none";

  if (st.v2_mount) {
    std::string top = kpath::FromAbsolute(*st.v2_mount);
    st.v2_controllers = ReadWords(root, top + "/" + kpath::kCgroupControllers);
    st.v2_subtree_control = ReadWords(root, top + "/" + kpath::kCgroupSubtreeControl);
    const std::string partition = kpath::kCpusetPrefix + kpath::kCpusetPartition;
    const std::string cpus = kpath::kCpusetPrefix + kpath::kCpusetCpus;
    const std::string effective = kpath::kCpusetPrefix + kpath::kCpusetCpusEffective;
    bool complete = Walk(root, top, [&](const std::string& dir, const std::string& rel,
                                        const std::vector<std::string>& names) {
      bool is_root = rel == "/";
      if (is_root) {
        if (!Has(names, effective)) return;
      } else if (!Has(names, partition)) {
        return;
      }
      CgroupV2Cpuset c;
      c.path = rel;
      if (!is_root) {
        if (auto p = root.ReadTrimmed(dir + "/" + partition)) c.partition = *p;
        c.parsed = ParsePartition(c.partition);
        c.cpus = ReadList(root, dir + "/" + cpus);
      } else {
        c.parsed.type = "root";
      }
      c.effective_cpus = ReadList(root, dir + "/" + effective);
      st.v2_cpusets.push_back(std::move(c));
    });
    st.truncated |= !complete;
  }

  if (st.v1_cpuset_mount) {
    // Mounted with -o noprefix (old Android, some vendor images) the files lack "cpuset.".
    std::string prefix = kpath::kCpusetPrefix;
    for (const auto& m : mounts) {
      if (m.target == *st.v1_cpuset_mount && m.HasOption("noprefix")) prefix.clear();
    }
    std::string top = kpath::FromAbsolute(*st.v1_cpuset_mount);
    bool complete = Walk(root, top, [&](const std::string& dir, const std::string& rel, const std::vector<std::string>&) {
      CgroupV1Cpuset c;
      c.path = rel;
      c.cpus = ReadList(root, dir + "/" + prefix + kpath::kCpusetCpus);
      c.effective_cpus = ReadList(root, dir + "/" + prefix + kpath::kCpusetEffectiveCpus);
      c.cpu_exclusive = ReadBool(root, dir + "/" + prefix + kpath::kCpusetCpuExclusive);
      c.sched_load_balance = ReadBool(root, dir + "/" + prefix + kpath::kCpusetSchedLoadBalance);
      st.v1_cpusets.push_back(std::move(c));
    });
    st.truncated |= !complete;
  }
  return st;
}

}  // namespace rtagent

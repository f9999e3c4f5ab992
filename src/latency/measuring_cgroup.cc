#include "latency/measuring_cgroup.h"

#include <cerrno>
#include <string_view>
#include <vector>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"
#include "inspect/cgroups.h"

namespace rtagent {
namespace {

std::string Parent(const std::string& cgroup) {
  size_t slash = cgroup.find_last_of('/');
  return slash == 0 || slash == std::string::npos ? "/" : cgroup.substr(0, slash);
}

// The effective CPUs of `cgroup`: its own cpuset.cpus.effective, or its nearest ancestor's
// when the cpuset controller is not enabled down to it (the file is absent there).
std::optional<CpuSet> EffectiveCpus(const SysRoot& root, const std::string& top, std::string cgroup) {
  const std::string file = kpath::kCpusetPrefix + kpath::kCpusetCpusEffective;
  for (;;) {
    if (auto text = root.Read(kpath::CgroupDir(top, cgroup) + "/" + file)) {
      if (auto cpus = CpuSet::ParseList(*text)) return *cpus;
      return std::nullopt;
    }
    if (cgroup == "/") return std::nullopt;
    cgroup = Parent(cgroup);
  }
}

size_t Depth(const std::string& cgroup) {
  size_t n = 0;
  for (char c : cgroup) n += c == '/' ? 1 : 0;
  return cgroup == "/" ? 0 : n;
}

}  // namespace

std::string OwnV2Cgroup(const SysRoot& root) {
  auto text = root.Read(kpath::kSelfCgroup);
  if (!text) return "/";
  for (std::string_view line : SplitLines(*text)) {
    if (line.substr(0, 3) == "0::") {
      std::string path(TrimView(line.substr(3)));
      return path.empty() ? "/" : path;
    }
  }
  return "/";
}

Result<std::optional<MeasuringCgroup>> FindMeasuringCgroup(const SysRoot& root, const CpuSet& cpus) {
  auto mounts_text = root.Read(kpath::kMounts);
  if (!mounts_text) return std::optional<MeasuringCgroup>();
  const std::vector<Mount> mounts = ParseMounts(*mounts_text);
  const auto v2 = CgroupV2Mount(mounts);
  if (!v2) return std::optional<MeasuringCgroup>();
  const std::string top = kpath::FromAbsolute(*v2);
  const std::string own = OwnV2Cgroup(root);
  const auto own_cpus = EffectiveCpus(root, top, own);
  // No cpuset files at all (the controller is not offered): nothing restricts the process.
  if (!own_cpus || cpus.Minus(*own_cpus).Empty()) return std::optional<MeasuringCgroup>();

  const CgroupState st = CollectCgroups(root, mounts);
  const CgroupV2Cpuset* best = nullptr;
  std::string holders;
  for (const CgroupV2Cpuset& c : st.v2_cpusets) {
    const bool partition_root = c.path == "/" || (c.parsed.valid && (c.parsed.type == "root" || c.parsed.type == "isolated"));
    if (!partition_root || !c.effective_cpus || !c.effective_cpus->Intersects(cpus)) continue;
    holders += (holders.empty() ? "" : ", ") + c.path + " (" + c.effective_cpus->ToList() + ")";
    if (cpus.Minus(*c.effective_cpus).Empty() && (!best || Depth(c.path) > Depth(best->path))) best = &c;
  }
  if (!best) {
    return InvalidInput("the measured CPUs " + cpus.ToList() + " are not all in one cgroup v2 cpuset partition (" +
                            (holders.empty() ? std::string("none holds them") : "held by " + holders) +
                            "): a process can only run on its own cgroup's CPUs, so measure each partition's CPUs "
                            "in a run of its own (acceptance.cpus)");
  }
  MeasuringCgroup m;
  m.cgroup = best->path;
  m.dir = kpath::CgroupDir(top, best->path);
  m.cpus = *best->effective_cpus;
  const std::string kind = best->path == "/" ? "the cgroup hierarchy's top" : best->parsed.type + " partition " + best->path;
  m.reason = "the measured CPUs " + cpus.ToList() + " are outside this process's cgroup " + own + " (CPUs " +
             own_cpus->ToList() + "); the sampler ran inside the " + kind + ", as an RT application on them must";
  return std::optional<MeasuringCgroup>(std::move(m));
}

Result<std::optional<MeasuringCgroup>> JoinPartitionHolding(SysRoot& root, const CpuSet& cpus) {
  auto where = FindMeasuringCgroup(root, cpus);
  if (!where || !*where) return where;
  if (auto joined = JoinCgroup(root, (*where)->dir); !joined) {
    return Wrap("cannot move this process into cgroup " + (*where)->cgroup + ", the partition that holds CPUs " +
                    cpus.ToList() + ": ",
                joined.error());
  }
  return where;
}

}  // namespace rtagent

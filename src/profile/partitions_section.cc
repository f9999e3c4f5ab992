// partitions (Chapter 6; Documentation/admin-guide/cgroup-v2.rst, "cpuset.cpus.partition"):
// cgroup cpuset partitions by name, each with its CPUs, type and the processes moved in.
#include <regex>

#include "profile/sections.h"

namespace rtagent::profile {
namespace {

bool ValidName(LoadContext& c, const std::string& name, const SourceMark& at) {
  static const std::regex kName("[A-Za-z0-9_][A-Za-z0-9_.-]*");
  if (std::regex_match(name, kName)) return true;
  c.diags().Error(at, "partition name '" + name + "' cannot be a cgroup directory name",
                  "use letters, digits, '_', '-' and '.', not starting with '.' or '-'");
  return false;
}

void ReadProcesses(LoadContext& c, Partition& part, const YamlNode* v, const std::string& what) {
  if (v == nullptr) return;
  std::vector<Regex> out;
  if (v->IsScalar()) {
    if (auto re = c.reader().RegexValue(*v, what)) out.push_back(*re);
  } else if (v->IsSequence()) {
    for (const YamlNode& item : v->items) {
      if (auto re = c.reader().RegexValue(item, what + "[]")) out.push_back(*re);
    }
  } else {
    c.reader().WrongType(*v, what, "a list of regular expressions", "write [\"name1\", \"name2\"]");
  }
  Assign(&part.processes, out, v->mark);
}

// A partition's CPUs are its own, an isolated one holds no housekeeping CPU, and the root
// cgroup keeps at least one online CPU.
void CheckPartitions(const CrossCheck& cc, const Profile& p) {
  CpuSet used;
  for (size_t i = 0; i < p.partitions.size(); ++i) {
    const Partition& a = p.partitions[i];
    const CpuSet& cpus = a.cpus->cpus;
    if (!a.cpus.IsSet()) continue;
    if (cpus.Empty()) {
      cc.diags().Error(a.cpus.mark, "partition '" + a.name + "' has no CPU", "give it at least one CPU, e.g. 'cpus: isolated'");
      continue;
    }
    for (size_t j = 0; j < i; ++j) {
      const Partition& b = p.partitions[j];
      CpuSet both = cpus.Intersect(b.cpus->cpus);
      if (!both.Empty()) {
        cc.diags().Error(a.cpus.mark, "partitions '" + b.name + "' and '" + a.name + "' share CPU " + both.ToList(),
                         "a partition's CPUs are exclusive; give each partition its own CPUs");
      }
    }
    if (*a.type == PartitionType::kIsolated) {
      CpuSet hk = cpus.Intersect(cc.Housekeeping());
      if (!hk.Empty()) {
        cc.diags().Error(a.cpus.mark, "isolated partition '" + a.name + "' takes housekeeping CPU " + hk.ToList(),
                         "an isolated partition holds isolated CPUs; use 'cpus: isolated' or move CPU " + hk.ToList() +
                             " out of housekeeping");
      }
    }
    used = used.Union(cpus);
  }
  if (!p.partitions.empty() && p.system.online.IsSubsetOf(used)) {
    cc.diags().Error(cc.At({p.partitions.back().cpus.mark}),
                     "the partitions take every online CPU, leaving none for the root cgroup",
                     "leave the housekeeping CPUs out of every partition");
  }
}

const Section<Partition>& PartitionSection() {
  static const Section<Partition> kSection{
      "partitions.<name>",
      {
          Cpus("cpus", &Partition::cpus, CpuKeywords{}, std::nullopt, "the partition's CPUs, exclusive to it")
              .Fallback("required")
              .AndThen([](LoadContext& c, Partition& part, const YamlNode* node, const std::string&) {
                if (!Field(node, "cpus")) {
                  c.diags().Error(part.mark, "partition '" + part.name + "' has no 'cpus'",
                                  "give it its CPUs: 'cpus: isolated'");
                }
              }),
          Choice("type", &Partition::type, PartitionTypeNames(), PartitionType::kIsolated,
                 "`isolated`: no load balancing, excluded from unbound workqueues"),
          Custom<Partition>("processes", "list of regexes", "none", "process names moved into the partition",
                            ReadProcesses),
      }};
  return kSection;
}

}  // namespace

const Key<Profile>& PartitionsKey() {
  static const Key<Profile> kKey =
      Named("partitions", &Profile::partitions, PartitionSection(), "mapping", "cgroup cpuset partitions", ValidName)
          .Fallback("")
          .Checked(CheckPartitions);
  return kKey;
}

}  // namespace rtagent::profile

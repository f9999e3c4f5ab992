#include "inspect/system_state.h"

#include <algorithm>
#include <memory>

#include "base/kernel_paths.h"

namespace rtagent {

const std::vector<Section>& AllSections() {
  static const std::vector<Section> kAll = {Section::kKernel, Section::kCmdline, Section::kCpus,
                                            Section::kIrqs,   Section::kThreads, Section::kMemory,
                                            Section::kPower,  Section::kCgroups, Section::kClock,
                                            Section::kNetwork};
  return kAll;
}

std::string SectionName(Section s) {
  switch (s) {
    case Section::kKernel: return "kernel";
    case Section::kCmdline: return "cmdline";
    case Section::kCpus: return "cpus";
    case Section::kIrqs: return "irqs";
    case Section::kThreads: return "threads";
    case Section::kMemory: return "memory";
    case Section::kPower: return "power";
    case Section::kCgroups: return "cgroups";
    case Section::kClock: return "clock";
    case Section::kNetwork: return "network";
  }
  return "?";
}

std::string SectionNames() {
  std::string names;
  for (Section s : AllSections()) names += (names.empty() ? "" : ", ") + SectionName(s);
  return names;
}

Result<Section> ParseSection(std::string_view name) {
  for (Section s : AllSections()) {
    if (SectionName(s) == name) return s;
  }
  return MakeError("unknown section \"" + std::string(name) + "\"; the sections are " + SectionNames());
}

SystemState CollectSystemState(const SysRoot& root, const std::vector<Section>& sections, const EthtoolPort* channels,
                               bool keep_tasks) {
  auto want = [&](Section s) {
    return sections.empty() || std::find(sections.begin(), sections.end(), s) != sections.end();
  };
  SystemState st;
  // Read once, shared: mounts (cpus and cgroups) and cpuinfo (kernel and clock).
  std::vector<Mount> mounts;
  if (auto r = root.Read(kpath::kMounts)) mounts = ParseMounts(*r);
  std::string cpuinfo;
  if (want(Section::kKernel) || want(Section::kClock)) {
    if (auto r = root.Read(kpath::kCpuInfo)) cpuinfo = std::move(*r);
  }

  st.cpu_sets = CollectCpus(root, CgroupV2Mount(mounts));
  st.show_cpus = want(Section::kCpus);
  CpuSet online = st.cpu_sets.online.value_or(CpuSet());

  if (want(Section::kKernel)) st.kernel = CollectKernelInfo(root, online, cpuinfo);
  if (want(Section::kCmdline)) st.cmdline = CollectCmdline(root, st.cpu_sets.nr_cpus);
  if (want(Section::kIrqs)) st.irqs = CollectIrqs(root, st.cpu_sets.isolated_all);
  if (want(Section::kThreads)) {
    if (keep_tasks) {
      st.tasks = std::make_shared<const std::vector<TaskView>>(ListTasks(root, false));
      // Kept for planning and checking: those read no real-time thread's affinity but a
      // deadline thread's (RealtimeDetail), so status is not read for the rest.
      st.threads = ThreadsFromTasks(root, *st.tasks, RealtimeDetail::kDeadlineOnly);
    } else {
      st.threads = CollectThreads(root);
    }
  }
  if (want(Section::kMemory)) st.memory = CollectMemory(root);
  if (want(Section::kPower)) st.power = CollectPower(root, online);
  if (want(Section::kCgroups)) st.cgroups = CollectCgroups(root, mounts);
  if (want(Section::kClock)) st.clock = CollectClock(root, cpuinfo);
  if (want(Section::kNetwork)) {
    std::unique_ptr<EthtoolPort> own;
    if (channels == nullptr) channels = (own = MakeEthtoolPort(root, nullptr)).get();
    st.network = CollectNetwork(root, *channels);
  }
  return st;
}

}  // namespace rtagent

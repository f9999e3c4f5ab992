// The whole real-time state of a system, as `rtagent inspect` shows it, collected in one pass
// that reads every file at most once. Later commands (plan, verify) reuse the collectors.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/sysroot.h"
#include "inspect/cgroups.h"
#include "inspect/clock.h"
#include "inspect/cmdline.h"
#include "inspect/cpus.h"
#include "inspect/irqs.h"
#include "inspect/kernel_info.h"
#include "inspect/memory.h"
#include "inspect/network.h"
#include "inspect/power.h"
#include "inspect/threads.h"

namespace rtagent {

/// The sections of inspect, in display order. Their names are the JSON keys and the values
/// of `--section`.
enum class Section { kKernel, kCmdline, kCpus, kIrqs, kThreads, kMemory, kPower, kCgroups, kClock, kNetwork };

/// Every section, in display order.
const std::vector<Section>& AllSections();
/// "kernel", "cmdline", ...
std::string SectionName(Section s);
/// Every section's name, in display order: "kernel, cmdline, ..., clock" (the help text, and
/// the list an unknown name's error gives).
std::string SectionNames();
/// Parses a section name; the error lists the valid names.
Result<Section> ParseSection(std::string_view name);

/// The collected state. A section that was not asked for is nullopt. The CPU sets are always
/// collected (every other section needs them) but only shown when asked for.
struct SystemState {
  CpuState cpu_sets;
  bool show_cpus = false;
  std::optional<KernelInfo> kernel;
  std::optional<CmdlineInfo> cmdline;
  std::optional<IrqState> irqs;
  std::optional<ThreadState> threads;
  std::optional<MemoryState> memory;
  std::optional<PowerState> power;
  std::optional<CgroupState> cgroups;
  std::optional<ClockState> clock;
  std::optional<NetworkState> network;
  /// The task list (ListTasks, no command lines) the threads section was built from, kept
  /// when CollectSystemState was asked to keep it: verify's tuners and checks read the same
  /// threads again, and share this one walk instead of walking proc/ four times. Null otherwise.
  std::shared_ptr<const std::vector<TaskView>> tasks;
};

/// Collects `sections` (all when empty) from `root`. Missing files are normal (an older or
/// stock kernel): they show as absent, and collection never fails. `channels` reads the NICs'
/// channel counts for the network section; null takes MakeEthtoolPort(root) (netlink only on
/// the running system). `keep_tasks` keeps the threads section's task list in `tasks` (when
/// that section is collected), for planning and checking (verify, PlanAll): a state made so
/// has the affinity of deadline threads only (RealtimeDetail::kDeadlineOnly), and is not one
/// to show.
SystemState CollectSystemState(const SysRoot& root, const std::vector<Section>& sections = {},
                               const EthtoolPort* channels = nullptr, bool keep_tasks = false);

}  // namespace rtagent

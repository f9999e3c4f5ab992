// The whole real-time state of a system, as `rtagent inspect` shows it, collected in one pass
// that reads every file at most once. Later commands (plan, verify) reuse the collectors.
#pragma once

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
#include "inspect/power.h"
#include "inspect/threads.h"

namespace rtagent {

/// The sections of inspect, in display order. Their names are the JSON keys and the values
/// of `--section`.
enum class Section { kKernel, kCmdline, kCpus, kIrqs, kThreads, kMemory, kPower, kCgroups, kClock };

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
};

/// Collects `sections` (all when empty) from `root`. Missing files are normal (an older or
/// stock kernel): they show as absent, and collection never fails.
SystemState CollectSystemState(const SysRoot& root, const std::vector<Section>& sections = {});

}  // namespace rtagent

// irqbalance, the daemon that spreads IRQs over CPUs every ten seconds: whether it runs on the
// system under the root, where its environment file is and which CPUs it is told to leave
// alone. Read by the irqs tuner (irqs.irqbalance), the irqbalance check and `hold`, which names
// it as the cause of an IRQ moved back (irqbalance(1), "ENVIRONMENT VARIABLES").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/cpuset.h"
#include "base/sysroot.h"
#include "inspect/threads.h"

namespace rtagent {

/// The variable irqbalance 1.8 and later read (a CPU list), and the older one (a hex mask).
inline constexpr char kBannedCpulistVar[] = "IRQBALANCE_BANNED_CPULIST";
inline constexpr char kBannedCpusVar[] = "IRQBALANCE_BANNED_CPUS";

/// What is known of irqbalance on a system.
struct IrqbalanceInfo {
  bool running = false;  ///< a process named irqbalance, or systemd's unit active
  int pid = 0;           ///< the process, when one was found in /proc
  std::string how;       ///< "process 812", "systemd unit irqbalance.service active"
  std::string config;    ///< its environment file, root-relative ("" when none exists)
  std::string config_text;
  /// The variable a ban is written to: the one the file already names, the CPU list otherwise.
  std::string ban_var;
  /// The CPUs it is told to leave alone: from the running process's environment when it can
  /// be read (what it really uses), else from the file; nullopt when neither says any.
  std::optional<CpuSet> banned;
  std::string banned_from;  ///< "the environment of process 812", "etc/default/irqbalance"
};

/// Looks for irqbalance under `root`: a process whose name is irqbalance in /proc, or the
/// systemd unit's invocation link; its environment file (Debian's, then Red Hat's). With
/// `tasks`, a walk of proc/ already made (ListTasks, SystemState::tasks), the process is
/// looked for in it instead of reading every proc/PID/stat again.
IrqbalanceInfo DetectIrqbalance(const SysRoot& root, const std::vector<TaskView>* tasks = nullptr);

/// The value of `var` in a shell-style environment file ("VAR=value", quotes removed; the last
/// assignment wins, comments ignored); nullopt when it is not assigned.
std::optional<std::string> EnvFileValue(const std::string& text, const std::string& var);

/// `text` with `var` set to `value`: an existing assignment's value replaced in place (its
/// quotes kept), or a line appended; `value` nullopt removes the assignment line. Applying a
/// value and then the old one gives the text back byte for byte.
std::string SetEnvFileValue(const std::string& text, const std::string& var, const std::optional<std::string>& value);

}  // namespace rtagent

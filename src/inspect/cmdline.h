// The kernel command line (/proc/cmdline) and the isolation arguments parsed out of it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/cpuset.h"
#include "base/sysroot.h"

namespace rtagent {

/// One kernel parameter: "quiet" has no value, "isolcpus=2-3" has "2-3", and
/// `foo="a b"` has "a b" (the kernel strips the quotes, kernel/params.c next_arg).
struct CmdlineArg {
  std::string key;
  std::optional<std::string> value;
};

/// A command line split the way the kernel splits it.
struct ParsedCmdline {
  std::vector<CmdlineArg> args;        ///< kernel parameters, in order
  std::vector<std::string> init_args;  ///< everything after " -- " (handed to init)

  /// The last occurrence of `key` (the kernel keeps the last value of most parameters);
  /// '-' and '_' in names are the same to the kernel (parameq()). nullptr when absent.
  const CmdlineArg* Find(std::string_view key) const;
};

/// Splits a command line: whitespace-separated, double quotes protect spaces, " -- " ends the
/// kernel's part. Pure; never fails.
ParsedCmdline ParseCmdline(std::string_view text);

/// isolcpus=[flag,...,]cpu-list (Documentation/admin-guide/kernel-parameters.txt): leading
/// alphabetic flags (nohz, domain, managed_irq), then the CPU list. With no flag the kernel
/// applies "domain".
struct IsolCpusArg {
  std::vector<std::string> flags;  ///< as written; empty means the implicit "domain"
  std::string cpus_text;           ///< the list as written
  std::optional<CpuSet> cpus;      ///< parsed, when the list is valid
};
/// Parses the value of isolcpus=. `nr_cpus` resolves "N" (the last CPU).
IsolCpusArg ParseIsolcpus(std::string_view value, int nr_cpus = 0);

/// A parameter that takes a CPU list (nohz_full=, rcu_nocbs=, irqaffinity=, kthread_cpus=).
struct CpuListArg {
  std::string text;            ///< as written; "" for a bare "rcu_nocbs"
  std::optional<CpuSet> cpus;  ///< parsed, when valid
};

/// The isolation and real-time arguments of the lesson's chapter 6 and the Field Guide.
struct IsolationArgs {
  std::optional<IsolCpusArg> isolcpus;
  std::optional<CpuListArg> nohz_full;
  std::optional<CpuListArg> rcu_nocbs;
  std::optional<CpuListArg> irqaffinity;
  std::optional<CpuListArg> kthread_cpus;
  bool rcu_nocb_poll = false;
  std::optional<std::string> skew_tick;  ///< "1" staggers the ticks
  bool nosoftlockup = false;
  bool nowatchdog = false;
  /// Other parameters that matter to latency, as written: nmi_watchdog, idle,
  /// intel_idle.max_cstate, processor.max_cstate, threadirqs, preempt, tsc, clocksource, ...
  std::vector<CmdlineArg> other;
};

/// Picks the isolation arguments out of a parsed command line.
IsolationArgs ExtractIsolation(const ParsedCmdline& cmdline, int nr_cpus = 0);

/// What inspect's "cmdline" section shows.
struct CmdlineInfo {
  std::optional<std::string> raw;  ///< proc/cmdline, trimmed; nullopt when unreadable
  ParsedCmdline parsed;
  IsolationArgs isolation;
};

/// Reads and parses proc/cmdline. `nr_cpus` (possible CPUs) resolves "N" in CPU lists.
CmdlineInfo CollectCmdline(const SysRoot& root, int nr_cpus);

}  // namespace rtagent

// The profile model: what a profile says, as plain structs, with every value resolved against
// the system's CPUs and tied to the file:line:column it was written at, so tuners and checks
// can point a user at the line that asked for what they did. docs/profile.md is the reference
// of every key; PRODUCT.md ("What the profile describes") is the why.
#pragma once

#include <any>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "base/cpuset.h"
#include "profile/diagnostics.h"

namespace rtagent {
class SysRoot;
}

namespace rtagent::profile {

using Duration = std::chrono::nanoseconds;

/// A value and where it was written. `mark` is unknown (line 0) when the value is the
/// built-in default because no profile said anything about it.
template <typename T>
struct Marked {
  T value{};
  SourceMark mark;

  /// True when a profile (or an included one) wrote this value.
  bool IsSet() const { return mark.Known(); }
  const T& operator*() const { return value; }
  const T* operator->() const { return &value; }
};

/// A regular expression from the profile (ECMAScript syntax, matched against the whole name).
struct Regex {
  std::string pattern;
  std::shared_ptr<const std::regex> compiled;

  /// True when the whole of `text` matches (std::regex_match), as "irq/.*-eth0" implies.
  bool Matches(const std::string& text) const;
};

/// How a CPU list was written. Keywords name sets resolved at load time.
enum class CpuKeyword {
  kList,          ///< "0-3,8", 3, [1, 2], "1-N", "0xc", "all" (every possible CPU)
  kAuto,          ///< cores.housekeeping/isolated only: chosen from the online CPUs
  kHousekeeping,  ///< the profile's housekeeping CPUs
  kIsolated,      ///< the profile's isolated CPUs
  kKeep,          ///< leave the kernel's value as it is (where a field allows it)
};

/// A CPU list from the profile, resolved to a set of CPUs of this system.
struct CpuSpec {
  CpuKeyword keyword = CpuKeyword::kList;
  std::string text;  ///< as written ("1-N", "isolated"), for messages
  CpuSet cpus;       ///< resolved; empty for kKeep
};

/// The sysctl names a target has, dotted as sysctl(8) spells them ("vm.stat_interval").
/// A name is asked for one at a time (one stat of its file under the root); the whole list is
/// walked only when a suggestion for a name the target lacks is wanted. proc/sys holds about
/// 1,400 entries in some 120 directories, and walking it up front was most of the system time
/// of every command that loads a profile (docs/performance.md, "Start-up").
class SysctlNames {
 public:
  /// Unknown: every name is taken (no root to ask).
  SysctlNames() = default;
  /// A fixed list (a test's target).
  explicit SysctlNames(std::vector<std::string> names);
  /// The names under `root`'s proc/sys. `root` must outlive every question asked; a loaded
  /// profile's copy is let go of (Release) once its load is over.
  explicit SysctlNames(const SysRoot* root);

  bool Known() const { return root_ != nullptr || listed_ != nullptr; }
  /// True when the target has the sysctl `dotted` (always true when unknown).
  bool Has(const std::string& dotted) const;
  /// Every name, sorted by path; empty when unknown. Walked once and shared by copies.
  const std::vector<std::string>& All() const;
  /// Forgets the root (the names listed so far stay): what a profile keeps after loading.
  void Release() { root_ = nullptr; }

 private:
  const SysRoot* root_ = nullptr;
  mutable std::shared_ptr<const std::vector<std::string>> listed_;
};

/// The CPUs of the system the profile is loaded against (read through SysRoot).
struct SystemCpus {
  CpuSet possible;  ///< sys/devices/system/cpu/possible
  CpuSet online;    ///< sys/devices/system/cpu/online
  /// The sysctls the target has (proc/sys under the root the profile is loaded against): the
  /// `sysctls` section takes only these. Unknown when loaded without a root to ask (text in
  /// tests) or when proc/sys is absent; the plan then reports a key the kernel lacks.
  SysctlNames sysctls;
  /// The persistent huge page sizes the target offers, in kB, ascending (the directories of
  /// sys/kernel/mm/hugepages): `memory.hugepages` takes only these. nullopt as for `sysctls`.
  std::optional<std::vector<long long>> hugepage_sizes_kb;
  /// The target's NUMA nodes (sys/devices/system/node/nodeN), ascending; empty when the
  /// kernel has no node directory (built without NUMA). nullopt as for `sysctls`.
  std::optional<std::vector<int>> numa_nodes;
  /// Number of CPU ids ("N" in a CPU list is NrIds() - 1).
  int NrIds() const { return possible.Max() + 1; }
};

// ---------------------------------------------------------------------------------- cores

/// Which boot loader the kernel command line is rendered for (PRODUCT.md, cores).
enum class BootloaderType { kAuto, kGrub, kExtlinux, kRpi, kBls, kKernelInstall, kPrint };

/// isolcpus= flags (Documentation/admin-guide/kernel-parameters.txt).
enum class IsolcpusFlag { kNohz, kDomain, kManagedIrq };

/// A boot argument that takes a CPU list: off, or on with the CPUs it names.
struct BootCpuArg {
  bool enabled = false;
  CpuSpec cpus;  ///< resolved; the derived set (isolated or housekeeping) when written as `true`
};

struct BootConfig {
  /// isolcpus=FLAGS,<isolated>; nullopt renders no isolcpus= at all.
  Marked<std::optional<std::vector<IsolcpusFlag>>> isolcpus;
  Marked<BootCpuArg> nohz_full;     ///< default: on, the isolated CPUs
  Marked<BootCpuArg> rcu_nocbs;     ///< default: on, the isolated CPUs
  Marked<bool> rcu_nocb_poll;       ///< default: true
  Marked<BootCpuArg> irqaffinity;   ///< default: on, the housekeeping CPUs
  Marked<bool> skew_tick;           ///< default: true (skew_tick=1)
  Marked<BootCpuArg> kthread_cpus;  ///< default: on, the housekeeping CPUs
  Marked<std::vector<std::string>> extra;  ///< further arguments, verbatim ("intel_idle.max_cstate=1")
};

struct BootloaderConfig {
  Marked<BootloaderType> type;  ///< default: print (never edits a boot file unless asked)
  Marked<std::string> path;     ///< file to edit; "" means DefaultBootloaderPath(type)
  Marked<std::string> entry;    ///< extlinux LABEL or BLS entry file name; "" = the default one
};

struct RuntimeConfig {
  Marked<CpuSpec> workqueue_cpumask;     ///< sys/devices/virtual/workqueue/cpumask; default housekeeping
  Marked<CpuSpec> default_smp_affinity;  ///< /proc/irq/default_smp_affinity; default housekeeping
  Marked<std::optional<bool>> timer_migration;  ///< kernel.timer_migration; nullopt = leave
  /// machinecheck*/ignore_ce (x86): true stops the polling of corrected errors; nullopt = leave
  Marked<std::optional<bool>> machinecheck_ignore_ce;
};

struct CoresConfig {
  Marked<CpuSpec> housekeeping;  ///< never empty after validation
  Marked<CpuSpec> isolated;      ///< may be empty (a 1-CPU machine, a profile that isolates nothing)
  BootConfig boot;
  BootloaderConfig bootloader;
  RuntimeConfig runtime;
};

// ----------------------------------------------------------------------------------- irqs

/// Sends the IRQs it matches to `cpus`. A rule matches when every matcher it has matches.
struct IrqRule {
  std::string name;
  SourceMark mark;
  Marked<std::optional<Regex>> action;      ///< regex on an action name (/proc/interrupts' last column)
  Marked<std::optional<Regex>> chip;        ///< regex on the chip name (sys/kernel/irq/N/chip_name)
  Marked<std::vector<int>> numbers;         ///< IRQ numbers; empty = any
  Marked<CpuSpec> cpus;
};

/// An interrupt allowed to move on isolated CPUs during the interrupt-delta check.
struct IrqAllowance {
  SourceMark mark;
  Regex match;                        ///< full match on the row label (LOC, IPI0, 57) or its description
  std::optional<double> per_second;   ///< limit per CPU per second; nullopt = any rate
};

/// What rtagent does about a running irqbalance (it would move IRQs back onto isolated CPUs).
enum class IrqbalanceMode { kBan, kStop, kLeave };

struct IrqsConfig {
  Marked<IrqbalanceMode> irqbalance;  ///< default ban: the isolated CPUs in its banned list
  Marked<CpuSpec> default_cpus;  ///< every movable IRQ no rule matches; default housekeeping; kKeep = leave
  std::vector<IrqRule> rules;    ///< first matching rule wins, in file order
  Marked<std::vector<IrqAllowance>> allowed;           ///< /proc/interrupts rows
  Marked<std::vector<IrqAllowance>> allowed_softirqs;  ///< /proc/softirqs rows
};

// ---------------------------------------------------------------------------------- ranks

/// Scheduling policies (sched(7)).
enum class Policy { kFifo, kRr, kOther, kBatch, kIdle, kDeadline };

/// Policy, priority and affinity for matching threads or processes (Chapters 2 and 4).
struct RankRule {
  std::string name;
  SourceMark mark;
  Marked<std::optional<Regex>> threads;  ///< regex on a thread name (comm): "irq/[0-9]+-eth0"
  Marked<std::optional<Regex>> process;  ///< regex on a process name (its main thread's comm)
  Marked<std::optional<Regex>> cmdline;  ///< regex on the command line, arguments joined by spaces
  Marked<std::optional<Policy>> policy;  ///< nullopt: leave the policy, only set affinity
  Marked<int> priority;                  ///< fifo/rr: 1..99
  Marked<std::optional<int>> nice;       ///< other/batch: -20..19
  Marked<Duration> runtime;              ///< deadline: runtime <= deadline <= period
  Marked<Duration> deadline;             ///< deadline: defaults to the period
  Marked<Duration> period;
  Marked<std::optional<CpuSpec>> cpus;   ///< affinity; nullopt = leave
};

struct RanksConfig {
  std::vector<RankRule> rules;
  /// Rank names from the highest to the lowest; each must outrank the next.
  Marked<std::vector<std::string>> order;
  std::vector<SourceMark> order_marks;  ///< where each name in `order` is written
};

// ----------------------------------------------------------------------------- partitions

enum class PartitionType { kIsolated, kRoot };

/// A cgroup v2 cpuset partition (cpuset.cpus.partition), or on cgroup v1 an exclusive cpuset
/// without load balancing.
struct Partition {
  std::string name;  ///< the cgroup's directory name
  SourceMark mark;
  Marked<CpuSpec> cpus;
  Marked<PartitionType> type;               ///< default isolated
  Marked<std::vector<Regex>> processes;     ///< process names (comm) moved in
};

// ---------------------------------------------------------------------------------- power

struct PowerConfig {
  /// The PM QoS note written to /dev/cpu_dma_latency and held open (by `hold`); nullopt = none.
  Marked<std::optional<int>> cpu_dma_latency_us;
  Marked<CpuSpec> cpus;  ///< CPUs the per-CPU settings below apply to; default isolated (all if none)
  /// Per-CPU power/pm_qos_resume_latency_us. 0 means "no idle state at all" (the kernel spells
  /// that "n/a"; writing "0" there means no constraint). nullopt = leave.
  Marked<std::optional<int>> resume_latency_us;
  /// cpuidle states whose exit latency is above this are disabled on `cpus`; nullopt = leave.
  Marked<std::optional<int>> max_exit_latency_us;
  Marked<std::optional<std::string>> governor;  ///< cpufreq scaling_governor on `cpus`; nullopt = leave
};

// --------------------------------------------------------------------------------- kernel

enum class PreemptRtRequirement { kRequired, kPreferred, kAny };
/// What the profile expects of the RT safety net (RT throttling before 6.12, the fair server after).
enum class SafetyNetExpectation { kKeep, kIsolatedOnly, kAny };

struct KernelVersion {
  int major = 0;
  int minor = 0;
  int patch = 0;
  std::string ToString() const;
  auto operator<=>(const KernelVersion&) const = default;
};

struct KernelConfig {
  Marked<PreemptRtRequirement> preempt_rt;        ///< default preferred
  Marked<std::optional<KernelVersion>> min_version;
  Marked<SafetyNetExpectation> rt_safety_net;     ///< default keep
};

// --------------------------------------------------------------------------------- checks

/// The checks section. Each check declares its own block (checks.<name>: its toggle and
/// settings) in its file; the profile keeps those in Profile::blocks.
struct ChecksConfig {
  Marked<std::string> suite;  ///< a built-in suite (builtin_suites.h) or a suite file's path; default commission
};

// ----------------------------------------------------------------------------- acceptance

enum class BuiltinLoad { kCache, kMessaging, kDisk, kNetwork, kMemory };

/// When the acceptance run records the kernel's tracers to say why its worst wake-up was late.
enum class ExplainWhen { kOnBreach, kAlways, kOff };

struct Load {
  SourceMark mark;
  bool builtin = true;
  BuiltinLoad kind = BuiltinLoad::kCache;  ///< builtin only
  std::string name;                        ///< builtin: its name; external: a label for reports
  std::vector<std::string> argv;           ///< external only: run without a shell
  Marked<CpuSpec> cpus;                    ///< default acceptance.loads.cpus
  Marked<int> workers;                     ///< builtin: how many tasks; default 1 per CPU
};

struct AcceptanceConfig {
  Marked<Duration> duration;     ///< default 1m
  Marked<int> interval_us;       ///< default 1000
  Marked<int> priority;          ///< SCHED_FIFO rank of the sampler; default 90
  Marked<CpuSpec> cpus;          ///< measured CPUs; default isolated (all when none)
  Marked<int> histogram_limit_us;  ///< 1 us bins up to this; default 1000
  Marked<std::optional<int>> max_us;
  Marked<std::optional<int>> p50_us;
  Marked<std::optional<int>> p90_us;
  Marked<std::optional<int>> p99_us;
  Marked<std::optional<int>> p99_9_us;
  Marked<std::optional<int>> p99_99_us;
  Marked<long long> min_samples;  ///< per CPU; default 0 (duration / interval decides)
  Marked<std::optional<int>> pm_qos_us;  ///< the sampler's own PM QoS note; nullopt = none (measure the tuned state)
  Marked<CpuSpec> load_cpus;     ///< default placement of loads; default housekeeping
  std::vector<Load> loads;
  Marked<ExplainWhen> explain;   ///< the verdict's "why" section; default on-breach

  /// Wake-ups per CPU a run of `run` gives at interval_us (0 when the interval is not positive).
  long long WakeupsIn(Duration run) const;
  /// The shortest run whose wake-ups reach min_samples.
  Duration DurationForMinSamples() const;
};

// -------------------------------------------------------------------------------- service

enum class OnStop { kKeep, kRevert };

struct ServiceConfig {
  Marked<OnStop> on_stop;              ///< default keep
  Marked<Duration> watch_interval;     ///< default 5s
  Marked<CpuSpec> cpus;                ///< where the daemon runs; default housekeeping
  Marked<std::optional<std::string>> prometheus_textfile;  ///< absolute path of a .prom file
};

// -------------------------------------------------------------------------------- profile

/// A loaded, resolved and validated profile.
struct Profile {
  std::string path;                ///< the file given (or "default.yaml (built-in)")
  std::vector<std::string> files;  ///< every file read, the profile first then its includes
  /// The profile as read, its includes merged, as canonical JSON (yaml_tree.h CanonicalJson):
  /// the same for the same values however they are split, ordered or commented.
  std::string document;
  SystemCpus system;
  Marked<std::string> name;
  Marked<std::string> description;
  CoresConfig cores;
  IrqsConfig irqs;
  RanksConfig ranks;
  std::vector<Partition> partitions;
  PowerConfig power;
  KernelConfig kernel;
  ChecksConfig checks;
  AcceptanceConfig acceptance;
  ServiceConfig service;
  /// The sections tuners and checks declare for themselves (keys.h, Block), by path
  /// ("memory", "checks.hwlat"); their declarations read them back (Block::Of).
  std::map<std::string, std::any> blocks;

  /// The rank rule called `name`, or nullptr.
  const RankRule* FindRank(const std::string& name) const;
};

// Names as they are written in a profile ("fifo", "managed_irq", ...), in the order of each
// enum's values: the one list ToString and the profile's reader use. Each is made on first use,
// not by the start-up code of every run (docs/performance.md, "A static rtagent").
const std::vector<std::string>& BootloaderNames();
const std::vector<std::string>& IsolcpusFlagNames();
const std::vector<std::string>& PolicyNames();
const std::vector<std::string>& PartitionTypeNames();
const std::vector<std::string>& PreemptRtNames();
const std::vector<std::string>& SafetyNetNames();
const std::vector<std::string>& BuiltinLoadChoices();
const std::vector<std::string>& OnStopNames();
const std::vector<std::string>& IrqbalanceModeNames();
const std::vector<std::string>& ExplainWhenNames();

std::string ToString(BootloaderType v);
std::string ToString(IsolcpusFlag v);
std::string ToString(Policy v);
std::string ToString(PartitionType v);
std::string ToString(PreemptRtRequirement v);
std::string ToString(SafetyNetExpectation v);
std::string ToString(BuiltinLoad v);
std::string ToString(OnStop v);
std::string ToString(IrqbalanceMode v);
std::string ToString(ExplainWhen v);

/// The file a boot loader type edits when cores.bootloader.path is not given, relative to the
/// system root ("" for print and auto).
std::string DefaultBootloaderPath(BootloaderType type);

/// The kernel command line arguments the profile needs, in a stable order
/// ("isolcpus=nohz,domain,managed_irq,2-3", "nohz_full=2-3", ...). Empty when nothing is asked.
std::vector<std::string> BootArguments(const Profile& p);

/// "4 CPUs: housekeeping 0-1, isolated 2-3": the one-line summary `validate` prints.
std::string Summary(const Profile& p);

}  // namespace rtagent::profile

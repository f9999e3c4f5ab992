// A tuner turns one section of the profile into the changes it needs. Plan never writes:
// a tuner only reads the system and returns items; the Executor applies them, and verify is
// "plan again and expect every item to match" (STYLE.md, "Plan never writes").
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/sysroot.h"
#include "inspect/system_state.h"
#include "profile/keys.h"
#include "profile/model.h"
#include "tune/bootloader.h"
#include "tune/change.h"
#include "tune/executor.h"

namespace rtagent {

/// What every tuner reads from: the profile, the system root, and the system state collected
/// once for the whole plan (every section), so no tuner reads a kernel file twice.
struct PlanContext {
  const profile::Profile& profile;
  const SysRoot& root;
  const SystemState& state;
};

/// Something a tuner found that is not a change: a rank order violation, an IRQ rule that
/// matched nothing, a setting the kernel lacks. Shown by plan and verify.
struct Finding {
  enum class Level { kInfo, kWarning, kError };
  Level level = Level::kInfo;
  std::string message;
  profile::SourceMark mark;  ///< the profile line behind it, when there is one
  std::string why;           ///< the rule or the lesson's chapter
};

/// One section's plan: every item the profile asks for, matching or not.
struct SectionPlan {
  std::string section;
  int chapter = 0;            ///< the lesson's chapter of its settings (Tuner::Chapter)
  std::vector<Change> items;  ///< before = read now, after = wanted; Pending() tells which differ
  std::vector<Finding> findings;
  /// cores only, when the profile has boot arguments: the boot loader, its files, its update
  /// command and the next boot's command line (plan, apply and verify show it whole).
  std::optional<BootSummary> boot;
};

/// True when the item's current value differs from the wanted one.
inline bool Pending(const Change& c) { return !SameValue(c.compare, c.before, c.after); }

/// A tuner declares what the rest of rtagent needs to know of it: its profile section (and
/// the section's keys, when it declares them itself), the lesson's chapter its settings come
/// from, and which parts of the system state its plan reads. Registered in tune/registry.cc.
class Tuner {
 public:
  virtual ~Tuner() = default;
  /// The profile section it handles: "cores", "irqs", "ranks", "partitions", "power", "memory".
  virtual std::string Section() const = 0;
  /// The chapter of the "Real-Time Linux" lesson its settings come from (verify's conformance
  /// results cite it).
  virtual int Chapter() const = 0;
  /// The SystemState sections its Plan reads from ctx.state (the CPU sets always come); what
  /// it reads through ctx.root itself (threads, cgroups) is not listed.
  virtual std::vector<rtagent::Section> Reads() const { return {}; }
  /// Its profile section's declaration when the tuner declares it itself (memory); nullptr
  /// when the profile declares it (profile/sections.h: cores, irqs, ranks, partitions, power).
  virtual const profile::BlockBase* OwnSection() const { return nullptr; }
  /// Reads, never writes. An Error means the section cannot be planned at all (the command
  /// exits 3); a single item that cannot be read is a Finding.
  virtual Result<SectionPlan> Plan(const PlanContext& ctx) const = 0;
  /// Registers the actuators its items name, other than "file" (e.g. "sched", "cgroup").
  /// Under a fixture root they must be twins that never reach live processes.
  virtual void AddActuators(Executor& /*executor*/, SysRoot& /*root*/) const {}
};

/// Every tuner, in the order apply runs them (cores, memory, sysctls, network, systemd, power, partitions, irqs, ranks, cpus).
std::vector<std::unique_ptr<Tuner>> AllTuners();

/// Plans every section: collects the system state once, runs every tuner.
struct FullPlan {
  std::vector<SectionPlan> sections;
  /// Changes still to make (Pending), in apply order.
  std::vector<Change> PendingChanges() const;
  /// Boot-time items that differ from /proc/cmdline: a reboot is required for them.
  std::vector<Change> RebootRequired() const;
};
/// The SystemState sections the tuners read (the union of their Reads()). Planning collects
/// only these.
const std::vector<Section>& PlanSections();
/// The sections the tuners declare themselves (OwnSection), in apply order: they join the
/// profile language at start-up (check::DeclareProfileLanguage).
std::vector<const profile::BlockBase*> TunerSections();

/// Plans from a state of PlanSections() collected from `root`.
Result<FullPlan> PlanAll(const profile::Profile& profile, const SysRoot& root);
/// The same, from a state the caller collected from `root` already (verify's checks, commission).
Result<FullPlan> PlanAll(const profile::Profile& profile, const SysRoot& root, const SystemState& state);

}  // namespace rtagent

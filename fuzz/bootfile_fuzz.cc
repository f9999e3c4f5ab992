// The boot-loader file editors (tune/bootloader.h) and their round trip through the executor
// and its journal (tune/boot_update.h): a boot file edited by `apply` and put back by
// `revert` must be the bytes it was. The first byte picks the file kind; the rest is its text.
// Also: editing an edited file changes nothing more (verify plans nothing after apply).
#include <memory>

#include "fuzz/fuzz_support.h"
#include "inspect/boot_files.h"
#include "tune/boot_update.h"
#include "tune/bootloader.h"
#include "tune/change.h"
#include "tune/command_runner.h"
#include "tune/executor.h"
#include "tune/journal.h"

using namespace rtagent;

namespace {
const std::vector<std::string> kArgs = {"isolcpus=managed_irq,domain,2-3", "nohz_full=2-3", "rcu_nocbs=2-3",
                                        "irqaffinity=0-1"};

struct Kind {
  std::string path;
  BootUpdate step;
};

std::optional<std::string> Edit(int kind, std::string_view text) {
  switch (kind) {
    case 0: {
      auto r = EditGrubDefault(text, kArgs);
      if (!r) return std::nullopt;
      return *r;
    }
    case 1: {
      GrubCmdline vars;
      SourceGrubFile(text, bootpath::kGrubDefault, &vars);
      return RenderGrubDropIn(vars, kArgs, "/etc/rtagent/profile.yaml");
    }
    case 2: {
      auto r = EditExtlinux(text, kArgs, "");
      if (!r) return std::nullopt;
      return *r;
    }
    case 3: return EditCmdlineTxt(text, kArgs);
    default: return EditBlsEntry(text, kArgs);
  }
}

const Kind kKinds[] = {{bootpath::kGrubDefault, BootUpdate::kGrubby},
                       {bootpath::kGrubDropIn, BootUpdate::kUpdateGrub},
                       {bootpath::kExtlinux, BootUpdate::kNone},
                       {bootpath::kRpiCmdline, BootUpdate::kNone},
                       {"boot/loader/entries/fuzz.conf", BootUpdate::kNone}};

// What the executor reads for a boot file: "" when there is none.
std::string FileOf(const fuzz::MemRoot& root, const std::string& path) {
  auto it = root.files.find(path);
  return it == root.files.end() ? "" : it->second;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int kind = data[0] % 5;
  const std::string text(fuzz::Text(data + 1, size - 1));

  // The readers of the same files.
  (void)ParseBlsEntry("fuzz.conf", text);
  (void)FindExtlinuxEntry(text, "");
  (void)LoaderConfDefault(text);
  (void)GrubenvSavedEntry(text);
  (void)EfiVarString(text);
  (void)KernelInstallDefaultCmdline(text);
  (void)IsMovedCmdlineNote(text);
  std::map<std::string, std::string> vars;
  (void)ParseShellAssignments(text, &vars);

  auto edited = Edit(kind, text);
  if (!edited) return 0;
  // (The drop-in, kind 1, is rendered from the variables the other files leave, not from its
  // own text: editing it again is no property of it.)
  if (auto twice = Edit(kind, *edited); kind != 1 && twice && !SameValue(Compare::kExact, *twice, *edited))
    fuzz::Fail("editing an edited boot file changed it again", *edited, *twice);

  // apply, then revert in a later process (a new journal read from the root): the file must be
  // the bytes it was before apply.
  const Kind& k = kKinds[kind];
  fuzz::MemRoot root;
  if (kind != 1 || !text.empty()) root.files[k.path] = text;
  const std::string start = FileOf(root, k.path);
  {
    Journal journal(root);
    if (!journal.Load()) fuzz::Fail("an empty journal does not load", "", "");
    Executor executor(root, journal);
    AddBootFileActuators(executor, root, [](const SysRoot&) { return std::make_shared<FixtureCommandRunner>("fuzz"); });
    Change c;
    c.section = "cores";
    c.what = "the kernel command line in " + k.path;
    c.actuator = BootActuatorName(k.step);
    c.key = k.path;
    c.before = start;
    c.after = *edited;
    c.compare = Compare::kExact;
    ApplyReport report = executor.Apply({c});
    if (report.rolled_back && FileOf(root, k.path) != start)
      fuzz::Fail("a rolled back boot file is not the bytes it was", start, FileOf(root, k.path));
  }
  {
    Journal journal(root);
    auto loaded = journal.Load();
    if (!loaded) fuzz::Fail("the journal apply wrote does not load", start, loaded.error().message);
    Executor executor(root, journal);
    AddBootFileActuators(executor, root, [](const SysRoot&) { return std::make_shared<FixtureCommandRunner>("fuzz"); });
    RevertReport report = executor.Revert();
    if (!report.complete) fuzz::Fail("revert of a boot file was not complete", start, FileOf(root, k.path));
  }
  if (FileOf(root, k.path) != start) fuzz::Fail("apply then revert did not give the boot file back", start, FileOf(root, k.path));
  return 0;
}

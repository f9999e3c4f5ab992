// `rtagent import tuned NAME|DIR`: reads a TuneD profile with its includes and variables
// (profile/tuned_profile.h), writes the rtagent profile that makes the same settings
// (tune/tuned_import.h), and loads that profile against the system under --root before
// saying it is done, so what it writes is what `rtagent validate` accepts there.
#include <unistd.h>

#include <iostream>

#include "base/exit_codes.h"
#include "base/sysroot.h"
#include "cli/commands.h"
#include "cli/verdict_files.h"
#include "profile/loader.h"
#include "profile/tuned_profile.h"
#include "base/count_text.h"
#include "tune/tuned_import.h"

namespace rtagent {

namespace {

void PrintSummary(const profile::TunedProfile& t, const TunedImport& imp, std::ostream& err) {
  std::string chain;
  for (const auto& n : t.chain) chain += (chain.empty() ? "" : " -> ") + n;
  err << "rtagent import tuned: " << t.name << " (" << chain << "; " << CountOf(t.files.size(), "file", "files")
      << " read)\n"
      << "  " << CountOf(imp.mapped, "TuneD setting", "TuneD settings") << " mapped, " << imp.unmapped.size()
      << " not mapped (each a comment at the end of the profile):\n";
  for (const auto& u : imp.unmapped) err << "    " << u.setting << " (" << u.mark.ToString() << "): " << u.why << "\n";
  for (const auto& n : imp.notes) err << "  note: " << n << "\n";
}

}  // namespace

int CmdImportTuned(const GlobalOptions& g, const ImportTunedOptions& o) {
  const std::string me = "rtagent import tuned";
  auto root = OpenRoot(g.root);
  if (!root) {
    std::cerr << me << ": " << root.error().message << "\n";
    return kExitBadInput;
  }
  auto system = profile::ReadTunedSystem(**root);
  auto cpus = profile::ReadSystemCpus(**root);
  if (!system || !cpus) {
    std::cerr << me << ": " << (system ? cpus.error().message : system.error().message)
              << "\n  hint: --root must name a system tree with sys/devices/system/cpu/online\n";
    return kExitCannotRun;
  }
  const bool to_stdout = o.out.empty() || o.out == "-";
  // An -o that cannot be written is said before anything is read, and a write that fails later
  // leaves the file that was there (WriteFileAtomic).
  if (!to_stdout) {
    if (auto w = CheckWritable(o.out); !w) {
      std::cerr << me << ": -o " << o.out << ": " << w.error().message << "; nothing was written\n";
      return kExitBadInput;
    }
  }
  bool color = g.color && ::isatty(STDERR_FILENO);
  profile::Diagnostics diags;
  auto tuned = profile::ReadTunedProfile(o.profile, profile::TunedSearchUnder(g.root), *system, &diags);
  if (!tuned) {
    std::cerr << diags.FormatText(color) << me << ": " << tuned.error().message << "; nothing was written\n";
    return kExitBadInput;
  }
  TunedImport imp = ImportTuned(*tuned, *system);

  const std::string name = to_stdout ? "<imported>" : o.out;
  profile::Diagnostics check;
  auto loaded = profile::LoadProfileText(imp.yaml, name, ".", *cpus, &check);
  if (to_stdout) {
    std::cout << imp.yaml;
  } else if (auto w = WriteTextFile(o.out, imp.yaml); !w) {
    std::cerr << me << ": -o " << o.out << ": " << w.error().message << "\n";
    return kExitCannotRun;
  }
  PrintSummary(*tuned, imp, std::cerr);
  std::cerr << check.FormatText(color);
  if (!loaded) {
    std::cerr << me << ": the imported profile does not validate against the system under " << g.root
              << " (written anyway, to fix by hand)\n";
    return kExitBadInput;
  }
  std::cerr << "  valid against the CPUs and sysctls under " << g.root << "; wrote " << (to_stdout ? "stdout" : o.out) << "\n";
  return kExitOk;
}

}  // namespace rtagent

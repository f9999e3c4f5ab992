// `rtagent validate [PROFILE]`: loads a profile (or the built-in default) against the CPUs of
// the system under --root and reports every problem as file:line:column with a hint.
// Exit 0 when valid, 2 when not (nothing is applied), 3 when the system's CPUs cannot be read.
#include <unistd.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "base/exit_codes.h"
#include "base/sysroot.h"
#include "cli/commands.h"
#include "cli/profile_arg.h"
#include "profile/loader.h"
#include "tune/boot_plan.h"

namespace rtagent {

int CmdValidate(const GlobalOptions& g, const ValidateOptions& o) {
  using namespace rtagent::profile;
  int rc = kExitOk;
  auto resolved = ResolveForCommand("validate", o.profile, &rc);
  if (!resolved) return rc;
  const std::string& file = *resolved;
  // A name is shown as the user typed it, with the file it resolved to.
  const std::string name = o.profile.empty() ? "built-in default profile"
                           : file == o.profile ? o.profile
                                               : o.profile + " (" + file + ")";

  auto root = OpenRoot(g.root);
  if (!root) {
    std::cerr << "rtagent validate: " << root.error().message << "\n";
    return kExitBadInput;
  }
  auto cpus = ReadSystemCpus(**root);
  if (!cpus) {
    if (o.json) {
      nlohmann::json j = {{"profile", name}, {"valid", false}, {"error", cpus.error().message}};
      std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    } else {
      std::cerr << "rtagent validate: " << cpus.error().message
                << "\n  hint: --root must name a system tree with sys/devices/system/cpu/online\n";
    }
    return kExitCannotRun;
  }

  Diagnostics diags;
  auto p = file.empty() ? LoadDefaultProfile(*cpus, &diags) : LoadProfile(file, *cpus, &diags);
  if (p) {
    // The boot loader the profile names must have its file on this system (--root).
    if (std::string missing = MissingBootFile(*p, **root); !missing.empty()) {
      const auto& bl = p->cores.bootloader;
      diags.Warning(bl.path.IsSet() ? bl.path.mark : bl.type.mark,
                    "cores.bootloader " + ToString(*bl.type) + ": " + missing + " (under " + (*root)->Dir() + ")",
                    "check cores.bootloader against this board, or use `auto` to detect it");
    }
  }

  if (o.json) {
    nlohmann::json j;
    j["profile"] = name;
    j["valid"] = p.ok();
    j["errors"] = diags.ErrorCount();
    j["warnings"] = diags.WarningCount();
    j["diagnostics"] = nlohmann::json::parse(diags.FormatJsonArray());
    if (p.ok()) {
      j["summary"] = {{"online", p->system.online.ToList()},
                      {"cpus", p->system.online.Count()},
                      {"housekeeping", p->cores.housekeeping->cpus.ToList()},
                      {"isolated", p->cores.isolated->cpus.ToList()},
                      {"boot_arguments", BootArguments(*p)},
                      {"bootloader", ToString(*p->cores.bootloader.type)},
                      {"files", p->files}};
    }
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return p.ok() ? kExitOk : kExitBadInput;
  }

  bool color = g.color && ::isatty(STDERR_FILENO);
  std::cerr << diags.FormatText(color);
  int warnings = diags.WarningCount();
  std::string warned = warnings == 0 ? "" : ", " + std::to_string(warnings) + (warnings == 1 ? " warning" : " warnings");
  if (!p) {
    int errors = diags.ErrorCount();
    std::cerr << name << ": invalid, " << errors << (errors == 1 ? " error" : " errors") << warned
              << "; nothing was applied\n";
    return kExitBadInput;
  }
  std::cout << name << ": valid" << warned << " (" << Summary(*p) << ")\n";
  return kExitOk;
}

}  // namespace rtagent

// `rtagent inspect` and `rtagent capture`.
#include <iostream>
#include <optional>

#include "base/exit_codes.h"
#include "cli/commands.h"
#include "cli/profile_arg.h"
#include "inspect/capture.h"
#include "inspect/inspect_json.h"
#include "inspect/inspect_text.h"
#include "inspect/system_state.h"
#include "profile/loader.h"
#include "tune/tuner.h"

namespace rtagent {

int CmdInspect(const GlobalOptions& g, const InspectOptions& o) {
  std::vector<Section> sections;
  if (!o.section.empty()) {
    auto s = ParseSection(o.section);
    if (!s) {
      std::cerr << "rtagent inspect: " << s.error().message << "\n";
      return kExitBadInput;
    }
    sections.push_back(*s);
  }
  auto root = OpenRoot(g.root);
  if (!root) {
    std::cerr << "rtagent inspect: " << root.error().message << "\n";
    return kExitBadInput;
  }
  SystemState state = CollectSystemState(**root, sections);
  if (o.json) {
    WriteInspectJson(state, std::cout);
  } else {
    TextOptions t;
    t.color = g.color;
    std::cout << InspectText(state, t);
  }
  return kExitOk;
}

int CmdCapture(const GlobalOptions& g, const CaptureOptions& o) {
  // The profile first: a bad one is refused before anything is written. Its plan is made
  // through the recording root, so `plan --root DIR` on the copy reads what it needs. Without
  // a profile, the built-in default; a tree it cannot be loaded on (its CPUs unreadable) is
  // still captured, inspect's files only, saying so.
  int rc = kExitOk;
  std::optional<LoadedProfile> lp;
  std::string no_default;
  if (!o.profile.empty()) {
    lp = LoadForCommand("capture", g, o.profile, &rc);
    if (!lp) return rc;
  } else {
    auto root = OpenRoot(g.root);
    if (!root) {
      std::cerr << "rtagent capture: " << root.error().message << "\n";
      return kExitBadInput;
    }
    profile::Diagnostics diags;
    auto p = profile::LoadDefaultProfile(**root, &diags);
    if (!p) {
      no_default = p.error().message;
      for (const profile::Diagnostic& d : diags.All()) {
        if (d.severity == profile::Severity::kError) {
          no_default = d.message;
          break;
        }
      }
      std::cerr << "rtagent capture: the built-in default profile cannot be loaded here (" << no_default
                << "); the copy holds what inspect reads\n";
    }
    lp = LoadedProfile{std::move(*root), p ? std::move(*p) : profile::Profile{}, ""};
  }
  const bool plan_it = no_default.empty();
  const std::string name = lp->path.empty() ? "the built-in default profile" : lp->path;
  std::string command = "rtagent capture -o " + o.out_dir;
  if (g.root != "/") command += " --root " + g.root;
  if (o.force) command += " --force";
  if (!o.profile.empty()) command += " " + o.profile;
  CaptureAlso also{"the plan of " + name, [&](const SysRoot& tree) -> Result<void> {
                     auto plan = PlanAll(lp->profile, tree);
                     if (!plan) return plan.error();
                     return Ok();
                   }};
  auto r = Capture(*lp->root, o.out_dir, o.force, command, nullptr, plan_it ? &also : nullptr);
  if (!r) {
    std::cerr << "rtagent capture: " << r.error().message << "\n";
    return r.error().err == ENOTEMPTY || r.error().err == ENOTDIR ? kExitBadInput : kExitCannotRun;
  }
  for (const auto& e : r->copy_errors) std::cerr << "rtagent capture: " << e << "\n";
  if (!r->also_failed.empty()) {
    std::cerr << "rtagent capture: " << name << " cannot be planned here (" << r->also_failed
              << "); the copy holds what inspect reads\n";
  }
  std::cout << "captured " << r->files << " files from " << lp->root->Dir() << " into " << o.out_dir
            << "; inspect it with: rtagent --root " << o.out_dir << " inspect";
  if (plan_it && r->also_failed.empty()) {
    std::cout << ", plan it with: rtagent --root " << o.out_dir << " plan" << (o.profile.empty() ? "" : " " + o.profile);
  }
  std::cout << "\n";
  return r->copy_errors.empty() ? kExitOk : kExitCannotRun;
}

}  // namespace rtagent

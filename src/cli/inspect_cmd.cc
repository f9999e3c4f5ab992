// `rtagent inspect` and `rtagent capture`.
#include <iostream>

#include "base/exit_codes.h"
#include "cli/commands.h"
#include "inspect/capture.h"
#include "inspect/inspect_json.h"
#include "inspect/inspect_text.h"
#include "inspect/system_state.h"

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
  auto root = OpenRoot(g.root);
  if (!root) {
    std::cerr << "rtagent capture: " << root.error().message << "\n";
    return kExitBadInput;
  }
  std::string command = "rtagent capture -o " + o.out_dir;
  if (g.root != "/") command += " --root " + g.root;
  if (o.force) command += " --force";
  auto r = Capture(**root, o.out_dir, o.force, command);
  if (!r) {
    std::cerr << "rtagent capture: " << r.error().message << "\n";
    return r.error().err == ENOTEMPTY || r.error().err == ENOTDIR ? kExitBadInput : kExitCannotRun;
  }
  for (const auto& e : r->copy_errors) std::cerr << "rtagent capture: " << e << "\n";
  std::cout << "captured " << r->files << " files from " << (*root)->Dir() << " into " << o.out_dir
            << "; inspect it with: rtagent --root " << o.out_dir << " inspect\n";
  return r->copy_errors.empty() ? kExitOk : kExitCannotRun;
}

}  // namespace rtagent

// `rtagent profiles [--names] [--json]`: the profiles a bare name can pick (cli/profile_names.h),
// each with its description and the directory it comes from, then the directories searched.
#include <iostream>
#include <nlohmann/json.hpp>

#include "base/count_text.h"
#include "base/exit_codes.h"
#include "base/text_table.h"
#include "cli/commands.h"
#include "cli/profile_names.h"

namespace rtagent {

int CmdProfiles(const GlobalOptions&, const ProfilesOptions& o) {
  const std::vector<ProfileDir> dirs = DefaultProfileDirs();
  const std::vector<ProfileEntry> all = ListProfiles(dirs);
  if (o.names) {
    for (const ProfileEntry& e : all) std::cout << e.name << "\n";
    return kExitOk;
  }
  if (o.json) {
    nlohmann::json j = {{"profiles", nlohmann::json::array()}, {"search_path", nlohmann::json::array()}};
    for (const ProfileEntry& e : all) {
      j["profiles"].push_back(
          {{"name", e.name}, {"description", e.description}, {"path", e.path}, {"origin", e.dir.origin}});
    }
    for (const ProfileDir& d : dirs) j["search_path"].push_back({{"path", d.path}, {"origin", d.origin}});
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  if (all.empty()) {
    std::cout << "no profiles found\n";
    const size_t here = ListProfiles({{kSourceTreeProfiles, "here"}}).size();
    if (here > 0) {
      std::cout << "./" << kSourceTreeProfiles << " holds " << CountOf(here, "profile", "profiles") << " ("
                << SourceTreeNote() << ")\n";
    }
  } else {
    TextTable t({"NAME", "DESCRIPTION", "FROM"});
    for (const ProfileEntry& e : all) t.Row({e.name, ShortValue(e.description, 60), e.dir.path});
    std::cout << t.Render(0);
  }
  std::cout << "\nsearched, first match wins:\n";
  for (const ProfileDir& d : dirs) std::cout << "  " << d.path << " (" << d.origin << ")\n";
  std::cout << "use one by name: rtagent validate NAME (any command that takes a PROFILE)\n";
  return kExitOk;
}

}  // namespace rtagent

#include "cli/profile_names.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "profile/diagnostics.h"

namespace rtagent {

namespace fs = std::filesystem;

namespace {

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string Trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

}  // namespace

std::string SourceTreeNote() {
  return std::string("a source tree's profiles; RTAGENT_PROFILE_DIR=") + kSourceTreeProfiles +
         " makes every name there usable";
}

std::vector<ProfileDir> ProfileDirs(const std::string& sysconf_dir, const std::string& env_value,
                                    const std::string& data_dir) {
  std::vector<ProfileDir> dirs;
  dirs.push_back({sysconf_dir + "/profiles", "local"});
  std::stringstream parts(env_value);
  for (std::string part; std::getline(parts, part, ':');) {
    if (!part.empty()) dirs.push_back({part, "RTAGENT_PROFILE_DIR"});
  }
  dirs.push_back({data_dir, "installed"});
  return dirs;
}

std::vector<ProfileDir> DefaultProfileDirs() {
  const char* env = std::getenv("RTAGENT_PROFILE_DIR");
  return ProfileDirs(RTAGENT_SYSCONF_DIR, env != nullptr ? env : "", RTAGENT_DATA_PROFILE_DIR);
}

bool IsProfileName(const std::string& arg) {
  if (arg.empty() || arg == "." || arg == "..") return false;
  if (arg.find('/') != std::string::npos) return false;
  return !EndsWith(arg, ".yaml") && !EndsWith(arg, ".yml");
}

std::string ProfileDescription(const std::string& path) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    YAML::Node doc = YAML::Load(text);
    if (doc.IsMap() && doc["description"] && doc["description"].IsScalar()) {
      std::string d = Trim(doc["description"].as<std::string>());
      if (!d.empty()) return d;
    }
  } catch (const YAML::Exception&) {
    // A broken file still lists; `rtagent validate NAME` says what is wrong with it.
  }
  std::stringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const std::string t = Trim(line);
    if (t.empty()) continue;
    if (t[0] != '#') break;  // the first comment line only counts before any YAML
    const std::string c = Trim(t.substr(t.find_first_not_of('#')));
    if (!c.empty()) return c;
  }
  return "";
}

std::vector<ProfileEntry> ListProfiles(const std::vector<ProfileDir>& dirs) {
  std::map<std::string, ProfileEntry> by_name;
  for (const ProfileDir& d : dirs) {
    std::error_code ec;
    for (fs::directory_iterator it(d.path, ec), end; !ec && it != end; it.increment(ec)) {
      const fs::path& p = it->path();
      if (p.extension() != ".yaml" || !it->is_regular_file(ec)) continue;
      const std::string name = p.stem().string();
      if (by_name.count(name) != 0) continue;  // an earlier directory has it
      by_name[name] = ProfileEntry{name, p.string(), ProfileDescription(p.string()), d};
    }
  }
  std::vector<ProfileEntry> out;
  for (auto& [name, e] : by_name) out.push_back(std::move(e));
  return out;
}

Result<std::string> ResolveProfileName(const std::string& name, const std::vector<ProfileDir>& dirs) {
  for (const ProfileDir& d : dirs) {
    const fs::path p = fs::path(d.path) / (name + ".yaml");
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  std::string searched;
  for (const ProfileDir& d : dirs) searched += (searched.empty() ? "" : ", ") + d.path;
  std::string message = "no profile named '" + name + "' (searched " + searched + ")";
  // A file of that very name here is most likely what was meant: a word without '/' or .yaml
  // is looked up as a name, so the hint says how to give the file instead.
  std::error_code ec;
  if (fs::is_regular_file(name, ec)) {
    return MakeError(message + "\n  hint: '" + name + "' is a file in this directory, but a word without '/' or " +
                     ".yaml is a profile name; give the file as ./" + name);
  }
  // Run from a source tree (the README's build/rtagent), the shipped profiles sit in ./profiles,
  // where only an installed package's names are looked up: say where it is and how to use it.
  // The working directory is never searched itself: which profile a name means must not
  // depend on where root happens to stand.
  if (fs::is_regular_file(fs::path(kSourceTreeProfiles) / (name + ".yaml"), ec)) {
    return MakeError(message + "\n  hint: " + kSourceTreeProfiles + "/" + name + ".yaml is in this directory (" +
                     SourceTreeNote() + "): give it as " + kSourceTreeProfiles + "/" + name + ".yaml");
  }
  std::vector<ProfileEntry> all = ListProfiles(dirs);
  if (all.empty()) {
    message += "; there is no profile in any of them\n  hint: give a path to a profile file (./" + name +
               ".yaml), or put " + name + ".yaml in " + dirs.front().path;
    return MakeError(message);
  }
  // The nearest name by edit distance, however far: a user who typed a name wants to see one.
  const ProfileEntry* nearest = &all.front();
  int best = profile::EditDistance(name, nearest->name);
  for (const ProfileEntry& e : all) {
    const int d = profile::EditDistance(name, e.name);
    if (d < best) {
      best = d;
      nearest = &e;
    }
  }
  message += "; the nearest name is '" + nearest->name + "' (" + nearest->path + ")" +
             "\n  hint: `rtagent profiles` lists every name; a file is given by its path (./" + name + ".yaml)";
  return MakeError(message);
}

Result<std::string> ResolveProfileArg(const std::string& arg, const std::vector<ProfileDir>& dirs) {
  if (!IsProfileName(arg)) return arg;
  return ResolveProfileName(arg, dirs);
}

}  // namespace rtagent

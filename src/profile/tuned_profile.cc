// TuneD's profile format, read the way TuneD 2.20 reads it. The places each rule comes from:
// tuned/profiles/loader.py (ConfigParser with '=' only and inline '#' comments, includes loaded
// before the profile that names them, ${i:PROFILE_DIR}), locator.py (/etc/tuned before
// /usr/lib/tuned; a file already loaded is skipped, so /etc/tuned/realtime may include
// "realtime" to extend the package's one), merger.py (units merged option by option; replace=,
// drop=, and scripts that add up), variables.py and functions/functions.py (${name} expanded
// once when defined, \${name} kept literally, ${f:name:arg:...} evaluated innermost first).
#include "profile/tuned_profile.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>

#include "base/count_text.h"
#include "base/kernel_paths.h"

namespace rtagent::profile {
namespace {

namespace fs = std::filesystem;

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool IsWord(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), IsWordChar);
}

// ------------------------------------------------------------------------------ the INI file

struct IniSection {
  std::string name;
  SourceMark mark;
  std::vector<TunedOption> options;  // raw values
};

// Python's configparser as TuneD configures it: '=' the only delimiter, '#' and ';' start a
// comment line, '#' after whitespace starts an inline comment, an indented line continues the
// value above. `header` names the section lines before any [section] belong to (variable
// files); empty means such a line is an error, as in a tuned.conf.
std::optional<std::vector<IniSection>> ParseIni(const std::string& path, const std::string& header,
                                                Diagnostics* d) {
  std::ifstream in(path);
  std::vector<IniSection> out;
  if (!header.empty()) out.push_back({header, {path, 0, 0}, {}});
  std::string line;
  int n = 0;
  int value_indent = -1;  // indentation of the option a continuation line may extend
  bool ok = true;
  while (std::getline(in, line)) {
    ++n;
    std::string text = Trim(line);
    if (text.empty() || text[0] == '#' || text[0] == ';') {
      if (text.empty()) value_indent = -1;
      continue;
    }
    for (size_t i = 1; i < line.size(); ++i) {
      if (line[i] == '#' && std::isspace(static_cast<unsigned char>(line[i - 1]))) {
        line.resize(i);
        break;
      }
    }
    text = Trim(line);
    int indent = static_cast<int>(line.find_first_not_of(" \t"));
    if (value_indent >= 0 && indent > value_indent && !out.empty() && !out.back().options.empty()) {
      out.back().options.back().value += "\n" + text;  // a continuation line
      continue;
    }
    if (text.front() == '[' && text.back() == ']' && text.size() > 2) {
      std::string name = Trim(text.substr(1, text.size() - 2));
      auto it = std::find_if(out.begin(), out.end(), [&](const IniSection& s) { return s.name == name; });
      if (it == out.end()) {
        out.push_back({name, {path, n, 1}, {}});
      } else {  // a section written twice is one section (ConfigParser strict=False)
        IniSection moved = std::move(*it);
        out.erase(it);
        out.push_back(std::move(moved));
      }
      value_indent = -1;
      continue;
    }
    size_t eq = text.find('=');
    std::string key = eq == std::string::npos ? "" : Trim(text.substr(0, eq));
    if (key.empty()) {
      if (!header.empty() && eq == std::string::npos) continue;  // a bare word: TuneD ignores it in a variable file
      d->Error({path, n, indent + 1},
               "'" + text + "' is not a TuneD line: expected 'key = value', a [section] or a # comment",
               "TuneD cannot parse this file either (\"Cannot parse\"); fix or remove the line");
      ok = false;
      continue;
    }
    if (out.empty()) {
      d->Error({path, n, indent + 1}, "'" + key + "' is outside any [section]",
               "put it under the section it belongs to ([main], [sysctl], ...), as TuneD requires");
      ok = false;
      continue;
    }
    std::string value = Trim(text.substr(eq + 1));
    auto& opts = out.back().options;
    auto it = std::find_if(opts.begin(), opts.end(), [&](const TunedOption& o) { return o.key == key; });
    TunedOption opt{key, value, {path, n, indent + 1}};
    if (it == opts.end()) {
      opts.push_back(opt);
    } else {
      *it = opt;  // the last one wins (strict=False)
    }
    value_indent = indent;
  }
  if (!ok) return std::nullopt;
  return out;
}

// ------------------------------------------------------------------------- CPU list helpers

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::optional<CpuSet> ParseHexGroups(const std::string& hex) {
  auto m = CpuSet::ParseMask(hex);
  if (!m) return std::nullopt;
  return *m;
}

bool AddRange(const std::string& item, CpuSet* set, bool remove) {
  size_t dash = item.find('-');
  try {
    size_t used = 0;
    int a = std::stoi(item.substr(0, dash), &used);
    if (used != (dash == std::string::npos ? item.size() : dash) || a < 0) return false;
    int b = a;
    if (dash != std::string::npos) {
      std::string rest = item.substr(dash + 1);
      b = std::stoi(rest, &used);
      if (used != rest.size() || b < a) return false;
    }
    for (int c = a; c <= b; ++c) remove ? set->Remove(c) : set->Add(c);
    return true;
  } catch (...) {
    return false;
  }
}

// TuneD's lists of names (include=, drop=): separated by ',' or ';' with any spaces.
std::vector<std::string> SplitNames(const std::string& s) {
  static const std::regex sep(R"(\s*[,;]\s*)");
  std::vector<std::string> out;
  for (std::sregex_token_iterator it(s.begin(), s.end(), sep, -1), end; it != end; ++it) {
    std::string n = Trim(*it);
    if (!n.empty()) out.push_back(n);
  }
  return out;
}

// ----------------------------------------------------------------------- variables, functions

using Function = std::function<std::optional<std::string>(const std::vector<std::string>&)>;

class Expander {
 public:
  Expander(const TunedSystem& system, Diagnostics* d, std::vector<std::string>* notes)
      : system_(system), d_(d), notes_(notes) {}

  std::map<std::string, std::string> vars;

  /// variables.py expand(): known ${name} replaced once (not after a backslash), \${name}
  /// unescaped, then the functions.
  std::string Expand(const std::string& value, const SourceMark& mark) {
    std::string s;
    for (size_t i = 0; i < value.size(); ++i) {
      if (value[i] == '$' && i + 1 < value.size() && value[i + 1] == '{' && (i == 0 || value[i - 1] != '\\')) {
        size_t end = i + 2;
        while (end < value.size() && IsWordChar(value[end])) ++end;
        if (end < value.size() && value[end] == '}' && end > i + 2) {
          auto it = vars.find(value.substr(i + 2, end - i - 2));
          if (it != vars.end()) {
            s += it->second;
            i = end;
            continue;
          }
        }
      }
      s += value[i];
    }
    s = std::regex_replace(s, std::regex(R"(\\(\$\{\w+\}))"), "$1");
    mark_ = mark;
    s = Functions(s);
    return std::regex_replace(s, std::regex(R"(\\(\$\{f:.*\}))"), "$1");
  }

 private:
  // functions.py _process(): a stack of "${" positions; each '}' closes the latest, and a
  // "${f:..." that was not escaped is evaluated and replaced where it stands.
  std::string Functions(std::string s) {
    std::vector<std::pair<bool, size_t>> stack;
    bool esc = false;
    size_t i = 0;
    while (i < s.size()) {
      if (s[i] == '}') {
        if (stack.empty()) return s;
        auto [escaped, from] = stack.back();
        stack.pop_back();
        if (!escaped) {
          if (auto r = Call(s.substr(from, i - from))) {
            s = s.substr(0, from) + *r + s.substr(i + 1);
            i = from + r->size();  // the result is not scanned again
            esc = false;
            continue;
          }
        }
      } else if (s.compare(i, 2, "${") == 0) {
        stack.push_back({esc, i});
      }
      esc = s[i] == '\\';
      ++i;
    }
    return s;
  }

  std::optional<std::string> Call(const std::string& text) {
    // split on ':' not after a backslash; "\:" is a colon in an argument
    std::vector<std::string> parts;
    std::string cur;
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == ':' && (i == 0 || text[i - 1] != '\\')) {
        parts.push_back(cur);
        cur.clear();
      } else {
        cur += text[i];
      }
    }
    parts.push_back(cur);
    if (parts.size() < 2 || parts[0] != "${f") return std::nullopt;
    for (auto& p : parts) p = std::regex_replace(p, std::regex(R"(\\:)"), ":");
    std::vector<std::string> args(parts.begin() + 2, parts.end());
    const auto& table = Table();
    auto it = table.find(parts[1]);
    if (it == table.end()) return std::nullopt;  // TuneD leaves an unknown function as written
    return it->second(args);
  }

  // The arguments joined as TuneD's list functions join them (",," keeps a hex mask apart).
  static std::optional<CpuSet> CpusOf(const std::vector<std::string>& args) {
    std::string joined;
    for (size_t i = 0; i < args.size(); ++i) joined += (i ? ",," : "") + args[i];
    if (joined.find("${") != std::string::npos) return std::nullopt;  // an unknown variable: left as written
    return UnpackTunedCpus(joined);
  }

  static std::string Commas(const CpuSet& set) {
    std::string out;
    for (int c : set.Cpus()) out += (out.empty() ? "" : ",") + std::to_string(c);
    return out;
  }

  std::optional<std::string> Assert(const std::vector<std::string>& a, bool want_equal) {
    if (a.size() < 3) return std::nullopt;
    if ((a[1] == a[2]) != want_equal) {
      d_->Error(mark_,
                "TuneD assertion '" + a[0] + "' failed: '" + a[1] + (want_equal ? "' != '" : "' == '") + a[2] + "'",
                "TuneD refuses this profile too; set what the assertion names (for the realtime profiles: "
                "isolated_cores in the variable file [variables] include= names)");
    }
    return std::string();
  }

  std::optional<std::string> CalcIsolated(const std::vector<std::string>& a) {
    int reserve = 1;
    if (!a.empty() && !a[0].empty()) {
      // More digits than an int holds is as unusable as a word (std::stoi would throw).
      if (a[0].size() > 9 || !std::all_of(a[0].begin(), a[0].end(), ::isdigit)) return std::nullopt;
      reserve = std::stoi(a[0]);
    }
    std::map<int, std::vector<int>> sockets;
    for (auto [cpu, pkg] : system_.package_of) sockets[pkg].push_back(cpu);
    if (sockets.empty()) {
      for (int cpu : system_.online.Cpus()) sockets[0].push_back(cpu);
      notes_->push_back("calc_isolated_cores: no topology/physical_package_id under the root; every CPU counted in one socket");
    }
    CpuSet isolated;
    for (auto& [pkg, cpus] : sockets) {
      for (size_t i = static_cast<size_t>(reserve); i < cpus.size(); ++i) isolated.Add(cpus[i]);
    }
    return Commas(isolated);
  }

  const std::map<std::string, Function>& Table() {
    if (!table_.empty()) return table_;
    auto cpus = [this](std::function<std::string(const CpuSet&)> f) -> Function {
      return [f](const std::vector<std::string>& a) -> std::optional<std::string> {
        auto c = CpusOf(a);
        if (!c) return std::nullopt;
        return f(*c);
      };
    };
    table_["cpulist_unpack"] = cpus([](const CpuSet& c) { return Commas(c); });
    table_["cpulist_pack"] = cpus([](const CpuSet& c) { return c.ToList(); });
    table_["cpulist_invert"] = cpus([this](const CpuSet& c) { return Commas(system_.online.Minus(c)); });
    table_["cpulist2hex"] = cpus([](const CpuSet& c) { return TunedHexMask(c); });
    table_["cpulist2hex_invert"] = cpus([this](const CpuSet& c) { return TunedHexMask(system_.online.Minus(c)); });
    table_["cpulist_online"] = cpus([this](const CpuSet& c) { return Commas(c.Intersect(system_.online)); });
    table_["cpulist_present"] = cpus([this](const CpuSet& c) { return Commas(c.Intersect(system_.present)); });
    table_["hex2cpulist"] = [](const std::vector<std::string>& a) -> std::optional<std::string> {
      if (a.empty() || a[0].find("${") != std::string::npos) return std::nullopt;
      std::string hex = a[0];
      hex.erase(std::remove(hex.begin(), hex.end(), ','), hex.end());
      auto c = ParseHexGroups(hex);
      if (!c) return std::nullopt;
      return Commas(*c);
    };
    table_["strip"] = [](const std::vector<std::string>& a) -> std::optional<std::string> {
      std::string s;
      for (const auto& x : a) s += x;
      return Trim(s);
    };
    table_["regex_search_ternary"] = [](const std::vector<std::string>& a) -> std::optional<std::string> {
      if (a.size() < 4) return std::nullopt;
      try {
        return std::regex_search(a[0], std::regex(a[1])) ? a[2] : a[3];
      } catch (const std::regex_error&) {
        return std::nullopt;
      }
    };
    table_["assertion"] = [this](const std::vector<std::string>& a) { return Assert(a, true); };
    table_["assertion_non_equal"] = [this](const std::vector<std::string>& a) { return Assert(a, false); };
    table_["calc_isolated_cores"] = [this](const std::vector<std::string>& a) { return CalcIsolated(a); };
    // TuneD: the number when it is one, else nproc (its own CPUs: the housekeeping ones).
    table_["check_net_queue_count"] = [](const std::vector<std::string>& a) -> std::optional<std::string> {
      if (!a.empty() && !a[0].empty() && std::all_of(a[0].begin(), a[0].end(), ::isdigit)) return a[0];
      return std::string("housekeeping");
    };
    return table_;
  }

  const TunedSystem& system_;
  Diagnostics* d_;
  std::vector<std::string>* notes_;
  SourceMark mark_;
  std::map<std::string, Function> table_;
};

// ------------------------------------------------------------------------- loading, merging

struct LoadedFile {
  std::string name;
  std::string dir;
  std::vector<IniSection> sections;
};

class Reader {
 public:
  Reader(const TunedSearch& search, const TunedSystem& system, Diagnostics* d)
      : search_(search), d_(d), expander_(system, d, &out_.notes) {}

  Result<TunedProfile> Read(const std::string& name_or_dir) {
    out_.name = name_or_dir;
    dirs_ = search_.dirs;
    bool is_dir = name_or_dir.find('/') != std::string::npos || fs::is_directory(name_or_dir);
    if (is_dir) {
      std::string file = (fs::path(name_or_dir) / "tuned.conf").lexically_normal().string();
      if (!fs::is_regular_file(file)) {
        d_->Error({name_or_dir, 0, 0}, "no TuneD profile in '" + name_or_dir + "': it has no tuned.conf",
                  "give a directory holding tuned.conf, or a profile name (looked up in " + DirList() + ")");
        return Failed();
      }
      fs::path dir = fs::absolute(name_or_dir).lexically_normal();
      if (!dir.has_filename()) dir = dir.parent_path();
      dirs_.insert(dirs_.begin(), dir.parent_path().string());
      LoadFile(dir.filename().string(), file);
    } else {
      LoadName(name_or_dir, {});
    }
    if (d_->HasErrors()) return Failed();
    Merge();
    Evaluate();
    if (d_->HasErrors()) return Failed();
    return out_;
  }

 private:
  Error Failed() const {
    return MakeError("TuneD profile '" + out_.name + "': " + CountOf(d_->ErrorCount(), "error", "errors"));
  }

  std::string DirList() const {
    std::string s;
    for (const auto& dir : dirs_) s += (s.empty() ? "" : ", ") + dir;
    return s;
  }

  // locator.py get_config(): the first directory that has NAME/tuned.conf, skipping a file
  // already loaded (a "-NAME" include may be missing).
  void LoadName(std::string name, const SourceMark& at) {
    bool optional = !name.empty() && name[0] == '-';
    if (optional) name.erase(0, 1);
    std::string base = fs::path(name).filename().string();
    bool on_chain = false, loaded_elsewhere = false;
    for (const auto& dir : dirs_) {
      std::string file = (fs::path(dir) / base / "tuned.conf").lexically_normal().string();
      if (std::find(loaded_.begin(), loaded_.end(), file) != loaded_.end()) {
        (std::find(stack_.begin(), stack_.end(), file) != stack_.end() ? on_chain : loaded_elsewhere) = true;
        continue;
      }
      if (fs::is_regular_file(file)) return LoadFile(base, file);
    }
    if (loaded_elsewhere && !on_chain) return;  // a second branch including it: TuneD loads it once
    if (on_chain) {
      std::string loop;
      for (const auto& n : names_) loop += n + " -> ";
      d_->Error(at, "include loop: " + loop + base,
                "'" + base + "' includes itself through this chain; remove one include= (TuneD would skip it silently)");
      return;
    }
    if (optional) return;
    std::string nearest;
    std::vector<std::string> names;
    for (const auto& dir : dirs_) {
      std::error_code ec;
      for (const auto& e : fs::directory_iterator(dir, ec)) names.push_back(e.path().filename().string());
    }
    nearest = NearestWord(base, names);
    d_->Error(at.file.empty() ? SourceMark{base, 0, 0} : at, "no TuneD profile '" + base + "' (searched " + DirList() + ")",
              nearest.empty() ? "a profile is a directory NAME holding tuned.conf; give its path to import one elsewhere"
                              : "did you mean '" + nearest + "'?");
  }

  void LoadFile(const std::string& name, const std::string& file) {
    loaded_.push_back(file);
    out_.files.push_back(file);
    auto ini = ParseIni(file, "", d_);
    if (!ini) return;
    std::string dir = fs::path(file).parent_path().string();
    for (auto& sec : *ini) {
      for (auto& o : sec.options) {
        o.value = std::regex_replace(o.value, std::regex(R"((^|[^\\])\$\{i:PROFILE_DIR\})"), "$1" + dir);
      }
    }
    stack_.push_back(file);
    names_.push_back(name);
    for (auto& sec : *ini) {
      if (sec.name != "main") continue;
      for (auto it = sec.options.begin(); it != sec.options.end(); ++it) {
        if (it->key != "include") continue;
        TunedOption inc = *it;
        sec.options.erase(it);
        std::string names = expander_.Expand(inc.value, inc.mark);
        for (const std::string& n : SplitNames(names)) LoadName(n, inc.mark);
        break;
      }
    }
    stack_.pop_back();
    names_.pop_back();
    out_.chain.push_back(name);
    profiles_.push_back({name, dir, std::move(*ini)});
  }

  static void Update(std::vector<TunedOption>& into, const TunedOption& o) {
    auto it = std::find_if(into.begin(), into.end(), [&](const TunedOption& x) { return x.key == o.key; });
    if (it == into.end()) {
      into.push_back(o);
    } else {
      *it = o;
    }
  }

  static std::optional<TunedOption> Pop(std::vector<TunedOption>& opts, const std::string& key) {
    auto it = std::find_if(opts.begin(), opts.end(), [&](const TunedOption& x) { return x.key == key; });
    if (it == opts.end()) return std::nullopt;
    TunedOption o = *it;
    opts.erase(it);
    return o;
  }

  static bool True(const std::optional<TunedOption>& o, bool dflt) {
    if (!o) return dflt;
    return o->value == "1" || o->value == "true" || o->value == "True";
  }

  // merger.py _merge_two(), profile by profile, parents first.
  void Merge() {
    for (auto& p : profiles_) {
      for (auto& sec : p.sections) {
        if (sec.name == "main") {
          for (const auto& o : sec.options) Update(out_.main, o);
          continue;
        }
        TunedUnit u{sec.name, sec.name, true, "*", sec.mark, sec.options};
        if (auto t = Pop(u.options, "type")) u.type = t->value;
        u.enabled = True(Pop(u.options, "enabled"), true);
        bool replace = True(Pop(u.options, "replace"), false);
        auto drop = Pop(u.options, "drop");
        if (auto dv = Pop(u.options, "devices")) u.devices = dv->value;
        auto it = std::find_if(out_.units.begin(), out_.units.end(), [&](const TunedUnit& x) { return x.name == u.name; });
        if (replace || it == out_.units.end()) {
          if (it == out_.units.end()) {
            out_.units.push_back(u);
          } else {
            *it = u;
          }
          continue;
        }
        it->type = u.type;
        it->enabled = u.enabled;
        it->devices = u.devices;
        it->mark = u.mark;
        if (drop) {
          for (const std::string& k : SplitNames(drop->value)) Pop(it->options, k);
        }
        std::optional<TunedOption> script = u.name == "script" ? Pop(it->options, "script") : std::nullopt;
        for (const auto& o : u.options) Update(it->options, o);
        if (script) {  // scripts add up, the parent's first
          for (auto& o : it->options) {
            if (o.key == "script") o.value = script->value + "\n" + o.value;
          }
        }
      }
    }
  }

  std::string UnderRoot(const std::string& path, const SourceMark& at) const {
    if (!path.empty() && path[0] == '/') {
      if (search_.root.empty() || search_.root == "/") return path;
      return (fs::path(search_.root) / path.substr(1)).string();
    }
    return (fs::path(at.file).parent_path() / path).lexically_normal().string();
  }

  void AddVariable(const TunedOption& o) {
    if (!IsWord(o.key)) {
      d_->Error(o.mark, "variable name '" + o.key + "' has characters TuneD does not allow",
                "a variable name is letters, digits and '_' (TuneD ignores this one)");
      return;
    }
    expander_.vars[o.key] = expander_.Expand(o.value, o.mark);
  }

  // variables.py add_from_cfg(): in the merged order; include= reads a variable file there.
  void Evaluate() {
    auto vit = std::find_if(out_.units.begin(), out_.units.end(), [](const TunedUnit& u) { return u.name == "variables"; });
    if (vit != out_.units.end()) {
      TunedUnit vars = *vit;
      out_.units.erase(vit);
      for (const auto& o : vars.options) {
        if (o.key != "include") {
          AddVariable(o);
          continue;
        }
        std::string file = UnderRoot(o.value, o.mark);
        if (!fs::is_regular_file(file)) {
          d_->Error(o.mark, "variable file '" + o.value + "' does not exist (looked for " + file + ")",
                    "create it (TuneD ships it with the profile) or remove the include= line");
          continue;
        }
        out_.files.push_back(file);
        auto ini = ParseIni(file, "tuned-variables", d_);
        if (!ini) continue;
        for (const auto& sec : *ini) {
          for (const auto& v : sec.options) AddVariable(v);
        }
      }
    }
    out_.variables = expander_.vars;
    for (auto& u : out_.units) {
      u.devices = expander_.Expand(u.devices, u.mark);
      for (auto& o : u.options) {
        o.value = expander_.Expand(o.value, o.mark);
        CheckUnknown(u, o);
      }
    }
  }

  // A ${name} left in a setting names a variable nothing defined: TuneD would write the
  // text "${name}" to the kernel.
  void CheckUnknown(const TunedUnit& u, const TunedOption& o) {
    static const std::regex ref(R"((^|[^\\])\$\{(\w+)\})");
    for (std::sregex_iterator it(o.value.begin(), o.value.end(), ref), end; it != end; ++it) {
      std::string name = (*it)[2];
      auto known = expander_.vars.find(name);
      // "isolated_cores = ${isolated_cores}" with nothing before it defines it as itself
      if (known != expander_.vars.end() && known->second.find("${" + name + "}") == std::string::npos) continue;
      std::vector<std::string> names;
      for (const auto& [k, v] : expander_.vars) names.push_back(k);
      std::string nearest = NearestWord(name, names);
      d_->Error(o.mark, "unknown variable '" + name + "' in [" + u.name + "] " + o.key,
                nearest.empty() ? "define it in [variables] or in the variable file its include= names"
                                : "did you mean '" + nearest + "'? (or define it in [variables])");
      return;
    }
  }

  const TunedSearch& search_;
  Diagnostics* d_;
  TunedProfile out_;
  Expander expander_;
  std::vector<std::string> dirs_;
  std::vector<std::string> loaded_;  // every tuned.conf loaded (locator's processed_files)
  std::vector<std::string> stack_;   // the files being loaded, outermost first
  std::vector<std::string> names_;   // their profile names
  std::vector<LoadedFile> profiles_; // in merge order: includes before their includer
};

}  // namespace

std::optional<CpuSet> UnpackTunedCpus(const std::string& text) {
  std::string s = text;
  while (!s.empty() && (s.front() == '\'' || s.front() == '"')) s.erase(0, 1);
  while (!s.empty() && (s.back() == '\'' || s.back() == '"')) s.pop_back();
  CpuSet set;
  std::vector<std::string> negate;
  std::vector<std::string> items = Split(s, ',');
  for (size_t i = 0; i < items.size(); ++i) {
    std::string item = Trim(items[i]);
    if (item.empty()) continue;
    if (item.size() > 2 && (item.compare(0, 2, "0x") == 0 || item.compare(0, 2, "0X") == 0)) {
      std::string hex = item.substr(2);
      while (i + 1 < items.size() && !Trim(items[i + 1]).empty()) hex += Trim(items[++i]);
      auto m = ParseHexGroups(hex);
      if (!m) return std::nullopt;
      set = set.Union(*m);
      continue;
    }
    if (item[0] == '^') {
      negate.push_back(item.substr(1));
      continue;
    }
    if (!AddRange(item, &set, false)) return std::nullopt;
  }
  for (const auto& n : negate) {
    if (!AddRange(n, &set, true)) return std::nullopt;
  }
  return set;
}

std::string TunedHexMask(const CpuSet& cpus) {
  static const char* kDigits = "0123456789abcdef";
  int nibbles = std::max(1, (cpus.Max() + 4) / 4);
  nibbles = (nibbles + 7) / 8 * 8;
  std::string hex(static_cast<size_t>(nibbles), '0');
  for (int c : cpus.Cpus()) {
    size_t pos = hex.size() - 1 - static_cast<size_t>(c / 4);
    int v = (std::string(kDigits).find(hex[pos]) | (1 << (c % 4)));
    hex[pos] = kDigits[v];
  }
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 8) out += (i ? "," : "") + hex.substr(i, 8);
  return out;
}

Result<TunedSystem> ReadTunedSystem(const SysRoot& root) {
  TunedSystem s;
  auto online = root.ReadTrimmed(kpath::kCpuOnline);
  if (!online) return online.error();
  auto set = CpuSet::ParseList(*online);
  if (!set) return set.error();
  s.online = *set;
  auto present = root.ReadTrimmed(kpath::kCpuPresent);
  auto pset = present ? CpuSet::ParseList(*present) : Result<CpuSet>(s.online);
  s.present = pset ? *pset : s.online;
  for (int cpu : s.online.Cpus()) {
    auto pkg = root.ReadInt(kpath::CpuPackageId(cpu));
    if (pkg) s.package_of[cpu] = static_cast<int>(*pkg);
  }
  return s;
}

TunedSearch TunedSearchUnder(const std::string& root) {
  fs::path r = root.empty() ? fs::path("/") : fs::path(root);
  return {{(r / "etc/tuned").string(), (r / "etc/tuned/profiles").string(), (r / "usr/lib/tuned").string(),
           (r / "usr/lib/tuned/profiles").string()},
          root};
}

Result<TunedProfile> ReadTunedProfile(const std::string& name_or_dir, const TunedSearch& search,
                                      const TunedSystem& system, Diagnostics* diags) {
  Diagnostics local;
  Reader reader(search, system, diags ? diags : &local);
  return reader.Read(name_or_dir);
}

}  // namespace rtagent::profile

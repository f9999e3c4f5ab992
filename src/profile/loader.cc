#include "profile/loader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/file_trust.h"
#include "base/kernel_paths.h"
#include "base/kernel_text.h"
#include "profile/default_profile_text.h"
#include "profile/language.h"
#include "profile/yaml_tree.h"

namespace rtagent::profile {
namespace {

namespace fs = std::filesystem;

// ------------------------------------------------------------------------------ files, includes

// Reads profile files and merges their includes: included files first, in order, each
// overridden by the next, and the including file over all of them.
class IncludeLoader {
 public:
  explicit IncludeLoader(Diagnostics* diags) : diags_(diags) {}

  std::optional<YamlNode> LoadFile(const std::string& display, const SourceMark& from) {
    std::error_code ec;
    fs::path canon = fs::weakly_canonical(fs::path(display), ec);
    std::string key = ec ? display : canon.string();
    auto cycle = std::find(stack_.begin(), stack_.end(), key);
    if (cycle != stack_.end()) {
      std::string chain;
      for (auto it = cycle; it != stack_.end(); ++it) chain += names_[static_cast<size_t>(it - stack_.begin())] + " -> ";
      chain += display;
      diags_->Error(from, "include cycle: " + chain,
                    "a profile cannot include itself, directly or through others; remove one include of the chain");
      return std::nullopt;
    }
    SourceMark at = from.Known() ? from : SourceMark{display, 0, 0};
    std::string what = from.Known() ? "included profile" : "profile";
    if (fs::is_directory(fs::path(display), ec)) {
      diags_->Error(at, "cannot read " + what + " '" + display + "': it is a directory", "name a .yaml file");
      return std::nullopt;
    }
    // As root, a file another user can change is refused (base/file_trust.h: sudo's rule).
    if (auto bad = FindUntrusted(display, ProcessFileTrust())) {
      diags_->Error(at, "refusing " + what + " '" + display + "' as root: " + bad->message, bad->hint);
      return std::nullopt;
    }
    std::ifstream in(display, std::ios::binary);
    if (!in) {
      int e = errno;
      std::string hint = from.Known()
                             ? "include paths are relative to the including file's directory (" +
                                   fs::path(from.file).parent_path().string() + ")"
                             : "check the path; run 'rtagent validate' without a file for the built-in default";
      if (from.Known() && fs::path(from.file).parent_path().empty()) hint = "include paths are relative to the including file's directory";
      diags_->Error(at, "cannot read " + what + " '" + display + "': " + std::strerror(e ? e : ENOENT), hint);
      return std::nullopt;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    stack_.push_back(key);
    names_.push_back(display);
    auto tree = LoadText(ss.str(), display, fs::path(display).parent_path().string());
    stack_.pop_back();
    names_.pop_back();
    return tree;
  }

  std::optional<YamlNode> LoadText(const std::string& text, const std::string& display, const std::string& dir) {
    files_.push_back(display);
    bool parsed = false;
    YamlNode doc = ParseYaml(text, display, diags_, &parsed);
    if (!parsed) return std::nullopt;
    if (doc.IsNull()) {
      diags_->Error(SourceMark{display, 1, 1}, "the profile is empty",
                    "a profile is a YAML mapping of sections; start with 'name: my-board' and 'cores:' "
                    "(see docs/profile.md)");
      return std::nullopt;
    }
    if (!doc.IsMap()) {
      diags_->Error(doc.mark, "the top level of a profile must be a mapping of sections, got " + doc.Describe(),
                    "write 'key: value' lines at the top level: name:, cores:, irqs:, ranks:, ...");
      return std::nullopt;
    }
    // An included file's own version: the merge keeps only the including file's.
    if (const YamlNode* v = doc.Find("version"); v != nullptr && stack_.size() > 1) CheckProfileVersion(*diags_, *v);
    YamlNode merged;
    merged.kind = YamlNode::Kind::kMap;
    merged.mark = doc.mark;
    int inc = doc.IndexOf("include");
    if (inc >= 0) {
      const YamlNode& list = doc.items[static_cast<size_t>(inc)];
      std::vector<const YamlNode*> items;
      if (list.IsScalar()) {
        items.push_back(&list);
      } else if (list.IsSequence()) {
        for (const YamlNode& i : list.items) items.push_back(&i);
      } else if (!list.IsNull()) {
        diags_->Error(list.mark, "wrong type for 'include': expected a list of files, got " + list.Describe(),
                      "write 'include: [base.yaml]' or one '- base.yaml' per line");
      }
      for (const YamlNode* item : items) {
        if (!item->IsScalar() || item->scalar.empty()) {
          diags_->Error(item->mark, "wrong type for 'include[]': expected a file name, got " + item->Describe(),
                        "write the path of a profile relative to this file");
          continue;
        }
        fs::path p(item->scalar);
        std::string resolved = p.is_absolute() ? p.lexically_normal().string() : (fs::path(dir) / p).lexically_normal().string();
        auto sub = LoadFile(resolved, item->mark);
        if (sub) MergeYaml(&merged, *sub);
      }
      doc.keys.erase(doc.keys.begin() + inc);
      doc.key_marks.erase(doc.key_marks.begin() + inc);
      doc.items.erase(doc.items.begin() + inc);
    }
    MergeYaml(&merged, doc);
    return merged;
  }

  const std::vector<std::string>& files() const { return files_; }

 private:
  Diagnostics* diags_;
  std::vector<std::string> stack_;  // canonical paths of the files being loaded
  std::vector<std::string> names_;  // their display names, for the cycle message
  std::vector<std::string> files_;
};

// Reads the merged tree into `p`, validates it and turns the diagnostics into the result.
// `caller_diags` is the caller's collector (null when it passed none: the Error then carries
// the formatted problems).
Result<Profile> Finish(Profile p, const std::optional<YamlNode>& tree, Diagnostics* diags,
                       const Diagnostics* caller_diags) {
  if (tree) {
    p.document = CanonicalJson(*tree);
    // Every key as its section declares it (language.h), then every cross-check: they run even
    // after errors, so one run reports every problem; values that could not be read keep their
    // defaults, which are consistent.
    const Section<Profile>& top = TopLevel();
    LoadContext ctx(&p, diags);
    top.Read(ctx, p, &*tree, "");
    top.CheckAll(CrossCheck(p, diags), p);
  }
  p.system.sysctls.Release();
  diags->Sort();
  int errors = diags->ErrorCount();
  std::string formatted = caller_diags == nullptr ? diags->FormatText() : "";
  if (errors > 0) {
    std::string msg = p.path + ": " + std::to_string(errors) + (errors == 1 ? " error" : " errors");
    if (!formatted.empty()) msg += "\n" + formatted;
    return MakeError(msg);
  }
  return p;
}

// The sysctl names under proc/sys, dotted: a directory's names joined with '.', a '.' inside a
// file or directory name spelled '/' (sysctl(8); kpath::Sysctl turns them back).
void ListSysctls(const SysRoot& root, const std::string& dir, const std::string& prefix, int depth,
                 std::vector<std::string>* out) {
  auto names = root.List(dir);
  if (!names || depth > 8) return;
  for (const std::string& n : *names) {
    std::string part = n;
    std::replace(part.begin(), part.end(), '.', '/');
    const std::string path = dir + "/" + n;
    if (root.IsDir(path)) {
      ListSysctls(root, path, prefix + part + ".", depth + 1, out);
    } else {
      out->push_back(prefix + part);
    }
  }
}

}  // namespace

SysctlNames::SysctlNames(std::vector<std::string> names)
    : listed_(std::make_shared<const std::vector<std::string>>(std::move(names))) {}

SysctlNames::SysctlNames(const SysRoot* root) : root_(root) {}

bool SysctlNames::Has(const std::string& dotted) const {
  if (listed_ != nullptr) return std::find(listed_->begin(), listed_->end(), dotted) != listed_->end();
  if (root_ == nullptr) return true;
  const std::string path = kpath::Sysctl(dotted);
  // A part spelt "//" is ".." on disk: only a plain name below proc/sys is a sysctl, never a
  // file the path climbs out to (a listing never holds such a name either).
  for (size_t at = kpath::kProcSys.size(); at < path.size();) {
    const size_t end = std::min(path.find('/', at + 1), path.size());
    const std::string_view part = std::string_view(path).substr(at + 1, end - at - 1);
    if (part.empty() || part == "." || part == "..") return false;
    at = end;
  }
  return root_->Exists(path) && !root_->IsDir(path);
}

const std::vector<std::string>& SysctlNames::All() const {
  if (listed_ == nullptr) {
    auto names = std::make_shared<std::vector<std::string>>();
    if (root_ != nullptr) ListSysctls(*root_, kpath::kProcSys, "", 0, names.get());
    listed_ = std::move(names);
  }
  return *listed_;
}

std::vector<long long> ListHugepageSizes(const SysRoot& root, const std::string& dir) {
  std::vector<long long> sizes;
  auto names = root.List(dir);
  if (!names) return sizes;
  // Documentation/admin-guide/mm/hugetlbpage.rst: one directory "hugepages-<size>kB" per size.
  for (const std::string& n : *names) {
    const std::string_view v(n);
    if (v.size() < 13 || v.substr(0, 10) != "hugepages-" || v.substr(v.size() - 2) != "kB") continue;
    if (auto kb = ParseInt(v.substr(10, v.size() - 12)); kb && *kb > 0) sizes.push_back(*kb);
  }
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

Result<SystemCpus> ReadSystemCpus(const SysRoot& root) {
  SystemCpus s;
  auto read = [&](const std::string& path) -> Result<CpuSet> {
    auto text = root.ReadTrimmed(path);
    if (!text) return text.error();
    auto set = CpuSet::ParseList(*text);
    if (!set) return Wrap(root.Dir() + " " + path + ": ", set.error());
    return *set;
  };
  auto online = read(kpath::kCpuOnline);
  auto possible = read(kpath::kCpuPossible);
  if (!possible) possible = read(kpath::kCpuPresent);
  if (!online && !possible) return Wrap("cannot read the CPUs of the system under " + root.Dir() + ": ", online.error());
  s.online = online ? *online : *possible;
  s.possible = possible ? possible->Union(s.online) : s.online;
  if (s.online.Empty()) return MakeError("the system under " + root.Dir() + " reports no online CPU");
  if (root.IsDir(kpath::kProcSys)) s.sysctls = SysctlNames(&root);
  if (root.IsDir(kpath::kHugepagesDir)) {
    s.hugepage_sizes_kb = ListHugepageSizes(root, kpath::kHugepagesDir);
    s.numa_nodes.emplace();
    if (auto names = root.List(kpath::kNodeDir)) {
      for (const std::string& n : *names) {
        auto id = n.compare(0, 4, "node") == 0 ? ParseInt(std::string_view(n).substr(4)) : std::nullopt;
        if (id && *id >= 0 && *id < 1 << 20 && root.IsDir(kpath::kNodeDir + "/" + n)) s.numa_nodes->push_back(int(*id));
      }
      std::sort(s.numa_nodes->begin(), s.numa_nodes->end());
    }
  }
  return s;
}

Result<Profile> LoadProfile(const std::string& path, const SystemCpus& cpus, Diagnostics* diags) {
  Diagnostics local;
  Diagnostics* d = diags != nullptr ? diags : &local;
  IncludeLoader loader(d);
  auto tree = loader.LoadFile(path, SourceMark{});
  Profile p;
  p.path = path;
  p.files = loader.files();
  p.system = cpus;
  return Finish(std::move(p), tree, d, diags);
}

Result<Profile> LoadProfile(const std::string& path, const SysRoot& root, Diagnostics* diags) {
  auto cpus = ReadSystemCpus(root);
  if (!cpus) return cpus.error();
  return LoadProfile(path, *cpus, diags);
}

Result<Profile> LoadProfileText(const std::string& text, const std::string& name, const std::string& dir,
                                const SystemCpus& cpus, Diagnostics* diags) {
  Diagnostics local;
  Diagnostics* d = diags != nullptr ? diags : &local;
  IncludeLoader loader(d);
  auto tree = loader.LoadText(text, name, dir);
  Profile p;
  p.path = name;
  p.files = loader.files();
  p.system = cpus;
  return Finish(std::move(p), tree, d, diags);
}

const std::string& DefaultProfileText() {
  static const std::string kText = kDefaultProfileYaml;
  return kText;
}

Result<Profile> LoadDefaultProfile(const SystemCpus& cpus, Diagnostics* diags) {
  return LoadProfileText(DefaultProfileText(), kDefaultProfileName, ".", cpus, diags);
}

Result<Profile> LoadDefaultProfile(const SysRoot& root, Diagnostics* diags) {
  auto cpus = ReadSystemCpus(root);
  if (!cpus) return cpus.error();
  return LoadDefaultProfile(*cpus, diags);
}

bool LooksLikeProfile(const std::string& text) {
  // JSON is YAML too; a JSON object here is a verdict gone wrong, whatever keys it has.
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || text[first] == '{') return false;
  Diagnostics ignored;
  bool parsed = false;
  const YamlNode doc = ParseYaml(text, "", &ignored, &parsed);
  if (!parsed || !doc.IsMap() || doc.Find("version") == nullptr) return false;
  for (const std::string& key : TopLevel().Names()) {
    if (key != "version" && doc.Find(key) != nullptr) return true;
  }
  return false;
}

}  // namespace rtagent::profile

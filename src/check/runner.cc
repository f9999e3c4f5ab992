#include "check/runner.h"

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "base/file_trust.h"
#include "base/kernel_paths.h"
#include "base/result.h"
#include "inspect/system_state.h"
#include "profile/builtin_suites.h"
#include "profile/diagnostics.h"
#include "profile/reader.h"
#include "profile/yaml_tree.h"

namespace rtagent::check {

namespace fs = std::filesystem;

namespace {

const profile::BuiltinSuite* Builtin(const std::string& name) {
  for (const profile::BuiltinSuite& s : profile::BuiltinSuites()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::vector<std::string> CheckNames() {
  std::vector<std::string> names;
  for (const auto& c : AllChecks()) names.push_back(c->Name());
  return names;
}

// windows.<check>: a window for each check that lets a suite set it.
void ReadWindows(profile::FieldReader& r, const profile::YamlNode& w, Suite* s) {
  std::vector<const CheckInfo*> settable;
  std::vector<std::string> keys;
  const auto all = AllChecks();
  for (const auto& c : all) {
    if (c->Info().window && c->Info().window->suite_min) {
      settable.push_back(&c->Info());
      keys.push_back(c->Name());
    }
  }
  if (!r.MapWithKeys(w, keys, "windows", "window")) return;
  for (const CheckInfo* info : settable) {
    if (const profile::YamlNode* v = w.Find(info->name)) {
      if (auto d = r.DurationValue(*v, "windows." + info->name, *info->window->suite_min)) s->windows[info->name] = *d;
    }
  }
}

// extends: NAME, a built-in suite whose checks and windows this one starts from. Only a
// built-in that extends none, so a chain is one link long and cannot loop.
void ReadExtends(profile::FieldReader& r, profile::Diagnostics& diags, const profile::YamlNode& v, Suite* s) {
  auto name = r.String(v, "extends");
  if (!name) return;
  const profile::BuiltinSuite* base = Builtin(*name);
  if (base == nullptr) {
    const auto names = profile::BuiltinSuiteNames();
    std::string near = profile::NearestWord(*name, names);
    diags.Error(v.mark, "'extends' names \"" + *name + "\", which is not a built-in suite",
                (near.empty() ? std::string() : "did you mean \"" + near + "\"? ") + "the built-in suites are " +
                    profile::JoinChoices(names));
    return;
  }
  auto parsed = ParseSuite(base->yaml, "checks/" + *name + ".yaml");
  if (!parsed || !parsed->extends.empty()) {
    diags.Error(v.mark, "the built-in suite \"" + *name + "\" cannot be extended",
                "extend a built-in suite that lists its checks itself");
    return;
  }
  s->extends = *name;
  s->checks = parsed->checks;
  s->windows = parsed->windows;
}

}  // namespace

Result<Suite> ParseSuite(const std::string& text, const std::string& file) {
  using profile::YamlNode;
  profile::Diagnostics diags;
  bool parsed = false;
  YamlNode doc = profile::ParseYaml(text, file, &diags, &parsed);
  Suite s;
  s.source = file;
  profile::SystemCpus no_cpus;
  profile::FieldReader r(&diags, &no_cpus);
  if (parsed && doc.IsNull()) {
    diags.Error({file, 1, 1}, "the suite file is empty", "write at least `checks: [kernel, cmdline]`");
  } else if (parsed && r.MapWithKeys(doc, {"name", "description", "extends", "checks", "windows"}, "suite", "key")) {
    if (const YamlNode* v = doc.Find("name")) {
      if (auto n = r.String(*v, "name")) s.name = *n;
    }
    if (const YamlNode* v = doc.Find("description")) {
      if (auto d = r.String(*v, "description")) s.description = *d;
    }
    const YamlNode* checks = doc.Find("checks");
    const YamlNode* extends = doc.Find("extends");
    if (extends != nullptr && checks != nullptr) {
      diags.Error(checks->mark, "the suite has both 'extends' and 'checks'",
                  "keep 'extends' to run the checks of the suite it names, or 'checks' to list them");
    } else if (extends != nullptr) {
      ReadExtends(r, diags, *extends, &s);
    } else if (checks == nullptr) {
      diags.Error(doc.mark, "the suite names no checks", "add `checks: [conformance, kernel, cmdline, clock, lint]`");
    } else if (auto names = r.StringList(*checks, "checks", false)) {
      const auto known = CheckNames();
      for (size_t i = 0; i < names->size(); ++i) {
        const std::string& n = (*names)[i];
        const profile::SourceMark& at = i < checks->items.size() ? checks->items[i].mark : checks->mark;
        if (std::find(known.begin(), known.end(), n) == known.end()) {
          std::string near = profile::NearestWord(n, known);
          diags.Error(at, "unknown check \"" + n + "\"",
                      (near.empty() ? std::string() : "did you mean \"" + near + "\"? ") + "the checks are " +
                          profile::JoinChoices(known));
        } else if (std::find(s.checks.begin(), s.checks.end(), n) != s.checks.end()) {
          diags.Error(at, "check \"" + n + "\" is listed twice", "name each check once, in the order it runs");
        } else {
          s.checks.push_back(n);
        }
      }
      if (names->empty()) diags.Error(checks->mark, "the suite names no checks", "list at least one check");
    }
    if (const YamlNode* w = doc.Find("windows")) ReadWindows(r, *w, &s);
  }
  if (diags.HasErrors()) {
    diags.Sort();
    std::string msg = diags.FormatText(false);
    while (!msg.empty() && msg.back() == '\n') msg.pop_back();
    return MakeError(msg);
  }
  if (s.name.empty()) s.name = fs::path(file).stem().string();
  return s;
}

Result<Suite> LoadSuite(const std::string& name_or_path) {
  if (const profile::BuiltinSuite* builtin = Builtin(name_or_path)) {
    auto s = ParseSuite(builtin->yaml, "checks/" + name_or_path + ".yaml");
    if (s) s->source = "checks/" + name_or_path + ".yaml (built-in)";
    return s;
  }
  if (!profile::IsSuiteFile(name_or_path)) {
    return MakeError("unknown suite \"" + name_or_path + "\": " + profile::UnknownSuiteHint(name_or_path));
  }
  // As root, a suite file another user can change is refused, as a profile is (base/file_trust.h).
  if (auto bad = FindUntrusted(name_or_path, ProcessFileTrust())) {
    return Error{"refusing suite file " + name_or_path + " as root: " + bad->message + " (fix: " + bad->hint + ")",
                 EACCES};
  }
  std::ifstream in(name_or_path, std::ios::binary);
  if (!in) return MakeError("cannot read suite file " + name_or_path, errno);
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseSuite(ss.str(), name_or_path);
}

std::vector<std::string> NeedsRoot(const Suite& suite, const profile::Profile& profile) {
  std::vector<std::string> out;
  for (const auto& name : suite.checks) {
    auto c = FindCheck(name);
    if (c && c->Info().needs_root && !c->Info().skips_without_root && !c->DisabledByProfile(profile)) {
      out.push_back(name);
    }
  }
  return out;
}

Status SuiteReport::Overall() const {
  Status s = Status::kSkip;
  for (const auto& r : results) s = Worse(s, r.status);
  return s;
}

int SuiteReport::Count(Status s) const {
  int n = 0;
  for (const auto& r : results) n += r.status == s;
  return n;
}

namespace {
bool SleepUnlessStopped(Duration d, const std::atomic<bool>* stop) {
  auto end = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < end) {
    if (stop && stop->load()) return false;
    auto left = end - std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(left, std::chrono::milliseconds(100)));
  }
  return !(stop && stop->load());
}
}  // namespace

SuiteReport RunSuite(const profile::Profile& profile, SysRoot& root, const Suite& suite, const RunOptions& options) {
  SuiteReport report;
  report.suite = suite.name;
  report.suite_source = suite.source;
  report.profile = profile.path;
  report.root = root.Dir();
  if (auto h = root.ReadTrimmed(kpath::kHostname); h && !h->empty()) report.hostname = *h;
  if (auto r = root.ReadTrimmed(kpath::kOsRelease); r && !r->empty()) report.kernel_release = *r;
  // The task list is kept: the conformance plan (ranks, partitions) and the ranks check read
  // the same threads, and walk proc/ once between them.
  SystemState state = CollectSystemState(root, {}, nullptr, /*keep_tasks=*/true);
  CheckEnv env{profile, root, state, suite, options.wait, options.stop, root.IsLive()};
  if (!env.wait) {
    const std::atomic<bool>* stop = options.stop;
    env.wait = [stop](Duration d) { return SleepUnlessStopped(d, stop); };
  }
  for (const std::string& name : suite.checks) {
    if (options.stop && options.stop->load()) {
      report.interrupted = true;
      break;
    }
    auto check = FindCheck(name);
    if (!check) continue;
    if (check->DisabledByProfile(profile)) {
      CheckResult off;
      off.check = off.id = name;
      off.status = Status::kSkip;
      off.summary = "turned off by the profile (checks." + name + ".enabled: false)";
      report.results.push_back(std::move(off));
      continue;
    }
    auto results = check->Run(env);
    if (options.on_check) options.on_check(name, results);
    report.results.insert(report.results.end(), results.begin(), results.end());
  }
  if (options.stop && options.stop->load()) report.interrupted = true;
  return report;
}

}  // namespace rtagent::check

#include "tune/sysctls_tuner.h"

#include <algorithm>
#include <cerrno>
#include <climits>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"

namespace rtagent {

namespace {

using profile::CrossCheck;
using profile::LoadContext;
using profile::YamlNode;

constexpr const char* kMeaning = "any sysctl the target has, by its dotted or slashed name";

// The existing sysctl nearest to `name`: the hint for a key the kernel lacks. The nearest by
// edit distance among the names under the same top directory (vm., kernel., net.) first, so a
// misspelt vm key is not answered with a kernel one of the same length.
std::string NearestSysctl(const std::string& name, const std::vector<std::string>& have) {
  const std::string top = name.substr(0, name.find('.') + 1);
  std::string best;
  int best_d = INT_MAX;
  for (int pass = 0; pass < 2 && best.empty(); ++pass) {
    for (const std::string& h : have) {
      if (pass == 0 && h.compare(0, top.size(), top) != 0) continue;
      int d = profile::EditDistance(name, h);
      if (d < best_d) best_d = d, best = h;
    }
  }
  return best;
}

// The section is a mapping of names the language cannot list, so it is a block of its own:
// every key is read here, and checked against the target's sysctls when the loader knows them.
class SysctlsBlock : public profile::BlockBase {
 public:
  SysctlsBlock() : keys_("sysctls", {}) {}
  const profile::SectionInfo& Keys() const override { return keys_; }
  profile::KeyDoc Doc() const override { return {"sysctls", "mapping of sysctl to value", "none", kMeaning}; }

  void Load(LoadContext& c, const YamlNode* v, const std::string& what) const override {
    SysctlsConfig cfg;
    if (v != nullptr && c.reader().AnyMap(*v, what)) {
      for (size_t i = 0; i < v->keys.size(); ++i) {
        // null resets: an including file drops an included sysctl this way
        if (!v->items[i].IsNull()) Read(c, v->keys[i], v->key_marks[i], v->items[i], what, cfg);
      }
    }
    c.profile().blocks[keys_.path()] = std::move(cfg);
  }

  void CheckAll(const CrossCheck& cc) const override {
    const profile::Profile& p = cc.profile();
    const SysctlsConfig& cfg = SysctlsOf(p);
    for (const Sysctl& s : cfg.sysctls) Conflicts(cc, s);
    const Sysctl* runtime = ProfileSysctl(p, "kernel.sched_rt_runtime_us");
    const Sysctl* period = ProfileSysctl(p, "kernel.sched_rt_period_us");
    auto here = [&](const Sysctl* s) {
      return s != nullptr && std::any_of(cfg.sysctls.begin(), cfg.sysctls.end(), [&](const Sysctl& o) { return &o == s; });
    };
    // memory.sysctl judges the pair when both are its own; here when either is this section's.
    if (runtime != nullptr && (here(runtime) || here(period))) JudgeRtThrottling(cc, *runtime, period);
  }

 private:
  static void Read(LoadContext& c, const std::string& key, const profile::SourceMark& mark, const YamlNode& value,
                   const std::string& what, SysctlsConfig& cfg) {
    const std::string name = DottedSysctl(key);
    const std::string where = what + "." + key;
    // A part spelt "/" or "//" is "." or ".." on disk: a path out of proc/sys, never a sysctl.
    const std::string padded = "." + name + ".";
    if (name.empty() || name.front() == '.' || name.back() == '.' || name.find("..") != std::string::npos ||
        padded.find("./.") != std::string::npos || padded.find(".//.") != std::string::npos) {
      c.diags().Error(mark, "'" + where + "' is not a sysctl name", "write it as sysctl(8) does: vm.stat_interval");
      return;
    }
    for (const Sysctl& s : cfg.sysctls) {
      if (s.name == name) {
        c.diags().Error(mark, "'" + where + "' names " + name + ", set already at " + s.mark.ToString(),
                        "set each sysctl once (the dotted and slashed forms name the same file)");
        return;
      }
    }
    const profile::SysctlNames& have = c.profile().system.sysctls;
    if (!have.Has(name)) {
      const std::string near = NearestSysctl(name, have.All());
      c.diags().Error(mark, "'" + where + "': the target has no sysctl " + name + " (no " + kpath::Sysctl(name) + ")",
                      near.empty() ? "this kernel has no sysctls at all under the root"
                                   : "the nearest it has is " + near + "; `sysctl -a` lists them");
      return;
    }
    if (!value.IsScalar() || value.scalar.empty()) {
      c.diags().Error(value.mark, "'" + where + "' wants a value, got " + value.Describe(),
                      "write the value as the kernel prints it; quote one of several words: \"4096 131072 6291456\"");
      return;
    }
    cfg.sysctls.push_back(Sysctl{name, mark, value.scalar});
  }

  // A sysctl another section sets too: refused whatever the values, so one file has one owner.
  static void Conflicts(const CrossCheck& cc, const Sysctl& s) {
    const profile::Profile& p = cc.profile();
    for (const Sysctl& m : MemoryOf(p).sysctls) {
      if (m.name == s.name) {
        cc.diags().Error(s.mark, "sysctls." + s.name + " is set in memory.sysctl too (" + m.mark.ToString() + ")",
                         "set it in one place: memory.sysctl checks its range, sysctls takes any key");
      }
    }
    const auto& tm = p.cores.runtime.timer_migration;
    if (s.name == "kernel.timer_migration" && tm->has_value()) {
      cc.diags().Error(s.mark, "sysctls.kernel.timer_migration is set by cores.runtime.timer_migration too (" +
                                   tm.mark.ToString() + ")",
                       "set it in one place: cores.runtime.timer_migration");
    }
  }

  profile::Section<SysctlsConfig> keys_;
};

}  // namespace

std::string DottedSysctl(const std::string& key) {
  size_t first = key.find_first_of("./");
  if (first == std::string::npos || key[first] == '.') return key;
  std::string out = key;
  for (char& ch : out) ch = ch == '/' ? '.' : ch == '.' ? '/' : ch;
  return out;
}

const profile::BlockBase& SysctlsSection() {
  static const SysctlsBlock kBlock;
  return kBlock;
}

const SysctlsConfig& SysctlsOf(const profile::Profile& p) {
  auto it = p.blocks.find(SysctlsSection().path());
  const SysctlsConfig* s = it == p.blocks.end() ? nullptr : std::any_cast<SysctlsConfig>(&it->second);
  if (s == nullptr) profile::MissingBlock(SysctlsSection().path());
  return *s;
}

const Sysctl* ProfileSysctl(const profile::Profile& p, const std::string& dotted) {
  for (const auto* list : {&MemoryOf(p).sysctls, &SysctlsOf(p).sysctls}) {
    for (const Sysctl& s : *list) {
      if (s.name == dotted) return &s;
    }
  }
  return nullptr;
}

Result<SectionPlan> SysctlsTuner::Plan(const PlanContext& ctx) const {
  SectionPlan plan;
  plan.section = Section();
  for (const Sysctl& s : SysctlsOf(ctx.profile).sysctls) {
    const std::string path = kpath::Sysctl(s.name);
    auto now = ctx.root.ReadTrimmed(path);
    if (!now) {
      // Validated at load against the target; reached when the profile was loaded without it.
      plan.findings.push_back({Finding::Level::kError, s.name + " cannot be read: " + now.error().message, s.mark,
                               "the sysctl does not exist on this kernel"});
      continue;
    }
    plan.items.push_back(
        SysctlChange(Section(), s.name, path, *now, s.value, "sysctls: " + s.name + " (" + s.mark.ToString() + ")"));
  }
  return plan;
}

}  // namespace rtagent

#include "profile/loader.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "base/kernel_paths.h"
#include "profile/default_profile_text.h"
#include "profile/reader.h"
#include "profile/schema.h"
#include "profile/validate.h"
#include "profile/yaml_tree.h"

namespace rtagent::profile {
namespace {

namespace fs = std::filesystem;

// The words hwlat_detector/mode takes (Documentation/trace/hwlat_detector.rst; the file and
// all three modes came with Linux 5.14, kernel/trace/trace_hwlat.c thread_mode_str).
const std::vector<std::string> kHwlatModeNames = {"none", "round-robin", "per-cpu"};

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

// ------------------------------------------------------------------------------- sections

// Reads the merged tree into a Profile. Each Read* reads one section; values it cannot use
// are reported and left at their defaults so every problem is found in one run.
class ProfileBuilder {
 public:
  ProfileBuilder(Profile* p, Diagnostics* diags) : p_(p), r_(diags, &p->system) {}

  void Build(const YamlNode& top) {
    r_.Map(top, "", "");
    if (const YamlNode* v = Field(top, "version")) {
      if (!v->IsScalar() || v->scalar != "1") {
        r_.diags()->Error(v->mark, "this rtagent reads profile version 1, the profile says " + v->Describe(),
                          "write 'version: 1', or use the rtagent release that matches the profile");
      }
    }
    if (const YamlNode* v = Field(top, "name")) {
      if (auto s = r_.String(*v, "name")) Assign(&p_->name, *s, v->mark);
    }
    if (const YamlNode* v = Field(top, "description")) {
      if (auto s = r_.String(*v, "description")) Assign(&p_->description, *s, v->mark);
    }
    ReadCores(Field(top, "cores"));
    ReadIrqs(Field(top, "irqs"));
    ReadRanks(Field(top, "ranks"));
    ReadPartitions(Field(top, "partitions"));
    ReadPower(Field(top, "power"));
    ReadMemory(Field(top, "memory"));
    ReadKernel(Field(top, "kernel"));
    ReadChecks(Field(top, "checks"));
    ReadAcceptance(Field(top, "acceptance"));
    ReadService(Field(top, "service"));
  }

 private:
  // The value of `key` in a mapping; null values count as absent (null resets an included value).
  static const YamlNode* Field(const YamlNode* map, std::string_view key) {
    if (map == nullptr) return nullptr;
    const YamlNode* v = map->Find(key);
    return (v == nullptr || v->IsNull()) ? nullptr : v;
  }
  static const YamlNode* Field(const YamlNode& map, std::string_view key) { return Field(&map, key); }

  // A section mapping checked against the schema, or nullptr when absent or not a mapping.
  const YamlNode* Section(const YamlNode* node, std::string_view schema_path, const std::string& what) {
    if (node == nullptr) return nullptr;
    return r_.Map(*node, schema_path, what) ? node : nullptr;
  }

  static CpuSpec Keyword(CpuKeyword k, const std::string& text, const CpuSet& cpus) {
    CpuSpec s;
    s.keyword = k;
    s.text = text;
    s.cpus = cpus;
    return s;
  }

  const CpuSet& Housekeeping() const { return p_->cores.housekeeping->cpus; }
  const CpuSet& Isolated() const { return p_->cores.isolated->cpus; }
  // The CPUs a per-CPU setting applies to by default: the isolated ones, all when none are.
  CpuSpec IsolatedOrAll() const {
    if (Isolated().Empty()) return Keyword(CpuKeyword::kList, "all", p_->system.online);
    return Keyword(CpuKeyword::kIsolated, "isolated", Isolated());
  }

  void ReadCpus(Marked<CpuSpec>* field, const YamlNode* node, const std::string& what, CpuKeywords kw = {}) {
    if (node == nullptr) return;
    if (auto c = r_.Cpus(*node, what, kw)) Assign(field, *c, node->mark);
  }
  void ReadDuration(Marked<Duration>* field, const YamlNode* node, const std::string& what, Duration min) {
    if (node == nullptr) return;
    if (auto d = r_.DurationValue(*node, what, min)) Assign(field, *d, node->mark);
  }
  template <typename T>
  void ReadInt(Marked<T>* field, const YamlNode* node, const std::string& what, long long min, long long max) {
    if (node == nullptr) return;
    if (auto v = r_.Int(*node, what, min, max)) Assign(field, static_cast<T>(*v), node->mark);
  }
  void ReadOptInt(Marked<std::optional<int>>* field, const YamlNode* node, const std::string& what, long long min,
                  long long max) {
    if (node == nullptr) return;
    if (auto v = r_.Int(*node, what, min, max)) Assign(field, std::optional<int>(static_cast<int>(*v)), node->mark);
  }
  void ReadBool(Marked<bool>* field, const YamlNode* node, const std::string& what) {
    if (node == nullptr) return;
    if (auto v = r_.Bool(*node, what)) Assign(field, *v, node->mark);
  }
  template <typename E>
  void ReadChoice(Marked<E>* field, const YamlNode* node, const std::string& what,
                  const std::vector<std::string>& names) {
    if (node == nullptr) return;
    if (auto i = r_.Choice(*node, what, names)) Assign(field, static_cast<E>(*i), node->mark);
  }
  void ReadOptRegex(Marked<std::optional<Regex>>* field, const YamlNode* node, const std::string& what) {
    if (node == nullptr) return;
    if (auto re = r_.RegexValue(*node, what)) Assign(field, std::optional<Regex>(*re), node->mark);
  }
  std::vector<Regex> ReadRegexList(const YamlNode& node, const std::string& what) {
    std::vector<Regex> out;
    if (node.IsScalar()) {
      if (auto re = r_.RegexValue(node, what)) out.push_back(*re);
    } else if (node.IsSequence()) {
      for (const YamlNode& item : node.items) {
        if (auto re = r_.RegexValue(item, what + "[]")) out.push_back(*re);
      }
    } else {
      r_.WrongType(node, what, "a list of regular expressions", "write [\"name1\", \"name2\"]");
    }
    return out;
  }
  // A boot argument that is on (`true`, with the derived CPUs), off, or a CPU list.
  void ReadBootCpuArg(Marked<BootCpuArg>* field, const YamlNode* node, const std::string& what) {
    if (node == nullptr) return;
    if (node->IsScalar() && !node->quoted) {
      static const std::vector<std::string> kWords = {"true", "false", "yes", "no", "on", "off"};
      std::string l = node->scalar;
      std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (std::find(kWords.begin(), kWords.end(), l) != kWords.end()) {
        if (auto b = r_.Bool(*node, what)) {
          BootCpuArg a = field->value;
          a.enabled = *b;
          Assign(field, a, node->mark);
        }
        return;
      }
    }
    if (auto c = r_.Cpus(*node, what, CpuKeywords{})) Assign(field, BootCpuArg{true, *c}, node->mark);
  }

  // ---- cores (Chapter 6)
  static CpuSet AutoHousekeeping(const CpuSet& online) {
    // One housekeeping CPU per 8 online CPUs, at least one: the lowest-numbered ones (CPU 0
    // is the boot CPU, which keeps the tick anyway). A 1-CPU system keeps its only CPU.
    std::vector<int> cpus = online.Cpus();
    if (cpus.size() < 2) return online;
    size_t n = std::max<size_t>(1, (cpus.size() + 7) / 8);
    CpuSet hk;
    for (size_t i = 0; i < n; ++i) hk.Add(cpus[i]);
    return hk;
  }

  void ReadCores(const YamlNode* node) {
    CoresConfig& c = p_->cores;
    const YamlNode* cores = Section(node, "cores", "cores");
    CpuKeywords core_kw{true, false, false, false};
    ReadCpus(&c.housekeeping, Field(cores, "housekeeping"), "cores.housekeeping", core_kw);
    ReadCpus(&c.isolated, Field(cores, "isolated"), "cores.isolated", core_kw);
    const CpuSet& online = p_->system.online;
    bool hk_given = c.housekeeping.IsSet() && c.housekeeping->keyword != CpuKeyword::kAuto;
    bool iso_given = c.isolated.IsSet() && c.isolated->keyword != CpuKeyword::kAuto;
    bool hk_auto = c.housekeeping.IsSet() && c.housekeeping->keyword == CpuKeyword::kAuto;
    bool iso_auto = c.isolated.IsSet() && c.isolated->keyword == CpuKeyword::kAuto;
    if (!c.housekeeping.IsSet() && !c.isolated.IsSet()) {
      c.housekeeping.value = Keyword(CpuKeyword::kList, "all", online);
    } else if (!hk_given) {
      // auto, or absent next to an explicit isolated set: the CPUs not isolated.
      CpuSet hk = iso_given ? online.Minus(Isolated()) : AutoHousekeeping(online);
      c.housekeeping.value.cpus = hk;
      if (!hk_auto) c.housekeeping.value = Keyword(CpuKeyword::kList, hk.ToList(), hk);
    }
    if (iso_auto) c.isolated.value.cpus = online.Minus(Housekeeping());
    r_.SetCoreSets(Housekeeping(), Isolated());

    // Boot arguments: defaults are the Field Guide's plan (Chapter 6), for the isolated CPUs.
    BootConfig& b = c.boot;
    b.isolcpus.value = std::vector<IsolcpusFlag>{IsolcpusFlag::kNohz, IsolcpusFlag::kDomain, IsolcpusFlag::kManagedIrq};
    b.nohz_full.value = BootCpuArg{true, Keyword(CpuKeyword::kIsolated, "isolated", Isolated())};
    b.rcu_nocbs.value = b.nohz_full.value;
    b.rcu_nocb_poll.value = true;
    b.irqaffinity.value = BootCpuArg{true, Keyword(CpuKeyword::kHousekeeping, "housekeeping", Housekeeping())};
    b.kthread_cpus.value = b.irqaffinity.value;
    b.skew_tick.value = true;
    const YamlNode* boot = Section(Field(cores, "boot"), "cores.boot", "cores.boot");
    if (const YamlNode* v = Field(boot, "isolcpus")) ReadIsolcpus(v);
    ReadBootCpuArg(&b.nohz_full, Field(boot, "nohz_full"), "cores.boot.nohz_full");
    ReadBootCpuArg(&b.rcu_nocbs, Field(boot, "rcu_nocbs"), "cores.boot.rcu_nocbs");
    ReadBool(&b.rcu_nocb_poll, Field(boot, "rcu_nocb_poll"), "cores.boot.rcu_nocb_poll");
    ReadBootCpuArg(&b.irqaffinity, Field(boot, "irqaffinity"), "cores.boot.irqaffinity");
    ReadBootCpuArg(&b.kthread_cpus, Field(boot, "kthread_cpus"), "cores.boot.kthread_cpus");
    ReadBool(&b.skew_tick, Field(boot, "skew_tick"), "cores.boot.skew_tick");
    // Derived housekeeping arguments mean nothing when no CPU is isolated.
    for (Marked<BootCpuArg>* a : {&b.irqaffinity, &b.kthread_cpus}) {
      if (Isolated().Empty() && a->value.cpus.keyword == CpuKeyword::kHousekeeping) a->value.enabled = false;
    }
    if (const YamlNode* v = Field(boot, "extra")) ReadExtra(*v);

    // Boot loader: a name, or a mapping with the file to edit.
    BootloaderConfig& bl = c.bootloader;
    bl.type.value = BootloaderType::kPrint;
    if (const YamlNode* v = Field(cores, "bootloader")) {
      if (v->IsScalar()) {
        ReadChoice(&bl.type, v, "cores.bootloader", kBootloaderNames);
      } else if (r_.Map(*v, "cores.bootloader", "cores.bootloader")) {
        ReadChoice(&bl.type, Field(v, "type"), "cores.bootloader.type", kBootloaderNames);
        if (const YamlNode* pth = Field(v, "path")) {
          if (auto s = r_.String(*pth, "cores.bootloader.path")) Assign(&bl.path, *s, pth->mark);
        }
        if (const YamlNode* e = Field(v, "entry")) {
          if (auto s = r_.String(*e, "cores.bootloader.entry")) Assign(&bl.entry, *s, e->mark);
        }
      }
    }

    // Runtime parts (Chapter 6): applied by apply/hold, no reboot.
    RuntimeConfig& rt = c.runtime;
    rt.workqueue_cpumask.value = Keyword(CpuKeyword::kHousekeeping, "housekeeping", Housekeeping());
    rt.default_smp_affinity.value = rt.workqueue_cpumask.value;
    const YamlNode* runtime = Section(Field(cores, "runtime"), "cores.runtime", "cores.runtime");
    CpuKeywords keep_kw{false, true, true, true};
    ReadCpus(&rt.workqueue_cpumask, Field(runtime, "workqueue_cpumask"), "cores.runtime.workqueue_cpumask", keep_kw);
    ReadCpus(&rt.default_smp_affinity, Field(runtime, "default_smp_affinity"), "cores.runtime.default_smp_affinity",
             keep_kw);
    if (const YamlNode* v = Field(runtime, "timer_migration")) {
      if (auto t = r_.Bool(*v, "cores.runtime.timer_migration")) Assign(&rt.timer_migration, std::optional<bool>(*t), v->mark);
    }
  }

  void ReadIsolcpus(const YamlNode* v) {
    Marked<std::optional<std::vector<IsolcpusFlag>>>& field = p_->cores.boot.isolcpus;
    if (v->IsScalar()) {
      if (auto b = r_.Bool(*v, "cores.boot.isolcpus")) {
        if (*b) {
          Assign(&field, field.value, v->mark);
        } else {
          Assign(&field, std::optional<std::vector<IsolcpusFlag>>(), v->mark);
        }
      }
      return;
    }
    if (!v->IsSequence()) {
      r_.WrongType(*v, "cores.boot.isolcpus", "a list of flags or false",
                   "write [nohz, domain, managed_irq], or false to leave isolcpus= out");
      return;
    }
    std::vector<IsolcpusFlag> flags;
    bool ok = true;
    for (const YamlNode& item : v->items) {
      auto i = r_.Choice(item, "cores.boot.isolcpus[]", kIsolcpusFlagNames);
      if (!i) {
        ok = false;
        continue;
      }
      auto f = static_cast<IsolcpusFlag>(*i);
      if (std::find(flags.begin(), flags.end(), f) != flags.end()) {
        r_.diags()->Error(item.mark, "isolcpus flag '" + item.scalar + "' is listed twice", "list each flag once");
        ok = false;
        continue;
      }
      flags.push_back(f);
    }
    if (ok) Assign(&field, std::optional<std::vector<IsolcpusFlag>>(flags), v->mark);
  }

  void ReadExtra(const YamlNode& v) {
    auto list = r_.StringList(v, "cores.boot.extra", true);
    if (!list) return;
    // Arguments the profile renders itself must be set through their keys, or the command
    // line would carry two values and the kernel would take the last.
    static const std::vector<std::pair<std::string, std::string>> kOwned = {
        {"isolcpus", "cores.boot.isolcpus"},        {"nohz_full", "cores.boot.nohz_full"},
        {"rcu_nocbs", "cores.boot.rcu_nocbs"},      {"rcu_nocb_poll", "cores.boot.rcu_nocb_poll"},
        {"irqaffinity", "cores.boot.irqaffinity"},  {"kthread_cpus", "cores.boot.kthread_cpus"},
        {"skew_tick", "cores.boot.skew_tick"}};
    bool ok = true;
    std::vector<std::string> seen;
    for (size_t i = 0; i < list->size(); ++i) {
      const std::string& a = (*list)[i];
      const SourceMark& m = v.IsSequence() ? v.items[i].mark : v.mark;
      if (a.empty() || a.find_first_of(" \t\n") != std::string::npos) {
        r_.diags()->Error(m, "cores.boot.extra: \"" + a + "\" is not one kernel argument",
                          "write one argument per list item, without spaces: [\"intel_idle.max_cstate=1\", \"nosoftlockup\"]");
        ok = false;
        continue;
      }
      std::string key = a.substr(0, a.find('='));
      for (const auto& [owned, field] : kOwned) {
        if (key == owned) {
          r_.diags()->Error(m, "cores.boot.extra sets '" + owned + "', which the profile renders from '" + field + "'",
                            "set it with '" + field + "' instead");
          ok = false;
        }
      }
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
        r_.diags()->Error(m, "cores.boot.extra sets '" + key + "' twice", "keep one of them: the kernel takes the last");
        ok = false;
      }
      seen.push_back(key);
    }
    if (ok) Assign(&p_->cores.boot.extra, *list, v.mark);
  }

  // ---- irqs (Chapters 3 and 6)
  void ReadIrqs(const YamlNode* node) {
    IrqsConfig& q = p_->irqs;
    q.default_cpus.value = Keyword(CpuKeyword::kHousekeeping, "housekeeping", Housekeeping());
    // Per-CPU interrupts that still fire on an isolated CPU: the residual tick (LOC, arch_timer;
    // at most HZ a second) and IPIs. Limits per CPU per second.
    auto allow = [](const char* re, std::optional<double> limit) {
      IrqAllowance a;
      a.match.pattern = re;
      a.match.compiled = std::make_shared<const std::regex>(re);
      a.per_second = limit;
      return a;
    };
    q.allowed.value = {allow("LOC", 1000), allow("arch_timer", 1000), allow("RES", 10), allow("CAL", 10),
                       allow("TLB", 10),   allow("IPI[0-9]+", 10)};
    q.allowed_softirqs.value = {allow("TIMER", 1000), allow("HRTIMER", 1000), allow("SCHED", 1000),
                                allow("RCU", 1000)};
    const YamlNode* irqs = Section(node, "irqs", "irqs");
    ReadCpus(&q.default_cpus, Field(irqs, "default"), "irqs.default", CpuKeywords{false, true, true, true});
    if (const YamlNode* rules = Field(irqs, "rules"); rules && r_.AnyMap(*rules, "irqs.rules")) {
      for (size_t i = 0; i < rules->keys.size(); ++i) ReadIrqRule(rules->keys[i], rules->key_marks[i], rules->items[i]);
    }
    ReadAllowances(&q.allowed, Field(irqs, "allowed"), "irqs.allowed");
    ReadAllowances(&q.allowed_softirqs, Field(irqs, "allowed_softirqs"), "irqs.allowed_softirqs");
  }

  void ReadIrqRule(const std::string& name, const SourceMark& mark, const YamlNode& node) {
    std::string what = "irqs.rules." + name;
    if (!r_.Map(node, "irqs.rules.<name>", what)) return;
    IrqRule rule;
    rule.name = name;
    rule.mark = mark;
    ReadOptRegex(&rule.action, Field(node, "action"), what + ".action");
    ReadOptRegex(&rule.chip, Field(node, "chip"), what + ".chip");
    if (const YamlNode* v = Field(node, "irq")) {
      std::vector<const YamlNode*> items;
      if (v->IsSequence()) {
        for (const YamlNode& i : v->items) items.push_back(&i);
      } else {
        items.push_back(v);
      }
      std::vector<int> numbers;
      for (const YamlNode* i : items) {
        if (auto n = r_.Int(*i, what + ".irq", 0, 1 << 20)) numbers.push_back(static_cast<int>(*n));
      }
      Assign(&rule.numbers, numbers, v->mark);
    }
    ReadCpus(&rule.cpus, Field(node, "cpus"), what + ".cpus");
    if (!rule.action.IsSet() && !rule.chip.IsSet() && !rule.numbers.IsSet()) {
      r_.diags()->Error(mark, "IRQ rule '" + name + "' matches nothing", "give it 'action', 'chip' or 'irq' to match");
    }
    if (!Field(node, "cpus")) {
      r_.diags()->Error(mark, "IRQ rule '" + name + "' has no 'cpus'", "say where its IRQs go: 'cpus: housekeeping' or 'cpus: 3'");
    }
    p_->irqs.rules.push_back(std::move(rule));
  }

  void ReadAllowances(Marked<std::vector<IrqAllowance>>* field, const YamlNode* node, const std::string& what) {
    if (node == nullptr || !r_.AnyMap(*node, what)) return;
    std::vector<IrqAllowance> out;
    for (size_t i = 0; i < node->keys.size(); ++i) {
      YamlNode key;
      key.kind = YamlNode::Kind::kScalar;
      key.scalar = node->keys[i];
      key.mark = node->key_marks[i];
      auto re = r_.RegexValue(key, what + " key");
      const YamlNode& v = node->items[i];
      IrqAllowance a;
      a.mark = node->key_marks[i];
      if (v.IsScalar() && v.scalar == "any") {
        a.per_second = std::nullopt;
      } else if (auto n = r_.Number(v, what + "." + node->keys[i], 0, 1e9)) {
        a.per_second = *n;
      } else {
        continue;
      }
      if (!re) continue;
      a.match = *re;
      out.push_back(std::move(a));
    }
    Assign(field, out, node->mark);
  }

  // ---- ranks (Chapters 2 and 4)
  void ReadRanks(const YamlNode* node) {
    const YamlNode* ranks = Section(node, "ranks", "ranks");
    if (const YamlNode* rules = Field(ranks, "rules"); rules && r_.AnyMap(*rules, "ranks.rules")) {
      for (size_t i = 0; i < rules->keys.size(); ++i) ReadRankRule(rules->keys[i], rules->key_marks[i], rules->items[i]);
    }
    if (const YamlNode* order = Field(ranks, "order")) {
      if (auto names = r_.StringList(*order, "ranks.order", false)) {
        Assign(&p_->ranks.order, *names, order->mark);
        for (const YamlNode& item : order->items) p_->ranks.order_marks.push_back(item.mark);
      }
    }
  }

  void ReadRankRule(const std::string& name, const SourceMark& mark, const YamlNode& node) {
    std::string what = "ranks.rules." + name;
    if (!r_.Map(node, "ranks.rules.<name>", what)) return;
    RankRule rule;
    rule.name = name;
    rule.mark = mark;
    ReadOptRegex(&rule.threads, Field(node, "threads"), what + ".threads");
    ReadOptRegex(&rule.process, Field(node, "process"), what + ".process");
    ReadOptRegex(&rule.cmdline, Field(node, "cmdline"), what + ".cmdline");
    if (!Field(node, "threads") && !Field(node, "process") && !Field(node, "cmdline")) {
      r_.diags()->Error(mark, "rank '" + name + "' matches nothing",
                        "give it 'threads' (a thread name regex such as \"irq/[0-9]+-eth0\"), 'process' or 'cmdline'");
    }
    if (const YamlNode* v = Field(node, "policy")) {
      if (auto i = r_.Choice(*v, what + ".policy", kPolicyNames)) {
        Assign(&rule.policy, std::optional<Policy>(static_cast<Policy>(*i)), v->mark);
      }
    }
    ReadInt(&rule.priority, Field(node, "priority"), what + ".priority", 1, 99);
    if (const YamlNode* v = Field(node, "nice")) ReadOptInt(&rule.nice, v, what + ".nice", -20, 19);
    ReadDuration(&rule.runtime, Field(node, "runtime"), what + ".runtime", Duration(1));
    ReadDuration(&rule.deadline, Field(node, "deadline"), what + ".deadline", Duration(1));
    ReadDuration(&rule.period, Field(node, "period"), what + ".period", Duration(1));
    if (const YamlNode* v = Field(node, "cpus")) {
      if (auto c = r_.Cpus(*v, what + ".cpus", CpuKeywords{})) Assign(&rule.cpus, std::optional<CpuSpec>(*c), v->mark);
    }
    CheckPolicyParams(rule, node, what);
    p_->ranks.rules.push_back(std::move(rule));
  }

  // Which parameters go with which policy (sched(7), sched_setattr(2)).
  void CheckPolicyParams(RankRule& rule, const YamlNode& node, const std::string& what) {
    Diagnostics* d = r_.diags();
    std::optional<Policy> pol = *rule.policy;
    bool rt = pol && (*pol == Policy::kFifo || *pol == Policy::kRr);
    bool normal = pol && (*pol == Policy::kOther || *pol == Policy::kBatch);
    bool dl = pol && *pol == Policy::kDeadline;
    std::string pname = pol ? ToString(*pol) : "none";
    const SourceMark& pmark = rule.policy.IsSet() ? rule.policy.mark : rule.mark;
    if (rt && !Field(node, "priority")) {
      d->Error(pmark, "rank '" + rule.name + "' uses policy " + pname + " but has no priority",
               "add 'priority: 1..99' (IRQ threads start at 50; Chapter 4)");
    }
    if (const YamlNode* v = Field(node, "priority"); v && !rt) {
      d->Error(v->mark, "'" + what + ".priority' applies to policies fifo and rr, not " + pname,
               dl ? "a deadline rank takes runtime, deadline and period" : "use 'nice' for other and batch, or policy fifo");
    }
    if (const YamlNode* v = Field(node, "nice"); v && !normal) {
      d->Error(v->mark, "'" + what + ".nice' applies to policies other and batch, not " + pname,
               "remove 'nice', or use 'priority' with fifo and rr");
    }
    for (const char* k : {"runtime", "deadline", "period"}) {
      if (const YamlNode* v = Field(node, k); v && !dl) {
        d->Error(v->mark, "'" + what + "." + k + "' applies to policy deadline, not " + pname,
                 "set 'policy: deadline', or remove runtime/deadline/period");
      }
    }
    if (!dl) return;
    if (!Field(node, "runtime") || !Field(node, "period")) {
      d->Error(pmark, "deadline rank '" + rule.name + "' needs runtime and period",
               "book the budget: 'runtime: 300us', 'period: 1ms' (deadline defaults to the period)");
      return;
    }
    if (!rule.runtime.IsSet() || !rule.period.IsSet()) return;  // already reported
    if (!rule.deadline.IsSet()) rule.deadline.value = *rule.period;
    // Kernel admission (kernel/sched/deadline.c, __checkparam_dl): runtime at least 1024 ns
    // (1 << DL_SCALE) and runtime <= deadline <= period.
    if (*rule.runtime < Duration(1024)) {
      d->Error(rule.runtime.mark, "deadline runtime of rank '" + rule.name + "' is below the kernel's 1024 ns minimum",
               "use a runtime of at least 2us");
    }
    if (*rule.runtime > *rule.deadline) {
      d->Error(rule.runtime.mark,
               "deadline parameters of rank '" + rule.name + "' break runtime <= deadline <= period: runtime " +
                   FormatDurationOf(*rule.runtime) + " > deadline " + FormatDurationOf(*rule.deadline),
               "the kernel refuses such a booking (EINVAL); shorten the runtime or lengthen the deadline");
    }
    if (*rule.deadline > *rule.period) {
      d->Error(rule.deadline.IsSet() ? rule.deadline.mark : rule.period.mark,
               "deadline parameters of rank '" + rule.name + "' break runtime <= deadline <= period: deadline " +
                   FormatDurationOf(*rule.deadline) + " > period " + FormatDurationOf(*rule.period),
               "the kernel refuses such a booking (EINVAL); make the deadline at most the period");
    }
    // kernel.sched_deadline_period_{min,max}_us default to 100 us and ~4.2 s.
    if (*rule.period < std::chrono::microseconds(100) || *rule.period > std::chrono::microseconds(4194304)) {
      d->Warning(rule.period.mark, "deadline period of rank '" + rule.name + "' is outside the kernel's default limits (100us..4.19s)",
                 "the kernel refuses it unless kernel.sched_deadline_period_min_us/max_us are changed");
    }
  }
  static std::string FormatDurationOf(Duration v);

  // ---- partitions (Chapter 6)
  void ReadPartitions(const YamlNode* node) {
    if (node == nullptr || !r_.AnyMap(*node, "partitions")) return;
    static const std::regex kName("[A-Za-z0-9_][A-Za-z0-9_.-]*");
    for (size_t i = 0; i < node->keys.size(); ++i) {
      const std::string& name = node->keys[i];
      std::string what = "partitions." + name;
      if (!std::regex_match(name, kName)) {
        r_.diags()->Error(node->key_marks[i], "partition name '" + name + "' cannot be a cgroup directory name",
                          "use letters, digits, '_', '-' and '.', not starting with '.' or '-'");
        continue;
      }
      const YamlNode& v = node->items[i];
      if (!r_.Map(v, "partitions.<name>", what)) continue;
      Partition part;
      part.name = name;
      part.mark = node->key_marks[i];
      part.type.value = PartitionType::kIsolated;
      ReadCpus(&part.cpus, Field(v, "cpus"), what + ".cpus");
      if (!Field(v, "cpus")) {
        r_.diags()->Error(part.mark, "partition '" + name + "' has no 'cpus'", "give it its CPUs: 'cpus: isolated'");
      }
      ReadChoice(&part.type, Field(v, "type"), what + ".type", kPartitionTypeNames);
      if (const YamlNode* pr = Field(v, "processes")) Assign(&part.processes, ReadRegexList(*pr, what + ".processes"), pr->mark);
      p_->partitions.push_back(std::move(part));
    }
  }

  // ---- power (Chapter 7)
  void ReadPower(const YamlNode* node) {
    PowerConfig& pw = p_->power;
    pw.cpus.value = IsolatedOrAll();
    const YamlNode* power = Section(node, "power", "power");
    ReadOptInt(&pw.cpu_dma_latency_us, Field(power, "cpu_dma_latency_us"), "power.cpu_dma_latency_us", 0, 2000000000);
    ReadCpus(&pw.cpus, Field(power, "cpus"), "power.cpus");
    // S32_MAX is the kernel's "no constraint" value and is refused from user space.
    ReadOptInt(&pw.resume_latency_us, Field(power, "resume_latency_us"), "power.resume_latency_us", 0, INT_MAX - 1);
    ReadOptInt(&pw.max_exit_latency_us, Field(power, "max_exit_latency_us"), "power.max_exit_latency_us", 0, INT_MAX);
    if (const YamlNode* v = Field(power, "governor")) {
      if (auto i = r_.Choice(*v, "power.governor", kGovernorNames)) {
        Assign(&pw.governor, std::optional<std::string>(kGovernorNames[static_cast<size_t>(*i)]), v->mark);
      }
    }
  }

  // ---- memory (Chapter 8) and the sysctls RT guides set
  void ReadMemory(const YamlNode* node) {
    MemoryConfig& m = p_->memory;
    const YamlNode* memory = Section(node, "memory", "memory");
    if (const YamlNode* thp = Section(Field(memory, "thp"), "memory.thp", "memory.thp")) {
      if (const YamlNode* v = Field(thp, "enabled")) {
        if (auto i = r_.Choice(*v, "memory.thp.enabled", kThpEnabledNames))
          Assign(&m.thp_enabled, std::optional<std::string>(kThpEnabledNames[static_cast<size_t>(*i)]), v->mark);
      }
      if (const YamlNode* v = Field(thp, "defrag")) {
        if (auto i = r_.Choice(*v, "memory.thp.defrag", kThpDefragNames))
          Assign(&m.thp_defrag, std::optional<std::string>(kThpDefragNames[static_cast<size_t>(*i)]), v->mark);
      }
    }
    const YamlNode* sysctl = Field(memory, "sysctl");
    if (sysctl == nullptr) return;
    std::vector<std::string> names;
    for (const SysctlSpec& s : AllowedSysctls()) names.push_back(s.name);
    if (!r_.MapWithKeys(*sysctl, names, "memory.sysctl", "sysctl")) return;
    for (size_t i = 0; i < sysctl->keys.size(); ++i) {
      const std::string& name = sysctl->keys[i];
      auto spec = std::find_if(AllowedSysctls().begin(), AllowedSysctls().end(),
                               [&](const SysctlSpec& s) { return s.name == name; });
      if (spec == AllowedSysctls().end()) continue;  // reported as unknown
      const YamlNode& v = sysctl->items[i];
      std::string what = "memory.sysctl." + name;
      Sysctl s{name, sysctl->key_marks[i], ""};
      if (spec->cpu_list) {
        auto c = r_.Cpus(v, what, CpuKeywords{});
        if (!c) continue;
        s.value = c->cpus.ToList();
      } else {
        auto n = r_.Int(v, what, spec->min, spec->max);
        if (!n) continue;
        s.value = std::to_string(*n);
      }
      m.sysctls.push_back(std::move(s));
    }
  }

  // ---- kernel (Chapters 2 and 4)
  void ReadKernel(const YamlNode* node) {
    KernelConfig& k = p_->kernel;
    k.preempt_rt.value = PreemptRtRequirement::kPreferred;
    k.rt_safety_net.value = SafetyNetExpectation::kKeep;
    const YamlNode* kernel = Section(node, "kernel", "kernel");
    ReadChoice(&k.preempt_rt, Field(kernel, "preempt_rt"), "kernel.preempt_rt", kPreemptRtNames);
    ReadChoice(&k.rt_safety_net, Field(kernel, "rt_safety_net"), "kernel.rt_safety_net", kSafetyNetNames);
    if (const YamlNode* v = Field(kernel, "min_version")) {
      auto s = r_.String(*v, "kernel.min_version");
      static const std::regex kVersion("([0-9]+)\\.([0-9]+)(\\.([0-9]+))?");
      std::smatch m;
      if (s && std::regex_match(*s, m, kVersion)) {
        KernelVersion kv{std::stoi(m[1]), std::stoi(m[2]), m[4].matched ? std::stoi(m[4]) : 0};
        Assign(&k.min_version, std::optional<KernelVersion>(kv), v->mark);
      } else if (s) {
        r_.diags()->Error(v->mark, "'kernel.min_version' must be a version like \"6.1\" or \"6.6.30\", got \"" + *s + "\"",
                          "quote it so YAML keeps it as text: min_version: \"6.10\"");
      }
    }
  }

  // ---- checks (issue 4: verify)
  void ReadToggle(CheckToggle* t, const YamlNode* parent, const char* key, std::string_view schema,
                  const YamlNode** map_out) {
    t->enabled.value = true;
    *map_out = nullptr;
    const YamlNode* v = Field(parent, key);
    if (v == nullptr) return;
    std::string what = "checks." + std::string(key);
    if (v->IsScalar()) {  // shorthand: "hwlat: false"
      ReadBool(&t->enabled, v, what);
      return;
    }
    if (!r_.Map(*v, schema, what)) return;
    ReadBool(&t->enabled, Field(v, "enabled"), what + ".enabled");
    *map_out = v;
  }

  // checks.suite: a built-in suite (checks/*.yaml compiled in) or a suite file, relative to
  // the profile that names it. The file's contents are checked when verify loads it.
  void ReadSuite(Marked<std::string>* suite, const YamlNode& v) {
    auto s = r_.String(v, "checks.suite");
    if (!s) return;
    if (std::find(kSuiteNames.begin(), kSuiteNames.end(), *s) != kSuiteNames.end()) {
      Assign(suite, *s, v.mark);
      return;
    }
    const bool path_like = s->find('/') != std::string::npos || s->ends_with(".yaml") || s->ends_with(".yml");
    if (!path_like) {
      std::string near = NearestWord(*s, kSuiteNames);
      r_.diags()->Error(v.mark, "unknown suite \"" + *s + "\" in 'checks.suite'",
                        (near.empty() ? std::string() : "did you mean \"" + near + "\"? ") + "the built-in suites are " +
                            JoinChoices(kSuiteNames) + ", or give a suite file's path (checks/README.md)");
      return;
    }
    fs::path file(*s);
    if (file.is_relative()) file = fs::path(v.mark.file).parent_path() / file;
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) {
      r_.diags()->Error(v.mark, "the suite file '" + *s + "' in 'checks.suite' does not exist (looked for " +
                                    file.lexically_normal().string() + ")",
                        "give the path relative to this profile, or a built-in suite: " + JoinChoices(kSuiteNames));
      return;
    }
    Assign(suite, file.lexically_normal().string(), v.mark);
  }

  void ReadChecks(const YamlNode* node) {
    ChecksConfig& c = p_->checks;
    c.suite.value = "commission";
    c.interrupts_window.value = std::chrono::seconds(10);
    c.hwlat_width.value = std::chrono::milliseconds(500);
    c.hwlat_window.value = std::chrono::seconds(1);
    c.hwlat_duration.value = std::chrono::seconds(30);
    c.hwlat_threshold_us.value = 10;
    c.hwlat_mode.value = "round-robin";
    c.ranks_window.value = std::chrono::seconds(1);
    const YamlNode* checks = Section(node, "checks", "checks");
    if (const YamlNode* v = Field(checks, "suite")) ReadSuite(&c.suite, *v);
    const YamlNode* m = nullptr;
    ReadToggle(&c.kernel, checks, "kernel", "checks.kernel", &m);
    ReadToggle(&c.cmdline, checks, "cmdline", "checks.cmdline", &m);
    ReadToggle(&c.interrupts, checks, "interrupts", "checks.interrupts", &m);
    ReadDuration(&c.interrupts_window, Field(m, "window"), "checks.interrupts.window", std::chrono::milliseconds(100));
    ReadToggle(&c.hwlat, checks, "hwlat", "checks.hwlat", &m);
    ReadDuration(&c.hwlat_width, Field(m, "width"), "checks.hwlat.width", std::chrono::microseconds(1));
    ReadDuration(&c.hwlat_window, Field(m, "window"), "checks.hwlat.window", std::chrono::microseconds(1));
    ReadDuration(&c.hwlat_duration, Field(m, "duration"), "checks.hwlat.duration", std::chrono::seconds(1));
    ReadInt(&c.hwlat_threshold_us, Field(m, "threshold_us"), "checks.hwlat.threshold_us", 1, 1000000);
    if (const YamlNode* v = Field(m, "mode")) {
      if (auto i = r_.Choice(*v, "checks.hwlat.mode", kHwlatModeNames)) {
        Assign(&c.hwlat_mode, kHwlatModeNames[static_cast<size_t>(*i)], v->mark);
      }
    }
    ReadToggle(&c.clock, checks, "clock", "checks.clock", &m);
    ReadToggle(&c.ranks, checks, "ranks", "checks.ranks", &m);
    ReadDuration(&c.ranks_window, Field(m, "window"), "checks.ranks.window", std::chrono::milliseconds(100));
    ReadToggle(&c.lint, checks, "lint", "checks.lint", &m);
    if (const YamlNode* v = Field(m, "ignore")) {
      if (auto l = r_.StringList(*v, "checks.lint.ignore", true)) Assign(&c.lint_ignore, *l, v->mark);
    }
  }

  // ---- acceptance (Chapter 5; issue 5)
  void ReadAcceptance(const YamlNode* node) {
    AcceptanceConfig& a = p_->acceptance;
    a.duration.value = std::chrono::minutes(1);
    a.interval_us.value = 1000;
    a.priority.value = 90;
    a.cpus.value = IsolatedOrAll();
    a.histogram_limit_us.value = 1000;
    a.load_cpus.value = Keyword(CpuKeyword::kHousekeeping, "housekeeping", Housekeeping());
    const YamlNode* acc = Section(node, "acceptance", "acceptance");
    ReadDuration(&a.duration, Field(acc, "duration"), "acceptance.duration", std::chrono::seconds(1));
    ReadInt(&a.interval_us, Field(acc, "interval_us"), "acceptance.interval_us", 10, 10000000);
    ReadInt(&a.priority, Field(acc, "priority"), "acceptance.priority", 1, 99);
    ReadCpus(&a.cpus, Field(acc, "cpus"), "acceptance.cpus");
    ReadInt(&a.histogram_limit_us, Field(acc, "histogram_limit_us"), "acceptance.histogram_limit_us", 1, 10000000);
    ReadOptInt(&a.max_us, Field(acc, "max_us"), "acceptance.max_us", 1, 100000000);
    ReadOptInt(&a.p50_us, Field(acc, "p50_us"), "acceptance.p50_us", 1, 100000000);
    ReadOptInt(&a.p90_us, Field(acc, "p90_us"), "acceptance.p90_us", 1, 100000000);
    ReadOptInt(&a.p99_us, Field(acc, "p99_us"), "acceptance.p99_us", 1, 100000000);
    ReadOptInt(&a.p99_9_us, Field(acc, "p99_9_us"), "acceptance.p99_9_us", 1, 100000000);
    ReadOptInt(&a.p99_99_us, Field(acc, "p99_99_us"), "acceptance.p99_99_us", 1, 100000000);
    ReadInt(&a.min_samples, Field(acc, "min_samples"), "acceptance.min_samples", 0, 1000000000000000LL);
    ReadOptInt(&a.pm_qos_us, Field(acc, "pm_qos_us"), "acceptance.pm_qos_us", 0, 2000000000);
    const YamlNode* loads = Section(Field(acc, "loads"), "acceptance.loads", "acceptance.loads");
    ReadCpus(&a.load_cpus, Field(loads, "cpus"), "acceptance.loads.cpus");
    if (const YamlNode* b = Field(loads, "builtin")) ReadBuiltinLoads(*b);
    if (const YamlNode* e = Field(loads, "external")) ReadExternalLoads(*e);
  }

  void ReadBuiltinLoads(const YamlNode& node) {
    if (!node.IsSequence()) {
      r_.WrongType(node, "acceptance.loads.builtin", "a list", "write [cache, messaging] or a list of {name, cpus, workers}");
      return;
    }
    for (const YamlNode& item : node.items) {
      Load l;
      l.mark = item.mark;
      l.cpus.value = p_->acceptance.load_cpus.value;
      const YamlNode* name = &item;
      if (item.IsMap()) {
        if (!r_.Map(item, "acceptance.loads.builtin[]", "acceptance.loads.builtin[]")) continue;
        name = Field(item, "name");
        if (name == nullptr) {
          r_.diags()->Error(item.mark, "a builtin load needs a 'name'", "name one of: " + JoinChoices(kBuiltinLoadNames));
          continue;
        }
        ReadCpus(&l.cpus, Field(item, "cpus"), "acceptance.loads.builtin[].cpus");
        ReadInt(&l.workers, Field(item, "workers"), "acceptance.loads.builtin[].workers", 1, 4096);
      }
      auto i = r_.Choice(*name, "acceptance.loads.builtin[]", kBuiltinLoadNames);
      if (!i) continue;
      l.kind = static_cast<BuiltinLoad>(*i);
      l.name = kBuiltinLoadNames[static_cast<size_t>(*i)];
      p_->acceptance.loads.push_back(std::move(l));
    }
  }

  void ReadExternalLoads(const YamlNode& node) {
    if (!node.IsSequence()) {
      r_.WrongType(node, "acceptance.loads.external", "a list", "write one '- argv: [stress-ng, --cpu, \"1\"]' per load");
      return;
    }
    for (const YamlNode& item : node.items) {
      if (!r_.Map(item, "acceptance.loads.external[]", "acceptance.loads.external[]")) continue;
      Load l;
      l.builtin = false;
      l.mark = item.mark;
      l.cpus.value = p_->acceptance.load_cpus.value;
      const YamlNode* argv = Field(item, "argv");
      if (argv == nullptr) {
        r_.diags()->Error(item.mark, "an external load needs 'argv'",
                          "give the command as a list, run without a shell: argv: [stress-ng, --vm, \"2\"]");
        continue;
      }
      auto list = r_.StringList(*argv, "acceptance.loads.external[].argv", false);
      if (!list) continue;
      if (list->empty() || list->front().empty()) {
        r_.diags()->Error(argv->mark, "'acceptance.loads.external[].argv' is empty", "name the program to run first");
        continue;
      }
      l.argv = *list;
      l.name = fs::path(l.argv.front()).filename().string();
      if (const YamlNode* n = Field(item, "name")) {
        if (auto s = r_.String(*n, "acceptance.loads.external[].name")) l.name = *s;
      }
      ReadCpus(&l.cpus, Field(item, "cpus"), "acceptance.loads.external[].cpus");
      p_->acceptance.loads.push_back(std::move(l));
    }
  }

  // ---- service (issue 6: hold)
  void ReadService(const YamlNode* node) {
    ServiceConfig& s = p_->service;
    s.on_stop.value = OnStop::kKeep;
    s.watch_interval.value = std::chrono::seconds(5);
    s.cpus.value = Keyword(CpuKeyword::kHousekeeping, "housekeeping", Housekeeping());
    const YamlNode* svc = Section(node, "service", "service");
    ReadChoice(&s.on_stop, Field(svc, "on_stop"), "service.on_stop", kOnStopNames);
    ReadDuration(&s.watch_interval, Field(svc, "watch_interval"), "service.watch_interval", std::chrono::milliseconds(100));
    ReadCpus(&s.cpus, Field(svc, "cpus"), "service.cpus");
    if (const YamlNode* v = Field(svc, "prometheus_textfile")) {
      auto path = r_.String(*v, "service.prometheus_textfile");
      if (!path) return;
      if (path->empty() || path->front() != '/' || fs::path(*path).extension() != ".prom") {
        r_.diags()->Error(v->mark, "'service.prometheus_textfile' must be an absolute path ending in .prom, got \"" + *path + "\"",
                          "node_exporter's textfile collector reads *.prom files from its directory, e.g. "
                          "/var/lib/prometheus/node-exporter/rtagent.prom");
        return;
      }
      Assign(&s.prometheus_textfile, std::optional<std::string>(*path), v->mark);
    }
  }

  Profile* p_;
  FieldReader r_;
};

std::string ProfileBuilder::FormatDurationOf(Duration v) {
  // Microseconds read best for deadline parameters.
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(v).count();
  if (Duration(std::chrono::microseconds(us)) == v) return std::to_string(us) + "us";
  return std::to_string(v.count()) + "ns";
}

// Reads the merged tree into `p`, validates it and turns the diagnostics into the result.
// `caller_diags` is the caller's collector (null when it passed none: the Error then carries
// the formatted problems).
Result<Profile> Finish(Profile p, const std::optional<YamlNode>& tree, Diagnostics* diags,
                       const Diagnostics* caller_diags) {
  if (tree) {
    p.document = CanonicalJson(*tree);
    ProfileBuilder(&p, diags).Build(*tree);
    // Cross-section checks run even after errors, so one run reports every problem; values
    // that could not be read keep their defaults, which are consistent.
    ValidateProfile(p, diags);
  }
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

}  // namespace

Result<SystemCpus> ReadSystemCpus(const SysRoot& root) {
  SystemCpus s;
  auto read = [&](const std::string& path) -> Result<CpuSet> {
    auto text = root.ReadTrimmed(path);
    if (!text) return text.error();
    auto set = CpuSet::ParseList(*text);
    if (!set) return MakeError(root.Dir() + " " + path + ": " + set.error().message);
    return *set;
  };
  auto online = read(kpath::kCpuOnline);
  auto possible = read(kpath::kCpuPossible);
  if (!possible) possible = read(kpath::kCpuPresent);
  if (!online && !possible) return MakeError("cannot read the CPUs of the system under " + root.Dir() + ": " + online.error().message, online.error().err);
  s.online = online ? *online : *possible;
  s.possible = possible ? possible->Union(s.online) : s.online;
  if (s.online.Empty()) return MakeError("the system under " + root.Dir() + " reports no online CPU");
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

}  // namespace rtagent::profile

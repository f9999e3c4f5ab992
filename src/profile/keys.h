// Declaring the profile language. A key is declared once, in its section's declaration: its
// name, the type and default docs/profile.md shows, the first words of its meaning there, how
// its value is read into the model (with every message that can come of it) and the
// cross-checks that judge it against the rest of the profile. The loader walks these
// declarations; the unknown-key errors, the "takes: ..." hints and the reference test
// (profiles_test.cc) come from the same lists, so nothing is spelled twice.
//
// A section is a Section<S> over the struct S it fills. The profile declares the sections
// several layers read (profile/sections.h); a tuner or a check declares its own as a Block
// (memory in tune/memory_tuner.cc, checks.hwlat in check/hwlat_check.cc), which the profile
// keeps by its path (Profile::blocks) and hands back through the declaration (Block::Of).
#pragma once

#include <any>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "profile/duration.h"
#include "profile/model.h"
#include "profile/reader.h"
#include "profile/yaml_tree.h"

namespace rtagent::profile {

/// What a key's reader may use while a profile loads: the typed reader (every message), the
/// profile read so far (the CPUs cores resolved) and the diagnostics.
class LoadContext {
 public:
  LoadContext(Profile* p, Diagnostics* d) : p_(p), r_(d, &p->system) {}
  /// The profile being read: what earlier sections set is there already.
  Profile& profile() { return *p_; }
  /// Reads typed values, reporting every problem with its file:line:column and a hint.
  FieldReader& reader() { return r_; }
  /// Where the problems go, for the messages no FieldReader reader gives.
  Diagnostics& diags() { return *r_.diags(); }
  /// The keyword `housekeeping` with the CPUs cores resolved it to.
  CpuSpec Housekeeping() const;
  /// The keyword `isolated` with the CPUs cores resolved it to.
  CpuSpec Isolated() const;
  /// The isolated CPUs, or every online CPU ("all") when none is isolated: the default of the
  /// per-CPU settings.
  CpuSpec IsolatedOrAll() const;

 private:
  Profile* p_;
  FieldReader r_;
};

/// What a cross-check may use once every section is read: the whole profile and where to
/// report. Cross-checks run in declaration order after the last value is read.
class CrossCheck {
 public:
  CrossCheck(const Profile& p, Diagnostics* d) : p_(p), d_(d) {}
  /// The profile, every section read.
  const Profile& profile() const { return p_; }
  /// Where the contradictions go.
  Diagnostics& diags() const { return *d_; }
  /// The first known mark, or the top of the profile: every diagnostic points at a line.
  SourceMark At(std::initializer_list<SourceMark> marks) const;
  /// The profile's housekeeping CPUs.
  const CpuSet& Housekeeping() const { return p_.cores.housekeeping->cpus; }
  /// The profile's isolated CPUs.
  const CpuSet& Isolated() const { return p_.cores.isolated->cpus; }
  /// True for an empty set that only follows from an empty housekeeping set (reported once,
  /// at cores, not at every key that defaults to housekeeping).
  bool Cascade(const CpuSpec& s) const { return s.keyword == CpuKeyword::kHousekeeping && Housekeeping().Empty(); }

 private:
  const Profile& p_;
  Diagnostics* d_;
};

class SectionInfo;

/// One key as docs/profile.md shows it: a table row "| `path` | type | default | meaning".
struct KeyDoc {
  std::string name;      ///< as written in a profile: "interval_us"
  std::string type;      ///< the type column: "integer 10..10000000"
  std::string fallback;  ///< the default column: "`1000`", "none", "leave"
  std::string meaning;   ///< the first words of the meaning column
  const SectionInfo* sub = nullptr;  ///< the keys of the mapping it holds, if any
  std::vector<std::string> names = {};  ///< other names documented under it (memory.sysctl's sysctls)
};

/// A mapping's keys, without the struct they fill: for the schema, hints and the reference.
class SectionInfo {
 public:
  explicit SectionInfo(std::string path) : path_(std::move(path)) {}
  virtual ~SectionInfo() = default;
  /// Dotted from the top ("" for the top level, "cores.boot"); "<name>" stands for a
  /// user-chosen name ("ranks.rules.<name>"), "[]" for a list item.
  const std::string& path() const { return path_; }
  /// Its keys as the reference documents them, in declaration order.
  virtual std::vector<KeyDoc> Docs() const = 0;

 private:
  std::string path_;
};

/// "cores.boot" and "isolcpus" give "cores.boot.isolcpus"; the top level adds nothing.
inline std::string KeyPath(const std::string& what, const std::string& key) {
  return what.empty() ? key : what + "." + key;
}

/// The value of `key` in a mapping; null values and a null mapping count as absent (a null
/// value resets what an included file set).
const YamlNode* Field(const YamlNode* map, std::string_view key);

/// One key of a section over struct S.
template <class S>
struct Key {
  using Load = std::function<void(LoadContext&, S&, const YamlNode* value, const std::string& what)>;
  using Then = std::function<void(LoadContext&, S&, const YamlNode* section, const std::string& section_what)>;
  using Check = std::function<void(const CrossCheck&, const S&)>;

  KeyDoc doc;
  /// Sets the default, then reads `value` when the profile gives one (null otherwise).
  Load load = nullptr;
  /// Runs after `load`, given or not: a step that needs this key and the ones before it.
  Then then = nullptr;
  /// Judges the key against the rest of the profile once everything is read.
  Check check = nullptr;

  /// Adds the step that follows this key.
  Key&& AndThen(Then t) && {
    then = std::move(t);
    return std::move(*this);
  }
  /// Adds its cross-check.
  Key&& Checked(Check c) && {
    check = std::move(c);
    return std::move(*this);
  }
  /// The default column when it is not the value the key starts from ("required for fifo/rr").
  Key&& Fallback(std::string text) && {
    doc.fallback = std::move(text);
    return std::move(*this);
  }
  /// The type column when the builder's is not the right word ("path" for a string).
  Key&& TypeDoc(std::string text) && {
    doc.type = std::move(text);
    return std::move(*this);
  }
  /// Names documented under it that are no keys of a section (memory.sysctl's sysctls).
  Key&& Listing(std::vector<std::string> names) && {
    doc.names = std::move(names);
    return std::move(*this);
  }
  /// The keys of what it holds, for the reference (a list of mappings read by hand).
  Key&& Holding(const SectionInfo& sub) && {
    doc.sub = &sub;
    return std::move(*this);
  }
};

/// The mapping of one section: its keys in order, and the checks that judge several of them.
template <class S>
class Section : public SectionInfo {
 public:
  using Check = std::function<void(const CrossCheck&, const S&)>;

  Section(std::string path, std::vector<Key<S>> keys, std::vector<Check> checks = {})
      : SectionInfo(std::move(path)), keys_(std::move(keys)), checks_(std::move(checks)) {}

  /// The key names in declaration order (the order hints list them in).
  std::vector<std::string> Names() const {
    std::vector<std::string> out;
    for (const Key<S>& k : keys_) out.push_back(k.doc.name);
    return out;
  }
  std::vector<KeyDoc> Docs() const override {
    std::vector<KeyDoc> out;
    for (const Key<S>& k : keys_) out.push_back(k.doc);
    return out;
  }

  /// Reads `node` into `s`: unknown keys are reported, every key gets its default and then its
  /// value. A `node` that is absent (null) or not a mapping (reported) leaves every default.
  void Read(LoadContext& c, S& s, const YamlNode* node, const std::string& what) const {
    if (node != nullptr && !c.reader().Map(*node, Names(), what)) node = nullptr;
    Walk(c, s, node, what);
  }
  /// Reads the keys of `map`, a mapping whose keys were already checked (null: defaults only).
  void Walk(LoadContext& c, S& s, const YamlNode* map, const std::string& what) const {
    for (const Key<S>& k : keys_) {
      if (k.load) k.load(c, s, Field(map, k.doc.name), KeyPath(what, k.doc.name));
      if (k.then) k.then(c, s, map, what);
    }
  }
  /// Runs every cross-check: each key's, in order, then the section's.
  void CheckAll(const CrossCheck& cc, const S& s) const {
    for (const Key<S>& k : keys_) {
      if (k.check) k.check(cc, s);
    }
    for (const Check& c : checks_) c(cc, s);
  }

 private:
  std::vector<Key<S>> keys_;
  std::vector<Check> checks_;
};

// ------------------------------------------------------------------------------------- keys
// Builders for the common kinds of keys. Each reads through FieldReader, so the messages are
// the same for every key of a kind: "'acceptance.priority' is 0, out of range 1..99".

/// An integer range, as FieldReader::Int checks it and the type column shows it.
struct IntRange {
  long long min;
  long long max;
};
/// "integer 1..99", or "integer >= 1" when the top is only a guard against nonsense.
std::string IntType(IntRange r);
/// "duration", or "duration >= 100ms" when the minimum matters.
std::string DurationType(Duration min);
/// "`a`, `b`, `c`": the choices of an enumerated key.
std::string ChoiceType(const std::vector<std::string>& names);
/// "`text`": a default as the reference shows it.
inline std::string Code(const std::string& text) { return "`" + text + "`"; }

/// A key holding one value of type T: set to `def` (when there is one) before reading, then to
/// what `read` makes of the profile's value; `read` reports what it cannot use and gives
/// nullopt, which leaves the default. Every builder below is one of these.
template <class S, class T, class Read>
Key<S> Value(KeyDoc doc, Marked<T> S::*m, std::optional<T> def, Read read) {
  Key<S> k{std::move(doc)};
  k.load = [m, def = std::move(def), read = std::move(read)](LoadContext& c, S& s, const YamlNode* v,
                                                              const std::string& what) {
    if (def) (s.*m).value = *def;
    if (v == nullptr) return;
    if (std::optional<T> got = read(c, *v, what)) Assign(&(s.*m), std::move(*got), v->mark);
  };
  return k;
}

/// An integer key with a default (or none: the struct's own starting value stays).
template <class S, class T>
Key<S> Int(std::string name, Marked<T> S::*m, IntRange range, std::type_identity_t<std::optional<T>> def,
           std::string meaning) {
  KeyDoc doc{std::move(name), IntType(range), def ? Code(std::to_string(*def)) : "", std::move(meaning)};
  return Value(std::move(doc), m, def, [range](LoadContext& c, const YamlNode& v, const std::string& what) {
    auto n = c.reader().Int(v, what, range.min, range.max);
    return n ? std::optional<T>(static_cast<T>(*n)) : std::nullopt;
  });
}

/// An integer key that may be left out: `absent` says what that means ("none", "leave").
template <class S>
Key<S> OptInt(std::string name, Marked<std::optional<int>> S::*m, IntRange range, std::string absent,
              std::string meaning) {
  KeyDoc doc{std::move(name), IntType(range), std::move(absent), std::move(meaning)};
  return Value(std::move(doc), m, std::optional<std::optional<int>>(),
               [range](LoadContext& c, const YamlNode& v, const std::string& what) {
                 auto n = c.reader().Int(v, what, range.min, range.max);
                 return n ? std::optional<std::optional<int>>(static_cast<int>(*n)) : std::nullopt;
               });
}

/// true/false (yes/no, on/off).
template <class S>
Key<S> Bool(std::string name, Marked<bool> S::*m, bool def, std::string meaning) {
  KeyDoc doc{std::move(name), "boolean", Code(def ? "true" : "false"), std::move(meaning)};
  return Value(std::move(doc), m, std::optional<bool>(def),
               [](LoadContext& c, const YamlNode& v, const std::string& what) { return c.reader().Bool(v, what); });
}

/// A boolean that may be left out (the kernel's value is left as it is).
template <class S>
Key<S> OptBool(std::string name, Marked<std::optional<bool>> S::*m, std::string absent, std::string meaning) {
  KeyDoc doc{std::move(name), "boolean", std::move(absent), std::move(meaning)};
  return Value(std::move(doc), m, std::optional<std::optional<bool>>(),
               [](LoadContext& c, const YamlNode& v, const std::string& what) {
                 auto b = c.reader().Bool(v, what);
                 return b ? std::optional<std::optional<bool>>(*b) : std::nullopt;
               });
}

/// A duration of at least `min`, with a default (or none).
template <class S>
Key<S> Dur(std::string name, Marked<Duration> S::*m, Duration min, std::optional<Duration> def, std::string meaning) {
  KeyDoc doc{std::move(name), DurationType(min), def ? Code(FormatDuration(*def)) : "", std::move(meaning)};
  return Value(std::move(doc), m, def, [min](LoadContext& c, const YamlNode& v, const std::string& what) {
    return c.reader().DurationValue(v, what, min);
  });
}

/// One of `names`, stored as the enum whose values are in the same order (model.h).
template <class S, class E>
Key<S> Choice(std::string name, Marked<E> S::*m, const std::vector<std::string>& names, E def, std::string meaning) {
  KeyDoc doc{std::move(name), ChoiceType(names), Code(names[static_cast<size_t>(def)]), std::move(meaning)};
  return Value(std::move(doc), m, std::optional<E>(def), [names](LoadContext& c, const YamlNode& v, const std::string& what) {
    auto i = c.reader().Choice(v, what, names);
    return i ? std::optional<E>(static_cast<E>(*i)) : std::nullopt;
  });
}

/// One of `names`, or left out (`absent` says what that means).
template <class S, class E>
Key<S> OptChoice(std::string name, Marked<std::optional<E>> S::*m, const std::vector<std::string>& names,
                 std::string absent, std::string meaning) {
  KeyDoc doc{std::move(name), ChoiceType(names), std::move(absent), std::move(meaning)};
  return Value(std::move(doc), m, std::optional<std::optional<E>>(),
               [names](LoadContext& c, const YamlNode& v, const std::string& what) {
                 auto i = c.reader().Choice(v, what, names);
                 return i ? std::optional<std::optional<E>>(static_cast<E>(*i)) : std::nullopt;
               });
}

/// One of `names`, kept as the word itself (a kernel file's value), or left out.
template <class S>
Key<S> Word(std::string name, Marked<std::optional<std::string>> S::*m, const std::vector<std::string>& names,
            std::string absent, std::string meaning) {
  KeyDoc doc{std::move(name), ChoiceType(names), std::move(absent), std::move(meaning)};
  return Value(std::move(doc), m, std::optional<std::optional<std::string>>(),
               [names](LoadContext& c, const YamlNode& v, const std::string& what) {
                 auto i = c.reader().Choice(v, what, names);
                 return i ? std::optional<std::optional<std::string>>(names[static_cast<size_t>(*i)]) : std::nullopt;
               });
}

/// A string.
template <class S>
Key<S> Text(std::string name, Marked<std::string> S::*m, std::string fallback, std::string meaning) {
  KeyDoc doc{std::move(name), "string", std::move(fallback), std::move(meaning)};
  return Value(std::move(doc), m, std::optional<std::string>(),
               [](LoadContext& c, const YamlNode& v, const std::string& what) { return c.reader().String(v, what); });
}

/// A regular expression matched against a whole name.
template <class S>
Key<S> OptRegex(std::string name, Marked<std::optional<Regex>> S::*m, std::string meaning) {
  KeyDoc doc{std::move(name), "regex", "", std::move(meaning)};
  return Value(std::move(doc), m, std::optional<std::optional<Regex>>(),
               [](LoadContext& c, const YamlNode& v, const std::string& what) {
                 auto re = c.reader().RegexValue(v, what);
                 return re ? std::optional<std::optional<Regex>>(*re) : std::nullopt;
               });
}

/// Where a CPU-list key starts: a set made from the resolved cores, and how the reference says it.
struct CpuDefault {
  std::function<CpuSpec(const LoadContext&)> make;
  std::string fallback;
};
/// The profile's housekeeping CPUs ("`housekeeping`").
CpuDefault HousekeepingCpus();
/// The isolated CPUs, all when none is isolated.
CpuDefault IsolatedOrAllCpus();
/// `keep`: the setting is left as the system has it.
CpuDefault KeepCpus();

/// "CPU list", "CPU list or `auto`", "CPU list or `keep`".
std::string CpuListType(CpuKeywords kw);

/// A CPU list, resolved against the system and the profile's cores.
template <class S>
Key<S> Cpus(std::string name, Marked<CpuSpec> S::*m, CpuKeywords kw, std::optional<CpuDefault> def,
            std::string meaning) {
  KeyDoc doc{std::move(name), CpuListType(kw), def ? def->fallback : "", std::move(meaning)};
  Key<S> k = Value(std::move(doc), m, std::optional<CpuSpec>(),
                   [kw](LoadContext& c, const YamlNode& v, const std::string& what) { return c.reader().Cpus(v, what, kw); });
  if (!def) return k;
  // The default is made from the resolved cores when the key is read, not when it is declared.
  auto read = std::move(k.load);
  k.load = [m, make = def->make, read](LoadContext& c, S& s, const YamlNode* v, const std::string& what) {
    (s.*m).value = make(c);
    read(c, s, v, what);
  };
  return k;
}

/// A nested mapping with keys of its own.
template <class S, class T>
Key<S> Sub(std::string name, T S::*m, const Section<T>& sub, std::string meaning) {
  Key<S> k{{std::move(name), "mapping", "", std::move(meaning), &sub}};
  k.load = [m, &sub](LoadContext& c, S& s, const YamlNode* v, const std::string& what) { sub.Read(c, s.*m, v, what); };
  k.check = [m, &sub](const CrossCheck& cc, const S& s) { sub.CheckAll(cc, s.*m); };
  return k;
}

/// A nested mapping whose keys fill the same struct (memory.thp, acceptance.loads).
template <class S>
Key<S> Nested(std::string name, const Section<S>& sub, std::string meaning) {
  Key<S> k{{std::move(name), "mapping", "", std::move(meaning), &sub}};
  k.load = [&sub](LoadContext& c, S& s, const YamlNode* v, const std::string& what) { sub.Read(c, s, v, what); };
  k.check = [&sub](const CrossCheck& cc, const S& s) { sub.CheckAll(cc, s); };
  return k;
}

/// A mapping of user-chosen names to items with the keys of `item` (irqs.rules, partitions).
/// Each item gets its name and the key's position; one whose name `valid` refuses, or that is
/// not a mapping, is reported and left out. A name with no value (`loop:` or `loop: ~`) is left
/// out without a word: null resets, and an entry's default is not to be there, so an including
/// file drops an included rule this way.
template <class S, class T>
Key<S> Named(std::string name, std::vector<T> S::*m, const Section<T>& item, std::string type, std::string meaning,
             std::function<bool(LoadContext&, const std::string&, const SourceMark&)> valid = nullptr) {
  Key<S> k{{std::move(name), std::move(type), "none", std::move(meaning), &item}};
  k.load = [m, &item, valid](LoadContext& c, S& s, const YamlNode* v, const std::string& what) {
    if (v == nullptr || !c.reader().AnyMap(*v, what)) return;
    for (size_t i = 0; i < v->keys.size(); ++i) {
      const std::string& n = v->keys[i];
      if (v->items[i].IsNull()) continue;  // "name:" with nothing drops an included entry of that name
      if (valid && !valid(c, n, v->key_marks[i])) continue;
      const std::string item_what = what + "." + n;
      if (!c.reader().Map(v->items[i], item.Names(), item_what)) continue;
      T t;
      t.name = n;
      t.mark = v->key_marks[i];
      item.Walk(c, t, &v->items[i], item_what);
      (s.*m).push_back(std::move(t));
    }
  };
  k.check = [m, &item](const CrossCheck& cc, const S& s) {
    for (const T& t : s.*m) item.CheckAll(cc, t);
  };
  return k;
}

/// A key read by hand (a shape no builder has: isolcpus' list-or-false, memory.sysctl).
template <class S>
Key<S> Custom(std::string name, std::string type, std::string fallback, std::string meaning,
              typename Key<S>::Load load) {
  return Key<S>{{std::move(name), std::move(type), std::move(fallback), std::move(meaning)}, std::move(load)};
}

/// A step in a section's reading that is no key (a key's `then` when the step follows it).
template <class S>
typename Key<S>::Then Step(std::function<void(LoadContext&, S&)> fn) {
  return [fn = std::move(fn)](LoadContext& c, S& s, const YamlNode*, const std::string&) { fn(c, s); };
}

// ----------------------------------------------------------------------------------- blocks

/// A section a tuner or a check declares for itself. The profile keeps what it read under its
/// path (Profile::blocks); its owner reads it back through the declaration.
class BlockBase {
 public:
  virtual ~BlockBase() = default;
  /// Its keys; their path is the block's: "memory", "checks.hwlat".
  virtual const SectionInfo& Keys() const = 0;
  /// "memory", "checks.hwlat": where the profile keeps it.
  const std::string& path() const { return Keys().path(); }
  /// Its row in the mapping that holds it (the top level, or checks).
  virtual KeyDoc Doc() const = 0;
  /// Reads its value (null when the profile gives none) into the profile.
  virtual void Load(LoadContext& c, const YamlNode* value, const std::string& what) const = 0;
  /// Runs its cross-checks on the loaded profile.
  virtual void CheckAll(const CrossCheck& cc) const = 0;
};

/// A check's block under checks.<name>: `enabled` and the check's own keys;
/// `checks.<name>: false` is short for `enabled: false`.
class CheckBlockBase : public BlockBase {
 public:
  /// False when the profile turns the check off.
  virtual bool Enabled(const Profile& p) const = 0;
};

/// Aborts naming `path`: a block read back from a profile loaded without it (a programming error).
[[noreturn]] void MissingBlock(const std::string& path);

/// A block over struct S.
template <class S, class Base = BlockBase>
class Block : public Base {
 public:
  Block(std::string path, std::string meaning, std::vector<Key<S>> keys, std::vector<typename Section<S>::Check> checks = {})
      : meaning_(std::move(meaning)), section_(std::move(path), std::move(keys), std::move(checks)) {}

  const SectionInfo& Keys() const override { return section_; }
  KeyDoc Doc() const override {
    std::string name = section_.path().substr(section_.path().rfind('.') + 1);
    return {name, "mapping", "", meaning_, &section_};
  }
  void Load(LoadContext& c, const YamlNode* value, const std::string& what) const override {
    S s;
    section_.Read(c, s, value, what);
    c.profile().blocks[section_.path()] = std::move(s);
  }
  void CheckAll(const CrossCheck& cc) const override { section_.CheckAll(cc, Of(cc.profile())); }

  /// What the profile says: the block as read, defaults filled in.
  const S& Of(const Profile& p) const {
    auto it = p.blocks.find(section_.path());
    const S* s = it == p.blocks.end() ? nullptr : std::any_cast<S>(&it->second);
    if (s == nullptr) MissingBlock(section_.path());
    return *s;
  }
  S& Of(Profile& p) const { return const_cast<S&>(Of(static_cast<const Profile&>(p))); }

 protected:
  const Section<S>& section() const { return section_; }

 private:
  std::string meaning_;
  Section<S> section_;
};

/// Settings of a check that has no keys but its toggle.
struct Toggle {
  Marked<bool> enabled;
};

/// A check's block; S has `Marked<bool> enabled` (the first key, declared here).
template <class S>
class CheckBlock : public Block<S, CheckBlockBase> {
 public:
  CheckBlock(std::string name, std::string meaning, std::vector<Key<S>> keys,
             std::vector<typename Section<S>::Check> checks = {})
      : Block<S, CheckBlockBase>("checks." + name, std::move(meaning), WithToggle(std::move(keys)), std::move(checks)) {}

  KeyDoc Doc() const override {
    KeyDoc d = Block<S, CheckBlockBase>::Doc();
    d.type = "check";
    d.fallback = "on";
    return d;
  }
  void Load(LoadContext& c, const YamlNode* value, const std::string& what) const override {
    if (value == nullptr || !value->IsScalar()) return Block<S, CheckBlockBase>::Load(c, value, what);
    // The shorthand "hwlat: false": every setting keeps its default.
    S s;
    this->section().Read(c, s, nullptr, what);
    if (auto b = c.reader().Bool(*value, what)) Assign(&s.enabled, *b, value->mark);
    c.profile().blocks[this->path()] = std::move(s);
  }
  bool Enabled(const Profile& p) const override { return this->Of(p).enabled.value; }

 private:
  static std::vector<Key<S>> WithToggle(std::vector<Key<S>> keys) {
    keys.insert(keys.begin(), Bool("enabled", &S::enabled, true, ""));
    return keys;
  }
};

}  // namespace rtagent::profile

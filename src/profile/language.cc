#include "profile/language.h"

#include <cstdlib>
#include <iostream>
#include <optional>

#include "profile/sections.h"

namespace rtagent::profile {
namespace {

// A block as one key of the mapping that holds it.
template <class S>
Key<S> BlockKey(const BlockBase& b) {
  Key<S> k{b.Doc()};
  k.load = [&b](LoadContext& c, S&, const YamlNode* v, const std::string& what) { b.Load(c, v, what); };
  k.check = [&b](const CrossCheck& cc, const S&) { b.CheckAll(cc); };
  return k;
}

Key<Profile> Version() {
  return Custom<Profile>("version", "integer", "1", "schema version; only 1 exists",
                         [](LoadContext& c, Profile&, const YamlNode* v, const std::string&) {
                           if (v != nullptr) CheckProfileVersion(c.diags(), *v);
                         });
}

// The language, complete once DeclareBlocks ran. The sections live here for good: keys refer
// to their sub-sections by address.
struct Language {
  std::optional<Section<ChecksConfig>> checks;
  std::optional<Section<Profile>> top;
};

Language& TheLanguage() {
  static Language kLanguage;
  return kLanguage;
}

void Walk(const SectionInfo& s, std::vector<std::pair<std::string, KeyDoc>>* out) {
  for (const KeyDoc& k : s.Docs()) {
    out->emplace_back(KeyPath(s.path(), k.name), k);
    if (k.sub != nullptr) Walk(*k.sub, out);
  }
}

}  // namespace

void DeclareBlocks(const std::vector<const BlockBase*>& tuner_sections,
                   const std::vector<const CheckBlockBase*>& check_blocks) {
  Language& l = TheLanguage();
  if (l.top) {
    std::cerr << "rtagent: internal error: the profile language was declared twice\n";
    std::abort();
  }
  std::vector<Key<ChecksConfig>> checks = {SuiteKey()};
  for (const CheckBlockBase* b : check_blocks) checks.push_back(BlockKey<ChecksConfig>(*b));
  l.checks.emplace("checks", std::move(checks));

  std::vector<Key<Profile>> top = {
      Version(),
      Custom<Profile>("include", "file or list of files", "none", "profiles merged under this one",
                      nullptr),  // merged before the sections are read (loader.cc)
      Text("name", &Profile::name, "\"\"", "the profile's name, shown in reports"),
      Text("description", &Profile::description, "\"\"", "one line for reports and `status`"),
      Sub("cores", &Profile::cores, CoresSection(),
          "housekeeping and isolated CPUs, boot arguments, boot loader, runtime masks"),
      Sub("irqs", &Profile::irqs, IrqsSection(), "IRQ affinity and the interrupt allow-list"),
      Sub("ranks", &Profile::ranks, RanksSection(), "scheduling policy, priority and affinity of threads and processes"),
      PartitionsKey(),
      Sub("power", &Profile::power, PowerSection(), "PM QoS, resume latency, cpuidle, cpufreq"),
  };
  for (const BlockBase* b : tuner_sections) top.push_back(BlockKey<Profile>(*b));
  top.push_back(Sub("kernel", &Profile::kernel, KernelSection(), "PREEMPT_RT, version, RT safety net"));
  top.push_back(Sub("checks", &Profile::checks, *l.checks, "which checks `verify` runs and their thresholds"));
  top.push_back(Sub("acceptance", &Profile::acceptance, AcceptanceSection(), "the loaded latency test and its pass criteria"));
  top.push_back(Sub("service", &Profile::service, ServiceSection(), "the `hold` daemon"));
  l.top.emplace("", std::move(top));
}

const Section<Profile>& TopLevel() {
  const Language& l = TheLanguage();
  if (!l.top) {
    std::cerr << "rtagent: internal error: a profile was read before the profile language was declared "
                 "(check::DeclareProfileLanguage)\n";
    std::abort();
  }
  return *l.top;
}

void CheckProfileVersion(Diagnostics& d, const YamlNode& v) {
  if (v.IsNull() || (v.IsScalar() && v.scalar == "1")) return;
  d.Error(v.mark, "this rtagent reads profile version 1, the profile says " + (v.IsScalar() ? "version " + v.scalar : v.Describe()),
          "write 'version: 1', or use the rtagent release that matches the profile");
}

std::vector<std::pair<std::string, KeyDoc>> AllKeys() {
  std::vector<std::pair<std::string, KeyDoc>> out;
  Walk(TopLevel(), &out);
  return out;
}

}  // namespace rtagent::profile

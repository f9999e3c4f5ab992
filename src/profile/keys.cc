#include "profile/keys.h"

#include <cstdlib>
#include <iostream>

namespace rtagent::profile {

namespace {
CpuSpec Keyword(CpuKeyword k, const std::string& text, const CpuSet& cpus) {
  CpuSpec s;
  s.keyword = k;
  s.text = text;
  s.cpus = cpus;
  return s;
}
}  // namespace

CpuSpec LoadContext::Housekeeping() const {
  return Keyword(CpuKeyword::kHousekeeping, "housekeeping", p_->cores.housekeeping->cpus);
}

CpuSpec LoadContext::Isolated() const { return Keyword(CpuKeyword::kIsolated, "isolated", p_->cores.isolated->cpus); }

CpuSpec LoadContext::IsolatedOrAll() const {
  if (p_->cores.isolated->cpus.Empty()) return Keyword(CpuKeyword::kList, "all", p_->system.online);
  return Isolated();
}

SourceMark CrossCheck::At(std::initializer_list<SourceMark> marks) const {
  for (const SourceMark& m : marks) {
    if (m.Known()) return m;
  }
  return SourceMark{p_.path, 1, 1};
}

const YamlNode* Field(const YamlNode* map, std::string_view key) {
  if (map == nullptr) return nullptr;
  const YamlNode* v = map->Find(key);
  return (v == nullptr || v->IsNull()) ? nullptr : v;
}

std::string IntType(IntRange r) {
  // A top this large only guards against nonsense; the reference says what matters.
  if (r.max >= 100000000) return "integer >= " + std::to_string(r.min);
  return "integer " + std::to_string(r.min) + ".." + std::to_string(r.max);
}

std::string DurationType(Duration min) {
  if (min <= std::chrono::microseconds(1)) return "duration";
  return "duration >= " + FormatDuration(min);
}

std::string ChoiceType(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + Code(n);
  return out;
}

std::string CpuListType(CpuKeywords kw) {
  if (kw.auto_) return "CPU list or `auto`";
  if (kw.keep) return "CPU list or `keep`";
  return "CPU list";
}

CpuDefault HousekeepingCpus() {
  return {[](const LoadContext& c) { return c.Housekeeping(); }, Code("housekeeping")};
}

CpuDefault KeepCpus() {
  return {[](const LoadContext&) {
            CpuSpec s;
            s.keyword = CpuKeyword::kKeep;
            s.text = "keep";
            return s;
          },
          Code("keep")};
}

CpuDefault IsolatedOrAllCpus() {
  return {[](const LoadContext& c) { return c.IsolatedOrAll(); }, "the isolated CPUs (all when none)"};
}

void MissingBlock(const std::string& path) {
  std::cerr << "rtagent: internal error: the profile holds no '" << path
            << "' (the profile language was declared without it)\n";
  std::abort();
}

}  // namespace rtagent::profile

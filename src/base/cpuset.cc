#include "base/cpuset.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <cstdio>

namespace rtagent {
namespace {

// Largest CPU number we accept. The kernel's NR_CPUS tops out at 8192 on x86_64 (MAXSMP).
constexpr int kMaxCpu = 8191;

std::string_view Strip(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Reads a decimal number (or "N", the last CPU) from the front of `s`.
bool TakeNumber(std::string_view& s, int nr_cpus, int* out) {
  if (!s.empty() && s.front() == 'N') {
    if (nr_cpus <= 0) return false;
    *out = nr_cpus - 1;
    s.remove_prefix(1);
    return true;
  }
  // from_chars takes a leading '-': "-833333333-331" was a range of 833 million CPUs that
  // took minutes to walk (fuzz/cpuset_fuzz.cc). A CPU number is never negative.
  if (s.empty() || s.front() < '0' || s.front() > '9') return false;
  int v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr == s.data()) return false;
  s.remove_prefix(static_cast<size_t>(ptr - s.data()));
  *out = v;
  return true;
}

Error ListError(std::string_view text, std::string_view why) {
  return MakeError("invalid CPU list \"" + std::string(text) + "\": " + std::string(why));
}

}  // namespace

CpuSet CpuSet::Of(std::initializer_list<int> cpus) {
  CpuSet s;
  for (int c : cpus) s.Add(c);
  return s;
}

CpuSet CpuSet::Range(int first, int last) {
  CpuSet s;
  for (int c = first; c <= last; ++c) s.Add(c);
  return s;
}

Result<CpuSet> CpuSet::ParseList(std::string_view text, int nr_cpus) {
  std::string_view all = Strip(text);
  CpuSet set;
  if (all.empty()) return set;
  if (all == "all") {
    if (nr_cpus <= 0) return ListError(text, "\"all\" needs the number of CPUs");
    return Range(0, nr_cpus - 1);
  }
  size_t pos = 0;
  while (pos <= all.size()) {
    size_t comma = all.find(',', pos);
    if (comma == std::string_view::npos) comma = all.size();
    std::string_view part = Strip(all.substr(pos, comma - pos));
    const std::string_view element = part;
    pos = comma + 1;
    if (part.empty()) return ListError(text, "empty element between commas");
    int first = 0;
    if (!TakeNumber(part, nr_cpus, &first)) return ListError(text, "expected a CPU number");
    int last = first;
    int used = 1;
    int group = 1;
    if (!part.empty() && part.front() == '-') {
      part.remove_prefix(1);
      if (!TakeNumber(part, nr_cpus, &last)) return ListError(text, "expected a CPU number after '-'");
      if (!part.empty() && part.front() == ':') {
        part.remove_prefix(1);
        int a = 0;
        if (!TakeNumber(part, 0, &a) || a <= 0) return ListError(text, "expected a positive number after ':'");
        if (!part.empty() && part.front() == '/') {
          // Kernel form "first-last:used/group" (lib/bitmap-str.c): the first `used` CPUs of
          // every group of `group`.
          part.remove_prefix(1);
          int b = 0;
          if (!TakeNumber(part, 0, &b) || b <= 0) return ListError(text, "expected a group size after '/'");
          if (a > b) return ListError(text, "used size is larger than the group size");
          used = a;
          group = b;
        } else {
          // util-linux form "first-last:stride" (taskset --cpu-list): every stride-th CPU.
          used = 1;
          group = a;
        }
      }
    }
    if (!part.empty()) return ListError(text, "unexpected \"" + std::string(part) + "\"");
    if (first > last) {
      // "4-N" on a 4-CPU system: say what N stood for, the profile's author wrote no 3.
      const bool n = element.find('N') != std::string_view::npos;
      return ListError(text, "range " + std::to_string(first) + "-" + std::to_string(last) + " goes backwards" +
                                 (n ? " (N is the last CPU, " + std::to_string(nr_cpus - 1) + ", on this system)" : ""));
    }
    if (last > kMaxCpu) return ListError(text, "CPU " + std::to_string(last) + " is beyond the kernel's limit");
    for (int c = first; c <= last; ++c) {
      if ((c - first) % group < used) set.Add(c);
    }
    if (comma == all.size()) break;
  }
  return set;
}

Result<CpuSet> CpuSet::ParseMask(std::string_view text) {
  std::string_view s = Strip(text);
  if (s.size() > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  if (s.empty()) return MakeError("invalid CPU mask \"" + std::string(text) + "\": empty");
  // Walk from the least significant digit; commas only separate 32-bit groups.
  CpuSet set;
  int bit = 0;
  for (size_t i = s.size(); i-- > 0;) {
    char c = s[i];
    if (c == ',') continue;
    int v;
    if (c >= '0' && c <= '9') v = c - '0';
    else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
    else return MakeError("invalid CPU mask \"" + std::string(text) + "\": '" + std::string(1, c) + "' is not a hex digit");
    for (int b = 0; b < 4; ++b) {
      if (v & (1 << b)) {
        if (bit + b > kMaxCpu) return MakeError("invalid CPU mask \"" + std::string(text) + "\": too wide");
        set.Add(bit + b);
      }
    }
    bit += 4;
  }
  return set;
}

Result<CpuSet> CpuSet::Parse(std::string_view text, int nr_cpus) {
  std::string_view s = Strip(text);
  if (s.size() > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) return ParseMask(s);
  return ParseList(s, nr_cpus);
}

void CpuSet::Add(int cpu) {
  if (cpu < 0) return;
  size_t w = static_cast<size_t>(cpu) / 64;
  if (words_.size() <= w) words_.resize(w + 1, 0);
  words_[w] |= uint64_t{1} << (cpu % 64);
}

void CpuSet::Remove(int cpu) {
  if (cpu < 0) return;
  size_t w = static_cast<size_t>(cpu) / 64;
  if (w >= words_.size()) return;
  words_[w] &= ~(uint64_t{1} << (cpu % 64));
  Trim();
}

bool CpuSet::Has(int cpu) const {
  if (cpu < 0) return false;
  size_t w = static_cast<size_t>(cpu) / 64;
  return w < words_.size() && (words_[w] >> (cpu % 64) & 1);
}

bool CpuSet::Empty() const { return words_.empty(); }

int CpuSet::Count() const {
  int n = 0;
  for (uint64_t w : words_) n += std::popcount(w);
  return n;
}

int CpuSet::Max() const {
  if (words_.empty()) return -1;
  return static_cast<int>((words_.size() - 1) * 64 + 63 - std::countl_zero(words_.back()));
}

std::vector<int> CpuSet::Cpus() const {
  std::vector<int> out;
  for (size_t w = 0; w < words_.size(); ++w) {
    for (uint64_t bits = words_[w]; bits; bits &= bits - 1) {
      out.push_back(static_cast<int>(w * 64) + std::countr_zero(bits));
    }
  }
  return out;
}

CpuSet CpuSet::Union(const CpuSet& other) const {
  CpuSet r = *this;
  if (r.words_.size() < other.words_.size()) r.words_.resize(other.words_.size(), 0);
  for (size_t i = 0; i < other.words_.size(); ++i) r.words_[i] |= other.words_[i];
  return r;
}

CpuSet CpuSet::Intersect(const CpuSet& other) const {
  CpuSet r;
  size_t n = std::min(words_.size(), other.words_.size());
  r.words_.resize(n);
  for (size_t i = 0; i < n; ++i) r.words_[i] = words_[i] & other.words_[i];
  r.Trim();
  return r;
}

CpuSet CpuSet::Minus(const CpuSet& other) const {
  CpuSet r = *this;
  for (size_t i = 0; i < std::min(r.words_.size(), other.words_.size()); ++i) r.words_[i] &= ~other.words_[i];
  r.Trim();
  return r;
}

bool CpuSet::IsSubsetOf(const CpuSet& other) const { return Minus(other).Empty(); }

bool CpuSet::Intersects(const CpuSet& other) const { return !Intersect(other).Empty(); }

std::string CpuSet::Named() const {
  const int n = Count();
  if (n == 0) return "no CPU";
  return (n == 1 ? "CPU " : "CPUs ") + ToList();
}

std::string MaskWithCpus(const std::string& mask) {
  auto set = CpuSet::ParseMask(mask);
  return set ? mask + " (" + set->Named() + ")" : mask;
}

std::string CpuSet::ToList() const {
  std::string out;
  std::vector<int> cpus = Cpus();
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

std::string CpuSet::ToMask(int nr_cpus) const {
  int bits = std::max({nr_cpus, Max() + 1, 1});
  int groups = (bits + 31) / 32;
  std::string out;
  for (int g = groups - 1; g >= 0; --g) {
    uint32_t v = static_cast<uint32_t>(g / 2 < static_cast<int>(words_.size()) ? words_[g / 2] >> ((g % 2) * 32) : 0);
    char buf[16];
    // The top group is printed only as wide as the CPU count needs, as the kernel does
    // (4 CPUs -> "f", 64 -> "ffffffff,ffffffff").
    if (g == groups - 1) {
      int top_bits = bits - g * 32;
      int digits = (top_bits + 3) / 4;
      std::snprintf(buf, sizeof buf, "%0*x", digits, v);
    } else {
      std::snprintf(buf, sizeof buf, "%08x", v);
    }
    if (!out.empty()) out += ',';
    out += buf;
  }
  return out;
}

bool CpuSet::operator==(const CpuSet& other) const { return words_ == other.words_; }

void CpuSet::Trim() {
  while (!words_.empty() && words_.back() == 0) words_.pop_back();
}

}  // namespace rtagent

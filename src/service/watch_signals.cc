#include "service/watch_signals.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string_view>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"

namespace rtagent::service {

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t'; }

std::string_view TrimView(std::string_view s) {
  while (!s.empty() && (IsSpace(s.front()) || s.front() == '\n')) s.remove_prefix(1);
  while (!s.empty() && (IsSpace(s.back()) || s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

int AffinityListIrq(const std::string& key) {
  // proc/irq/N/smp_affinity_list: the directory part between the IRQ directory and the file.
  const std::string& dir = kpath::kProcIrqDir;
  if (key.size() <= dir.size() + 1 || key.compare(0, dir.size(), dir) != 0 || key[dir.size()] != '/') return -1;
  size_t start = dir.size() + 1, slash = key.find('/', start);
  if (slash == std::string::npos) return -1;
  auto n = ParseInt(std::string_view(key).substr(start, slash - start));
  if (!n || *n < 0 || *n > 0x7fffffff) return -1;
  int irq = static_cast<int>(*n);
  return key == kpath::ProcIrqFile(irq, kpath::kIrqSmpAffinityList) ? irq : -1;
}

bool WatchSignals::ReadInterrupts(const SysRoot& root, std::string* lines,
                                  std::unordered_map<int, unsigned long long>* outside) const {
  auto text = root.Read(kpath::kInterrupts);
  if (!text) return false;
  std::string_view all(*text);
  lines->clear();
  lines->reserve(all.size() / 8);
  // The header names the online CPUs, one column each ("CPU0 CPU1 ..."; an offline CPU has none).
  size_t eol = all.find('\n');
  std::string_view header = all.substr(0, eol);
  std::vector<int> column_cpu;
  for (size_t i = header.find("CPU"); i != std::string_view::npos; i = header.find("CPU", i + 3)) {
    int cpu = -1;
    auto [p, ec] = std::from_chars(header.data() + i + 3, header.data() + header.size(), cpu);
    if (ec == std::errc()) column_cpu.push_back(cpu);
  }
  lines->append(header);
  lines->push_back('\n');
  size_t pos = eol == std::string_view::npos ? all.size() : eol + 1;
  while (pos < all.size()) {
    eol = all.find('\n', pos);
    if (eol == std::string_view::npos) eol = all.size();
    std::string_view line = all.substr(pos, eol - pos);
    pos = eol + 1;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view label = TrimView(line.substr(0, colon));
    // The counts: up to one per column, then the chip, hardware IRQ, trigger and handlers.
    const char* p = line.data() + colon + 1;
    const char* end = line.data() + line.size();
    const IrqWatch* watch = nullptr;
    int irq = -1;
    if (!irqs_.empty() && !label.empty() && std::isdigit(static_cast<unsigned char>(label.front()))) {
      auto [q, ec] = std::from_chars(label.data(), label.data() + label.size(), irq);
      if (ec == std::errc() && q == label.data() + label.size()) {
        auto it = irqs_.find(irq);
        if (it != irqs_.end()) watch = &it->second;
      }
    }
    unsigned long long sum = 0;
    for (size_t col = 0; col < column_cpu.size(); ++col) {
      while (p < end && IsSpace(*p)) ++p;
      unsigned long long count = 0;
      auto [q, ec] = std::from_chars(p, end, count);
      if (ec != std::errc()) break;  // fewer counts than CPUs (ERR, MIS): the rest is text
      p = q;
      if (watch && !watch->cpus.Has(column_cpu[col])) sum += count;
    }
    if (watch) (*outside)[irq] = sum;
    lines->append(label);
    lines->push_back(':');
    lines->append(TrimView(std::string_view(p, end - p)));
    lines->push_back('\n');
  }
  return true;
}

std::vector<int> WatchSignals::ThreadList(const SysRoot& root) {
  std::vector<int> out;
  auto pids = root.List(kpath::kProc);
  if (!pids) return out;
  for (const auto& name : *pids) {
    if (name.empty() || !std::isdigit(static_cast<unsigned char>(name.front()))) continue;
    auto pid = ParseInt(name);
    if (!pid) continue;
    auto tids = root.List(kpath::TaskDir(static_cast<int>(*pid)));
    if (!tids) continue;  // gone since the listing
    for (const auto& t : *tids) {
      if (auto tid = ParseInt(t)) out.push_back(static_cast<int>(*tid));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

long long WatchSignals::LastPid(const SysRoot& root) {
  auto text = root.Read(kLoadavg);
  if (!text) return -1;
  std::string_view t = TrimView(*text);
  size_t space = t.rfind(' ');
  auto pid = ParseInt(space == std::string_view::npos ? t : t.substr(space + 1));
  return pid && *pid >= 0 ? *pid : -1;
}

void WatchSignals::Arm(const SysRoot& root, std::vector<WatchedFile> files) {
  files_ = std::move(files);
  next_file_ = 0;
  irqs_.clear();
  for (const WatchedFile& f : files_) {
    if (f.irq >= 0) irqs_[f.irq] = IrqWatch{f.cpus, 0};
  }
  std::unordered_map<int, unsigned long long> outside;
  if (!ReadInterrupts(root, &irq_lines_, &outside)) irq_lines_.clear();
  for (auto& [irq, w] : irqs_) {
    auto it = outside.find(irq);
    w.outside = it == outside.end() ? 0 : it->second;
  }
  last_pid_ = LastPid(root);
  threads_ = ThreadList(root);
  armed_ = true;
}

std::string WatchSignals::Check(const SysRoot& root) {
  if (!armed_) return "no baseline yet";
  std::string lines;
  std::unordered_map<int, unsigned long long> outside;
  if (!ReadInterrupts(root, &lines, &outside)) {
    if (!irq_lines_.empty()) return "/" + kpath::kInterrupts + " cannot be read";
  } else if (lines != irq_lines_) {
    return "the list of interrupts in /" + kpath::kInterrupts + " changed";
  }
  for (const auto& [irq, w] : irqs_) {
    auto it = outside.find(irq);
    if (it != outside.end() && it->second > w.outside) {
      return "IRQ " + std::to_string(irq) + " fired outside CPUs " + w.cpus.ToList();
    }
  }
  const long long last_pid = LastPid(root);
  if (last_pid < 0 || last_pid != last_pid_) {
    std::vector<int> threads = ThreadList(root);
    if (threads != threads_) return "the thread list changed";
    last_pid_ = last_pid;  // a process that came and went: nothing to plan
  }
  const size_t n = std::min(files_.size(), kFilesPerTick);
  for (size_t i = 0; i < n; ++i) {
    const WatchedFile& f = files_[next_file_];
    next_file_ = (next_file_ + 1) % files_.size();
    auto now = root.Read(f.key);
    if (!now) return "/" + f.key + " cannot be read";
    if (!SameValue(f.compare, *now, f.value)) return "/" + f.key + " changed";
  }
  return "";
}

}  // namespace rtagent::service

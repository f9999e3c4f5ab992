#include "service/memory_trim.h"

#include <algorithm>
#include <charconv>

namespace rtagent::service {

namespace {

std::string_view NextWord(std::string_view* s) {
  size_t b = s->find_first_not_of(" \t");
  if (b == std::string_view::npos) {
    *s = {};
    return {};
  }
  s->remove_prefix(b);
  size_t e = s->find_first_of(" \t");
  std::string_view w = s->substr(0, e);
  s->remove_prefix(e == std::string_view::npos ? s->size() : e);
  return w;
}

bool ParseHex(std::string_view s, uint64_t* v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v, 16);
  return ec == std::errc() && p == s.data() + s.size();
}

// "7f12a000-7f12b000 r-xp 00000000 fe:00 1234    /usr/lib/libc.so.6" (the path may hold spaces
// and end in " (deleted)"); fs/proc/task_mmu.c show_map_vma().
bool ParseHeader(std::string_view line, SmapsMapping* m) {
  std::string_view rest = line;
  std::string_view range = NextWord(&rest);
  size_t dash = range.find('-');
  if (dash == std::string_view::npos || !ParseHex(range.substr(0, dash), &m->start) ||
      !ParseHex(range.substr(dash + 1), &m->end)) {
    return false;
  }
  std::string_view perms = NextWord(&rest);
  if (perms.size() != 4) return false;
  m->perms = std::string(perms);
  NextWord(&rest);  // offset
  NextWord(&rest);  // device
  NextWord(&rest);  // inode
  size_t b = rest.find_first_not_of(" \t");
  m->path = b == std::string_view::npos ? std::string() : std::string(rest.substr(b));
  while (!m->path.empty() && (m->path.back() == ' ' || m->path.back() == '\r')) m->path.pop_back();
  return true;
}

uint64_t Kb(std::string_view rest) {
  std::string_view n = NextWord(&rest);
  uint64_t v = 0;
  std::from_chars(n.data(), n.data() + n.size(), v);
  return v;
}

// VM_LOCKED ("lo") refuses MADV_DONTNEED (EINVAL) and means "keep it resident"; a device's
// memory (VM_IO "io", VM_PFNMAP "pf", VM_DONTDUMP "dd") and hugetlb ("ht") are not page-cache
// pages that refault unchanged (mm/madvise.c; the flag names are fs/proc/task_mmu.c's).
bool LockedOrSpecial(const SmapsMapping& m) {
  for (std::string_view flag : {"lo", "io", "pf", "dd", "ht"})
    if (std::find(m.vm_flags.begin(), m.vm_flags.end(), flag) != m.vm_flags.end()) return true;
  return false;
}

}  // namespace

std::vector<SmapsMapping> ParseSmaps(std::string_view text) {
  std::vector<SmapsMapping> out;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    std::string_view rest = line;
    std::string_view key = NextWord(&rest);
    if (key.empty()) continue;
    if (key.back() != ':') {
      SmapsMapping m;
      if (ParseHeader(line, &m)) out.push_back(std::move(m));
      continue;
    }
    if (out.empty()) continue;
    SmapsMapping& m = out.back();
    if (key == "Rss:") m.rss_kb = Kb(rest);
    else if (key == "Anonymous:") m.anonymous_kb = Kb(rest);
    else if (key == "Locked:") m.locked_kb = Kb(rest);
    else if (key == "VmFlags:")
      for (std::string_view f = NextWord(&rest); !f.empty(); f = NextWord(&rest)) m.vm_flags.emplace_back(f);
  }
  return out;
}

std::vector<SmapsMapping> CleanFileMappings(const std::vector<SmapsMapping>& mappings) {
  std::vector<SmapsMapping> out;
  for (const SmapsMapping& m : mappings) {
    if (m.path.empty() || m.path.front() != '/') continue;  // anonymous, [heap], [stack], [vdso]
    if (m.perms.size() != 4 || m.perms[1] != '-') continue;  // writable: it may hold data of its own
    if (m.rss_kb == 0 || m.anonymous_kb != 0 || m.locked_kb != 0) continue;
    if (LockedOrSpecial(m)) continue;
    out.push_back(m);
  }
  return out;
}

TrimReport DropStartupPages(SelfCalls& calls) {
  TrimReport report;
  auto text = calls.OwnSmaps();
  if (!text) {
    report.error = text.error().message;
  } else {
    // Parsed and chosen before the first drop: the list does not change while it is walked.
    for (const SmapsMapping& m : CleanFileMappings(ParseSmaps(*text))) {
      if (auto r = calls.DropPages(m.start, m.end - m.start); !r) {
        if (report.error.empty()) report.error = m.path + ": " + r.error().message;
        continue;
      }
      ++report.mappings;
      report.dropped_kb += m.rss_kb;
    }
  }
  calls.TrimHeap();
  return report;
}

}  // namespace rtagent::service

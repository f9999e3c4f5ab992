#include "tune/fixture_sched_syscalls.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <map>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"
#include "base/sysroot_pieces.h"
#include "inspect/threads.h"

namespace rtagent {
namespace {

// kernel/sched/debug.c prints "%-45s:%21Ld" for each field of the sched file.
std::string SchedLine(const std::string& key, long long v) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "%-45s:%21lld", key.c_str(), v);
  return buf;
}

std::map<std::string, long long> DeadlineLines(std::string_view text) {
  std::map<std::string, long long> out;
  for (auto line : SplitLines(text)) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string key(TrimView(line.substr(0, colon)));
    if (key.rfind("dl.", 0) != 0) continue;
    if (auto v = ParseInt(line.substr(colon + 1))) out[key] = *v;
  }
  return out;
}

// Replaces the value of "Key:<ws>value" lines in a status-like file, keeping the separator.
bool ReplaceKeyValue(std::string& text, const std::string& key, const std::string& value) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t e = text.find('\n', pos);
    if (e == std::string::npos) e = text.size();
    if (e - pos > key.size() && text.compare(pos, key.size(), key) == 0 && text[pos + key.size()] == ':') {
      size_t v = pos + key.size() + 1;
      while (v < e && (text[v] == ' ' || text[v] == '\t')) ++v;
      text.replace(v, e - v, value);
      return true;
    }
    pos = e + 1;
  }
  return false;
}

// The bits a hex mask line is printed with: "40" is 8 bits, "ff,ffffffff" is 40.
int MaskBits(std::string_view mask) {
  auto groups = SplitChar(TrimView(mask), ',');
  if (groups.empty()) return 0;
  return static_cast<int>((groups.size() - 1) * 32 + groups.front().size() * 4);
}

}  // namespace

Result<std::string> RewriteStatFields(std::string_view stat, const std::vector<std::pair<int, std::string>>& fields) {
  size_t close = stat.rfind(')');
  if (close == std::string_view::npos) return MakeError("malformed stat line (no comm)", EINVAL);
  std::map<int, std::string> want(fields.begin(), fields.end());
  std::string out(stat.substr(0, close + 1));
  int field = 3;  // the first field after "(comm)" is field 3, the state
  size_t i = close + 1;
  auto ws = [](char c) { return c == ' ' || c == '\t' || c == '\n'; };
  while (i < stat.size()) {
    if (ws(stat[i])) {
      out += stat[i++];
      continue;
    }
    size_t e = i;
    while (e < stat.size() && !ws(stat[e])) ++e;
    auto it = want.find(field);
    if (it != want.end()) {
      out += it->second;
      want.erase(it);
    } else {
      out.append(stat.substr(i, e - i));
    }
    ++field;
    i = e;
  }
  if (!want.empty()) return MakeError("stat line has no field " + std::to_string(want.begin()->first), EINVAL);
  return out;
}

Result<void> FixtureSchedSyscalls::CheckExists(const TaskId& t) const {
  if (!reads_.IsDir(kpath::Task(t.pid, t.tid))) {
    return MakeError("thread " + TaskKey(t) + " does not exist under " + reads_.Dir() + " (it exited)", ESRCH);
  }
  return Ok();
}

Error FixtureSchedSyscalls::Missing(const TaskId& t, const Error& e) const {
  // Asked only once a read failed, so a thread that is there costs no extra stat.
  if (e.err == ENOENT) {
    if (auto r = CheckExists(t); !r) return r.error();
  }
  return e;
}

Result<SchedAttr> FixtureSchedSyscalls::GetAttr(const TaskId& t) const {
  auto text = reads_.Read(kpath::TaskStat(t.pid, t.tid));
  if (!text) return Missing(t, text.error());
  auto st = ParseTaskStat(*text);
  if (!st) return MakeError(reads_.Dir() + " " + kpath::TaskStat(t.pid, t.tid) + ": malformed stat line", EINVAL);
  if (auto a = SchedAttrOfStat(*st)) return *a;
  SchedAttr a;
  a.policy = kSchedDeadline;
  if (auto sched = reads_.Read(kpath::TaskSched(t.pid, t.tid))) {
    auto dl = DeadlineLines(*sched);
    if (dl.count("dl.runtime")) a.runtime_ns = dl["dl.runtime"];
    if (dl.count("dl.deadline")) a.deadline_ns = dl["dl.deadline"];
    // The kernel does not print the period; the twin keeps it on a line of its own.
    if (dl.count("dl.period")) a.period_ns = dl["dl.period"];
  }
  return a;
}

Result<void> FixtureSchedSyscalls::SetAttr(const TaskId& t, const SchedAttr& a) {
  if (writes_ == nullptr) return MakeError("read-only root: cannot set thread " + TaskKey(t), EROFS);
  // The checks sched_setattr(2) makes (kernel/sched/syscalls.c, __checkparam_dl).
  bool rt = a.policy == kSchedFifo || a.policy == kSchedRr;
  bool normal = a.policy == kSchedOther || a.policy == kSchedBatch || a.policy == kSchedIdle;
  bool dl = a.policy == kSchedDeadline;
  // A fixture's deadline thread may lack a parameter the kernel never printed ("?"): only the
  // known ones are checked, so such a thread can be put back as it was.
  auto known_below = [](long long lo, long long hi) { return lo >= 0 && hi >= 0 && hi < lo; };
  bool bad_dl = dl && ((a.runtime_ns >= 0 && a.runtime_ns < 1024) || known_below(a.runtime_ns, a.deadline_ns) ||
                       known_below(a.deadline_ns, a.period_ns) || known_below(a.runtime_ns, a.period_ns));
  const bool bad = (rt && (a.priority < 1 || a.priority > 99)) || (normal && (a.nice < -20 || a.nice > 19)) ||
                   (!rt && !normal && !dl) || bad_dl;
  const std::string stat_path = kpath::TaskStat(t.pid, t.tid);
  int old_policy = kSchedOther;
  // The stat line is read and rewritten in one go. The kernel finds the thread (ESRCH, from a
  // failed read) before it checks the parameters (EINVAL, from the edit, which then writes nothing).
  auto edit = [&](const std::string& text) -> Result<std::string> {
    if (bad) {
      return MakeError("sched_setattr(" + std::to_string(t.tid) + ", " + FormatSched(a) + ") under " + reads_.Dir(), EINVAL);
    }
    auto st = ParseTaskStat(text);
    if (!st) return MakeError(reads_.Dir() + " " + stat_path + ": malformed stat line", EINVAL);
    old_policy = st->policy;
    // fs/proc/array.c: field 18 is p->prio - MAX_RT_PRIO: -1 - rt_priority for fifo/rr, -101
    // for deadline, 20 + nice otherwise; field 19 is the nice value.
    long prio = rt ? -1 - a.priority : dl ? -101 : 20 + a.nice;
    long nice = normal ? a.nice : st->nice;
    return RewriteStatFields(text, {{18, std::to_string(prio)},
                                    {19, std::to_string(nice)},
                                    {40, std::to_string(rt ? a.priority : 0)},
                                    {41, std::to_string(a.policy)}});
  };
  if (auto w = EditFixtureFile(*writes_, stat_path, edit); !w) return Missing(t, w.error());
  // The sched file shows dl.* lines only for a deadline thread: from one class other than
  // deadline to another, it has none to write or take away.
  if (!dl && old_policy != kSchedDeadline) return Ok();
  return WriteDeadlineLines(t, a);
}

// The sched file shows dl.* lines only for a deadline thread (kernel/sched/debug.c): written
// for one, taken away from one that is no longer.
Result<void> FixtureSchedSyscalls::WriteDeadlineLines(const TaskId& t, const SchedAttr& a) {
  const bool dl = a.policy == kSchedDeadline;
  const std::string sched_path = kpath::TaskSched(t.pid, t.tid);
  auto sched = reads_.Read(sched_path);
  if (!sched && !dl) return Ok();
  std::string old = sched ? *sched : std::string();
  bool final_newline = old.empty() || old.back() == '\n';
  std::vector<std::string> lines;
  for (auto l : SplitLines(old)) lines.emplace_back(l);
  std::vector<std::pair<std::string, long long>> want;
  if (dl) {
    if (a.runtime_ns >= 0) want.push_back({"dl.runtime", a.runtime_ns});
    if (a.deadline_ns >= 0) want.push_back({"dl.deadline", a.deadline_ns});
    if (a.period_ns >= 0) want.push_back({"dl.period", a.period_ns});
  }
  std::vector<std::string> out;
  std::map<std::string, long long> pending(want.begin(), want.end());
  bool dropped = false;
  for (const auto& l : lines) {
    size_t colon = l.find(':');
    std::string key = colon == std::string::npos ? "" : Trim(std::string_view(l).substr(0, colon));
    if (key.rfind("dl.", 0) != 0) {
      out.push_back(l);
      continue;
    }
    auto it = pending.find(key);
    if (it == pending.end()) {  // not a deadline thread any more: the line goes
      dropped = true;
      continue;
    }
    out.push_back(SchedLine(key, it->second));
    pending.erase(it);
  }
  for (const auto& [key, v] : want) {
    if (pending.count(key)) out.push_back(SchedLine(key, v));
  }
  if (!dl && !dropped) return Ok();
  // A file the twin made only for the dl.* lines goes with them.
  if (out.empty()) return writes_->Remove(sched_path);
  std::string joined;
  for (size_t i = 0; i < out.size(); ++i) joined += (i ? "\n" : "") + out[i];
  if (final_newline) joined += "\n";
  if (joined == old) return Ok();
  return sched ? writes_->Write(sched_path, joined) : writes_->WriteDurable(sched_path, joined);
}

Result<CpuSet> FixtureSchedSyscalls::GetAffinity(const TaskId& t) const {
  const std::string path = kpath::TaskStatus(t.pid, t.tid);
  auto status = reads_.Read(path);
  if (!status) {
    // A fixture may keep status only for some threads: the others have the affinity every
    // thread starts with, all possible CPUs.
    if (status.error().err != ENOENT) return status.error();
    if (auto r = CheckExists(t); !r) return r.error();
    auto possible = reads_.Read(kpath::kCpuPossible);
    if (!possible) return MakeError(reads_.Dir() + " " + path + ": no status, and no possible CPUs to assume", ENOENT);
    auto all = CpuSet::ParseList(*possible);
    if (!all) return MakeError(reads_.Dir() + " " + kpath::kCpuPossible + ": " + all.error().message, EINVAL);
    return *all;
  }
  auto list = FindKeyValue(*status, "Cpus_allowed_list");
  if (!list) return MakeError(reads_.Dir() + " " + path + ": no Cpus_allowed_list", ENOENT);
  auto cpus = CpuSet::ParseList(*list);
  if (!cpus) return MakeError(reads_.Dir() + " " + path + ": " + cpus.error().message, EINVAL);
  return *cpus;
}

Result<void> FixtureSchedSyscalls::SetAffinity(const TaskId& t, const CpuSet& cpus) {
  if (writes_ == nullptr) return MakeError("read-only root: cannot set thread " + TaskKey(t), EROFS);
  // The thread is found (ESRCH) before the mask is checked (EINVAL), as the kernel does.
  auto stat_text = reads_.Read(kpath::TaskStat(t.pid, t.tid));
  if (!stat_text) {
    if (auto gone = Missing(t, stat_text.error()); gone.err == ESRCH) return gone;
  }
  const std::string where = "sched_setaffinity(" + std::to_string(t.tid) + ", " + cpus.ToList() + ") under " + reads_.Dir();
  if (cpus.Empty()) return MakeError(where, EINVAL);
  // A per-CPU kernel thread (PF_NO_SETAFFINITY) is refused with EINVAL (kernel/sched/core.c,
  // __sched_setaffinity's caller checks the flag).
  if (stat_text) {
    if (auto st = ParseTaskStat(*stat_text); st && (st->flags & kPfNoSetaffinity) != 0) {
      return MakeError(where + ": per-CPU kernel thread", EINVAL);
    }
  }
  const std::string path = kpath::TaskStatus(t.pid, t.tid);
  auto status = reads_.Read(path);
  if (!status) {
    if (status.error().err != ENOENT) return status.error();
    // No status in the fixture (see GetAffinity): back to all possible CPUs is no change; any
    // other set gets a status file of its own, which that same "no change" takes away again.
    auto possible = reads_.Read(kpath::kCpuPossible);
    auto all = possible ? CpuSet::ParseList(*possible) : Result<CpuSet>(possible.error());
    if (all && *all == cpus) return Ok();
    int bits = all ? all->Max() + 1 : 0;
    return writes_->WriteDurable(path, "Cpus_allowed:\t" + cpus.ToMask(bits) + "\nCpus_allowed_list:\t" + cpus.ToList() + "\n");
  }
  std::string text = *status;
  int bits = 0;
  if (auto mask = FindKeyValue(text, "Cpus_allowed")) bits = MaskBits(*mask);
  if (!ReplaceKeyValue(text, "Cpus_allowed_list", cpus.ToList())) {
    return MakeError(reads_.Dir() + " " + path + ": no Cpus_allowed_list", ENOENT);
  }
  ReplaceKeyValue(text, "Cpus_allowed", cpus.ToMask(bits));
  // A status file the twin made holds only these two lines: back to all CPUs, it goes.
  if (text.rfind("Cpus_allowed:", 0) == 0 && std::count(text.begin(), text.end(), '\n') == 2) {
    auto possible = reads_.Read(kpath::kCpuPossible);
    auto all = possible ? CpuSet::ParseList(*possible) : Result<CpuSet>(possible.error());
    if (all && *all == cpus) return writes_->Remove(path);
  }
  return writes_->Write(path, text);
}

}  // namespace rtagent

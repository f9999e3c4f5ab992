// ranks: the threads as they run now against the profile's declared rank order, no
// real-time thread spinning without sleep, and the per-CPU kernel threads that must not
// starve (ktimers, ksoftirqd, rcuc, watchdog) getting the CPU. Real-Time Linux, Chapter 2
// (a ranked program that never sleeps; RT throttling and the fair server) and Chapter 4
// (threaded IRQs start at 50; the one feeding the loop above it, the loop above the rest).
//
// What the window measures (Documentation/scheduler/sched-stats.rst, /proc/PID/schedstat):
// each thread's time on a CPU and its time runnable but waiting on a run queue, plus its
// voluntary context switches (/proc/PID/status), read before and after a short wait
// (checks.ranks.window, default 1s).
// A FIFO/RR thread that ran for half the window or more and never slept is spinning; a
// watched kernel thread that waited runnable for half the window or more is starving.
#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"
#include "check/chapters.h"
#include "check/check.h"
#include "check/kernel_log.h"
#include "inspect/threads.h"
#include "profile/duration.h"
#include "tune/ranks_tuner.h"

namespace rtagent::check {
namespace {

const std::string& kChapterOrder = kChapter4;  // "Ranks are now your job"
const std::string& kChapterSpin = kChapter2;   // "The danger: a ranked program that never sleeps"

// checks.ranks in the profile: the schedstat window for spinning and starving threads (no
// suite sets it).
struct RanksSettings {
  profile::Marked<bool> enabled;
  profile::Marked<Duration> window;
};

const profile::CheckBlock<RanksSettings>& Settings() {
  static const profile::CheckBlock<RanksSettings> kSettings{
      "ranks",
      "the live threads follow `ranks.order`; no real-time thread spins, no watched kernel thread starves",
      {profile::Dur("window", &RanksSettings::window, std::chrono::milliseconds(100), std::chrono::seconds(1),
                    "how long schedstat is sampled")}};
  return kSettings;
}

const CheckInfo& RanksInfo() {
  static const CheckInfo kInfo{
      .name = "ranks",
      .title = "threads and ranks: the declared order, no spinning, no starving",
      .chapters = "2, 4",
      .live_window = true,
      .settings = &Settings(),
      .window = WindowSetting{[](const profile::Profile& p) -> const profile::Marked<Duration>& {
                                return Settings().Of(p).window;
                              },
                              std::nullopt}};
  return kInfo;
}
constexpr double kShare = 0.5;  // of the window: running without a sleep, or waiting runnable
constexpr const char* kThrottleLine = "sched: RT throttling activated";

CheckResult Make(Status s, const std::string& id, std::string summary, const std::string& chapter) {
  CheckResult r;
  r.check = "ranks";
  r.id = id;
  r.status = s;
  r.summary = std::move(summary);
  r.chapter = chapter;
  return r;
}

/// A thread's place as the scheduler orders classes: deadline above every fifo/rr priority,
/// those above every normal thread, idle last.
struct Rank {
  int level = 0;
  std::string text;
};

Rank RankOf(const TaskView& t) {
  switch (t.policy) {
    case kSchedDeadline: return {1000, "deadline"};
    case kSchedFifo:
    case kSchedRr: return {static_cast<int>(t.rt_priority), PolicyName(t.policy) + " " + std::to_string(t.rt_priority)};
    case kSchedIdle: return {-1, "idle"};
    default: return {0, PolicyName(t.policy)};
  }
}

std::string Who(const TaskView& t) {
  if (t.pid == t.tid) return t.comm + " (pid " + std::to_string(t.pid) + ", " + RankOf(t).text + ")";
  return t.comm + " (tid " + std::to_string(t.tid) + " of " + t.process_comm + ", " + RankOf(t).text + ")";
}

std::string Join(const std::vector<std::string>& items, size_t most = 5) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < most; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > most) out += " and " + std::to_string(items.size() - most) + " more";
  return out;
}

std::string Percent(double share) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f%%", share * 100);
  return buf;
}

// ---- the declared order, on the live threads
std::vector<CheckResult> CheckOrder(const CheckEnv& env, const std::vector<TaskView>& tasks) {
  const profile::RanksConfig& cfg = env.profile.ranks;
  const std::vector<std::string>& order = *cfg.order;
  if (order.empty()) {
    return {Make(Status::kSkip, "ranks.order", "the profile declares no rank order (ranks.order is empty)", kChapterOrder)};
  }
  auto rule_index = [&](const std::string& name) -> int {
    for (size_t r = 0; r < cfg.rules.size(); ++r) {
      if (cfg.rules[r].name == name) return static_cast<int>(r);
    }
    return -1;
  };
  // Each thread belongs to the first rule (in file order) that matches it, as the tuner decides.
  std::vector<std::vector<size_t>> members(cfg.rules.size());
  std::vector<int> rule_of(tasks.size(), -1);
  for (size_t i = 0; i < tasks.size(); ++i) {
    for (size_t r = 0; r < cfg.rules.size(); ++r) {
      if (RankRuleMatches(cfg.rules[r], tasks[i])) {
        members[r].push_back(i);
        rule_of[i] = static_cast<int>(r);
        break;
      }
    }
  }
  auto mark = [&](size_t pos) { return pos < cfg.order_marks.size() ? cfg.order_marks[pos] : cfg.order.mark; };

  std::vector<CheckResult> out;
  std::vector<std::string> held;
  for (size_t pos = 0; pos < order.size(); ++pos) {
    int r = rule_index(order[pos]);
    if (r < 0) continue;  // validate reports it
    if (members[static_cast<size_t>(r)].empty()) {
      CheckResult w = Make(Status::kWarn, "ranks.order", "rank \"" + order[pos] + "\" matches no running thread, so its "
                                                             "place in ranks.order cannot be checked",
                           kChapterOrder);
      w.mark = mark(pos);
      w.hint = "start the program it names, or correct the rule's threads/process/cmdline pattern";
      out.push_back(std::move(w));
    }
  }
  // Every thread of a rank must outrank every thread of the next rank in the order.
  for (size_t pos = 0; pos + 1 < order.size(); ++pos) {
    int hi = rule_index(order[pos]);
    int lo = rule_index(order[pos + 1]);
    if (hi < 0 || lo < 0) continue;
    const auto& his = members[static_cast<size_t>(hi)];
    const auto& los = members[static_cast<size_t>(lo)];
    if (his.empty() || los.empty()) continue;
    size_t weakest = *std::min_element(his.begin(), his.end(),
                                       [&](size_t a, size_t b) { return RankOf(tasks[a]).level < RankOf(tasks[b]).level; });
    size_t strongest = *std::max_element(
        los.begin(), los.end(), [&](size_t a, size_t b) { return RankOf(tasks[a]).level < RankOf(tasks[b]).level; });
    if (RankOf(tasks[weakest]).level > RankOf(tasks[strongest]).level) {
      held.push_back(order[pos] + " (" + RankOf(tasks[weakest]).text + ") > " + order[pos + 1] + " (" +
                     RankOf(tasks[strongest]).text + ")");
      continue;
    }
    CheckResult f = Make(Status::kFail, "ranks.order",
                         "ranks.order puts \"" + order[pos] + "\" above \"" + order[pos + 1] + "\", but " +
                             Who(tasks[weakest]) + " does not outrank " + Who(tasks[strongest]),
                         kChapterOrder);
    f.measured = RankOf(tasks[weakest]).text + " vs " + RankOf(tasks[strongest]).text;
    f.limit = "\"" + order[pos] + "\" strictly above \"" + order[pos + 1] + "\"";
    f.mark = mark(pos);
    f.hint = "run `rtagent apply` (something reset the ranks: a restarted program, a new IRQ thread), or fix the "
             "priorities; the IRQ thread that feeds a loop must rank above the loop";
    out.push_back(std::move(f));
  }
  // The loop, the highest rank of user threads in a real-time class, must outrank every IRQ
  // thread not declared above it: only the one that feeds it belongs higher (Chapter 4's
  // trap). User ranks below the loop (a logger, a comms thread) may sit below IRQ threads.
  for (size_t pos = 0; pos < order.size(); ++pos) {
    int r = rule_index(order[pos]);
    if (r < 0) continue;
    const auto& loop = members[static_cast<size_t>(r)];
    if (loop.empty() || std::any_of(loop.begin(), loop.end(), [&](size_t i) { return tasks[i].Kthread(); })) continue;
    size_t weakest = *std::min_element(
        loop.begin(), loop.end(), [&](size_t a, size_t b) { return RankOf(tasks[a]).level < RankOf(tasks[b]).level; });
    Rank loop_rank = RankOf(tasks[weakest]);
    if (loop_rank.level <= 0) continue;
    std::vector<std::string> offenders;
    for (size_t i = 0; i < tasks.size(); ++i) {
      if (!tasks[i].IrqThread()) continue;
      bool declared_above = false;
      for (size_t above = 0; above < pos; ++above) declared_above |= rule_of[i] >= 0 && rule_index(order[above]) == rule_of[i];
      if (declared_above || RankOf(tasks[i]).level < loop_rank.level) continue;
      offenders.push_back(tasks[i].comm + " (" + RankOf(tasks[i]).text + ")");
    }
    if (offenders.empty()) {
      held.push_back(order[pos] + " (" + loop_rank.text + ") above every IRQ thread not declared above it");
      break;
    }
    CheckResult f = Make(Status::kFail, "ranks.order",
                         "rank \"" + order[pos] + "\" (" + Who(tasks[weakest]) + ") does not outrank " +
                             std::to_string(offenders.size()) + " IRQ thread" + (offenders.size() == 1 ? "" : "s") +
                             " not declared above it: " + Join(offenders),
                         kChapterOrder);
    f.measured = loop_rank.text + " vs " + Join(offenders, 1);
    f.limit = "only the IRQ threads declared above \"" + order[pos] + "\" in ranks.order may outrank it";
    f.mark = mark(pos);
    f.hint = "leave other IRQ threads at FIFO 50, below the loop; declare the IRQ thread that feeds the loop above it";
    out.push_back(std::move(f));
    break;
  }
  if (std::none_of(out.begin(), out.end(), [](const CheckResult& c) { return c.status == Status::kFail; }) &&
      !held.empty()) {
    CheckResult p = Make(Status::kPass, "ranks.order", "the declared rank order holds on the running threads", kChapterOrder);
    p.measured = Join(held, 8);
    p.mark = cfg.order.mark;
    out.insert(out.begin(), std::move(p));
  }
  return out;
}

// ---- RT throttling in the kernel log
CheckResult CheckThrottleLog(const CheckEnv& env) {
  auto log = ReadKernelLog(env.root);
  if (!log) {
    return Make(Status::kSkip, "ranks.throttling", "not looked for RT throttling: " + log.error().message, kChapterSpin);
  }
  std::string found;
  for (auto line : SplitLines(*log)) {
    if (line.find(kThrottleLine) != std::string_view::npos) {
      found = Trim(line);
      break;
    }
  }
  const bool fair_server = env.state.kernel && env.state.kernel->safety_net.active == "fair_server";
  if (!found.empty()) {
    CheckResult w = Make(Status::kWarn, "ranks.throttling",
                         "the kernel throttled real-time threads since boot: a real-time thread ran without "
                         "sleeping until the safety net stopped it (the line is written once per boot)",
                         kChapterSpin);
    w.measured = found;
    w.hint = "find the thread that spins (the spinning result below, or chrt/top on the CPU) and make it sleep "
             "until its next beat, or give it a deadline budget";
    return w;
  }
  std::string s = std::string("no \"") + kThrottleLine + "\" in the kernel log";
  if (fair_server) {
    s += "; on this kernel the fair server keeps normal tasks alive and writes no such line, so its silence "
         "proves nothing (the window measure below does)";
  }
  CheckResult p = Make(Status::kPass, "ranks.throttling", s, kChapterSpin);
  p.measured = "0 lines";
  return p;
}

// ---- the window: spinning real-time threads, starving watchdog threads
struct Sample {
  long long run_ns = 0;
  long long wait_ns = 0;
  std::optional<long long> voluntary;
};

std::optional<Sample> ReadSample(const SysRoot& root, const TaskView& t) {
  auto stat = root.Read(kpath::TaskSchedstat(t.pid, t.tid));
  if (!stat) return std::nullopt;
  auto words = SplitWs(*stat);
  if (words.size() < 2) return std::nullopt;
  auto run = ParseInt(words[0]);
  auto wait = ParseInt(words[1]);
  if (!run || !wait) return std::nullopt;
  Sample s{*run, *wait, std::nullopt};
  if (auto status = root.Read(kpath::TaskStatus(t.pid, t.tid))) {
    if (auto v = FindKeyValue(*status, "voluntary_ctxt_switches")) {
      if (auto n = ParseInt(*v)) s.voluntary = *n;
    }
  }
  return s;
}

/// The kernel threads that must get their turn: the timer and softirq threads PREEMPT_RT
/// runs at FIFO 1 or as normal tasks, RCU's callback threads, the old per-CPU watchdogs,
/// and stalld, which itself rescues starved threads.
bool Watched(const TaskView& t) {
  if (t.Kthread()) {
    for (const char* p : {"ktimers/", "ksoftirqd/", "rcuc/", "watchdog/"}) {
      if (t.comm.rfind(p, 0) == 0) return true;
    }
    return false;
  }
  return t.process_comm == "stalld" && t.pid == t.tid;
}

std::vector<CheckResult> CheckWindow(CheckEnv& env, const std::vector<TaskView>& tasks) {
  std::vector<const TaskView*> rt, watched;
  for (const TaskView& t : tasks) {
    if (t.policy == kSchedFifo || t.policy == kSchedRr) rt.push_back(&t);
    if (Watched(t)) watched.push_back(&t);
  }
  std::vector<const TaskView*> all = rt;
  for (const TaskView* t : watched) {
    if (std::find(all.begin(), all.end(), t) == all.end()) all.push_back(t);
  }
  const Duration window = env.Window(RanksInfo());
  const std::string window_text = profile::FormatDuration(window);  // as the profile spells it: "1s", "250ms"
  if (all.empty()) {
    return {Make(Status::kSkip, "ranks.spinning", "no real-time thread runs, so none can spin", kChapterSpin),
            Make(Status::kSkip, "ranks.starvation", "no watched kernel thread (ktimers, ksoftirqd, rcuc, watchdog, stalld) runs",
                 kChapterSpin)};
  }
  std::map<const TaskView*, Sample> before;
  for (const TaskView* t : all) {
    if (auto s = ReadSample(env.root, *t)) before[t] = *s;
  }
  if (before.empty()) {
    std::string why = "no thread's schedstat can be read (" + kpath::TaskSchedstat(all.front()->pid, all.front()->tid) +
                      ": the kernel needs CONFIG_SCHED_INFO)";
    return {Make(Status::kSkip, "ranks.spinning", "not measured: " + why, kChapterSpin),
            Make(Status::kSkip, "ranks.starvation", "not measured: " + why, kChapterSpin)};
  }
  if (!env.wait(window)) {
    return {Make(Status::kSkip, "ranks.spinning", "interrupted before the " + window_text + " window ended", kChapterSpin),
            Make(Status::kSkip, "ranks.starvation", "interrupted before the " + window_text + " window ended", kChapterSpin)};
  }
  const double window_ns = static_cast<double>(window.count());
  std::vector<std::string> spinning, starving;
  int rt_seen = 0, watched_seen = 0;
  for (const TaskView* t : all) {
    auto b = before.find(t);
    if (b == before.end()) continue;
    auto a = ReadSample(env.root, *t);
    if (!a) continue;  // exited during the window
    const double ran = static_cast<double>(a->run_ns - b->second.run_ns) / window_ns;
    const double waited = static_cast<double>(a->wait_ns - b->second.wait_ns) / window_ns;
    const bool slept = a->voluntary && b->second.voluntary && *a->voluntary > *b->second.voluntary;
    const bool is_rt = t->policy == kSchedFifo || t->policy == kSchedRr;
    if (is_rt) {
      ++rt_seen;
      if (ran >= kShare && !slept) spinning.push_back(Who(*t) + " ran " + Percent(ran) + " of " + window_text + " without sleeping");
    }
    if (Watched(*t)) {
      ++watched_seen;
      if (waited >= kShare) starving.push_back(Who(*t) + " waited runnable " + Percent(waited) + " of " + window_text);
    }
  }
  std::vector<CheckResult> out;
  if (rt_seen == 0) {
    out.push_back(Make(Status::kSkip, "ranks.spinning", "no real-time thread could be measured", kChapterSpin));
  } else if (spinning.empty()) {
    CheckResult p = Make(Status::kPass, "ranks.spinning",
                         "no real-time thread ran half of " + window_text + " or more without sleeping", kChapterSpin);
    p.measured = std::to_string(rt_seen) + " real-time threads measured";
    out.push_back(std::move(p));
  } else {
    CheckResult f = Make(Status::kFail, "ranks.spinning",
                         std::to_string(spinning.size()) + " real-time thread" + (spinning.size() == 1 ? "" : "s") +
                             " spin without sleeping: " + Join(spinning),
                         kChapterSpin);
    f.measured = spinning.front();
    f.limit = "sleeps at least once per " + window_text + " (runs under " + Percent(kShare) + " otherwise)";
    f.hint = "a ranked loop must sleep until its next beat (clock_nanosleep TIMER_ABSTIME); a busy-polling design "
             "belongs on an isolated CPU with nothing else to starve";
    out.push_back(std::move(f));
  }
  if (watched_seen == 0) {
    out.push_back(Make(Status::kSkip, "ranks.starvation",
                       "no watched kernel thread (ktimers, ksoftirqd, rcuc, watchdog, stalld) could be measured", kChapterSpin));
  } else if (starving.empty()) {
    CheckResult p = Make(Status::kPass, "ranks.starvation",
                         "every watched kernel thread got the CPU: none waited runnable half of " + window_text + " or more",
                         kChapterSpin);
    p.measured = std::to_string(watched_seen) + " threads measured";
    out.push_back(std::move(p));
  } else {
    CheckResult f = Make(Status::kFail, "ranks.starvation",
                         std::to_string(starving.size()) + " kernel thread" + (starving.size() == 1 ? "" : "s") +
                             " starved by higher ranks: " + Join(starving),
                         kChapterSpin);
    f.measured = starving.front();
    f.limit = "runnable-but-waiting under " + Percent(kShare) + " of the window";
    f.hint = "something ranked above them runs without sleeping on that CPU; keep the safety net (RT throttling or "
             "the fair server) on CPUs that are not isolated, or run stalld";
    out.push_back(std::move(f));
  }
  return out;
}

class RanksCheck : public Check {
 public:
  const CheckInfo& Info() const override { return RanksInfo(); }

  std::vector<CheckResult> Run(CheckEnv& env) const override {
    const auto& rules = env.profile.ranks.rules;
    bool cmdlines = std::any_of(rules.begin(), rules.end(), [](const auto& r) { return r.cmdline->has_value(); });
    const std::vector<TaskView> tasks = ListTasks(env.root, cmdlines);
    if (tasks.empty()) {
      return {Make(Status::kSkip, "ranks", "no thread can be read under " + env.root.Dir() + " " + kpath::kProc, kChapterOrder)};
    }
    std::vector<CheckResult> out = CheckOrder(env, tasks);
    out.push_back(CheckThrottleLog(env));
    auto window = CheckWindow(env, tasks);
    out.insert(out.end(), window.begin(), window.end());
    return out;
  }
};

}  // namespace

std::unique_ptr<Check> MakeRanksCheck() { return std::make_unique<RanksCheck>(); }

}  // namespace rtagent::check

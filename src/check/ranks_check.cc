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

#include "base/count_text.h"
#include "base/kernel_paths.h"
#include "base/kernel_text.h"
#include "check/chapters.h"
#include "check/check.h"
#include "check/kernel_log.h"
#include "inspect/threads.h"
#include "profile/duration.h"
#include "tune/rank_match.h"
#include "tune/rank_order.h"

namespace rtagent::check {
namespace {

constexpr const char* kChapterOrder = kChapter4;  // "Ranks are now your job"
constexpr const char* kChapterSpin = kChapter2;  // "The danger: a ranked program that never sleeps"

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
  return NewResult("ranks", id, s, std::move(summary), chapter);
}

std::string Who(const TaskView& t) {
  const std::string rank = LiveRank(t).text;
  if (t.pid == t.tid) return t.comm + " (pid " + std::to_string(t.pid) + ", " + rank + ")";
  return t.comm + " (tid " + std::to_string(t.tid) + " of " + t.process_comm + ", " + rank + ")";
}

std::string Percent(double share) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f%%", share * 100);
  return buf;
}

// ---- the declared order, on the live threads

// A rank of ranks.order that matches no running thread: its place cannot be checked.
std::vector<CheckResult> UnmatchedRanks(const profile::RanksConfig& cfg, const RankMembers& m) {
  std::vector<CheckResult> out;
  const std::vector<std::string>& order = *cfg.order;
  for (size_t pos = 0; pos < order.size(); ++pos) {
    for (size_t r = 0; r < cfg.rules.size(); ++r) {
      if (cfg.rules[r].name != order[pos] || !m.members[r].empty()) continue;
      CheckResult w = Make(Status::kWarn, "ranks.order", "rank \"" + order[pos] + "\" matches no running thread, so its "
                                                             "place in ranks.order cannot be checked",
                           kChapterOrder);
      w.mark = OrderMark(cfg, pos);
      w.hint = "start the program it names, or correct the rule's threads/process/cmdline pattern";
      out.push_back(std::move(w));
      break;
    }
  }
  return out;
}

CheckResult PairFailed(const profile::RanksConfig& cfg, const std::vector<TaskView>& tasks, const OrderPair& p) {
  const std::vector<std::string>& order = *cfg.order;
  const TaskView& weak = tasks[p.weakest];
  const TaskView& strong = tasks[p.strongest];
  CheckResult f = Make(Status::kFail, "ranks.order",
                       "ranks.order puts \"" + order[p.pos] + "\" above \"" + order[p.pos + 1] + "\", but " + Who(weak) +
                           " does not outrank " + Who(strong),
                       kChapterOrder);
  f.measured = LiveRank(weak).text + " vs " + LiveRank(strong).text;
  f.limit = "\"" + order[p.pos] + "\" strictly above \"" + order[p.pos + 1] + "\"";
  f.mark = OrderMark(cfg, p.pos);
  f.hint = "run `rtagent apply` (something reset the ranks: a restarted program, a new IRQ thread), or fix the "
           "priorities; the IRQ thread that feeds a loop must rank above the loop";
  return f;
}

CheckResult LoopFailed(const profile::RanksConfig& cfg, const std::vector<TaskView>& tasks, const LoopVerdict& loop) {
  const std::string& name = (*cfg.order)[loop.pos];
  std::vector<std::string> offenders;
  for (size_t i : loop.offenders) offenders.push_back(tasks[i].comm + " (" + LiveRank(tasks[i]).text + ")");
  CheckResult f = Make(Status::kFail, "ranks.order",
                       "rank \"" + name + "\" (" + Who(tasks[loop.weakest]) + ") does not outrank " +
                           CountOf(offenders.size(), "IRQ thread", "IRQ threads") +
                           " not declared above it: " + JoinSome(offenders, 5),
                       kChapterOrder);
  f.measured = LiveRank(tasks[loop.weakest]).text + " vs " + JoinSome(offenders, 1);
  f.limit = "only the IRQ threads declared above \"" + name + "\" in ranks.order may outrank it";
  f.mark = OrderMark(cfg, loop.pos);
  f.hint = "leave other IRQ threads at FIFO 50, below the loop; declare the IRQ thread that feeds the loop above it";
  return f;
}

std::vector<CheckResult> CheckOrder(const CheckEnv& env, const std::vector<TaskView>& tasks) {
  const profile::RanksConfig& cfg = env.profile.ranks;
  const std::vector<std::string>& order = *cfg.order;
  if (order.empty()) {
    return {Make(Status::kSkip, "ranks.order", "the profile declares no rank order (ranks.order is empty)", kChapterOrder)};
  }
  const RankMembers m = MatchRanks(cfg.rules, tasks);
  std::vector<Rank> rank;
  rank.reserve(tasks.size());
  for (const TaskView& t : tasks) rank.push_back(LiveRank(t));
  const ThreadOrder judged = JudgeThreadOrder(cfg, tasks, m, rank);

  std::vector<CheckResult> out = UnmatchedRanks(cfg, m);
  std::vector<std::string> held;
  for (const OrderPair& p : judged.pairs) {
    if (!p.holds) {
      out.push_back(PairFailed(cfg, tasks, p));
      continue;
    }
    held.push_back(order[p.pos] + " (" + rank[p.weakest].text + ") > " + order[p.pos + 1] + " (" +
                   rank[p.strongest].text + ")");
  }
  if (judged.loop && !judged.loop->offenders.empty()) {
    out.push_back(LoopFailed(cfg, tasks, *judged.loop));
  } else if (judged.loop) {
    held.push_back(order[judged.loop->pos] + " (" + rank[judged.loop->weakest].text +
                   ") above every IRQ thread not declared above it");
  }
  if (std::none_of(out.begin(), out.end(), [](const CheckResult& c) { return c.status == Status::kFail; }) &&
      !held.empty()) {
    CheckResult p = Make(Status::kPass, "ranks.order", "the declared rank order holds on the running threads", kChapterOrder);
    p.measured = JoinSome(held, 8);
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

// What a window found: who spun, who starved, and how many of each kind were measured.
struct WindowFindings {
  int rt_seen = 0;
  int watched_seen = 0;
  std::vector<std::string> spinning;
  std::vector<std::string> starving;
};

bool IsRt(const TaskView& t) { return t.policy == kSchedFifo || t.policy == kSchedRr; }

// Each thread's sample after the window against the one before it.
WindowFindings CompareSamples(const SysRoot& root, const std::vector<const TaskView*>& threads,
                              const std::map<const TaskView*, Sample>& before, Duration window) {
  const std::string window_text = profile::FormatDuration(window);  // as the profile spells it: "1s", "250ms"
  const double window_ns = static_cast<double>(window.count());
  WindowFindings w;
  for (const TaskView* t : threads) {
    auto b = before.find(t);
    if (b == before.end()) continue;
    auto a = ReadSample(root, *t);
    if (!a) continue;  // exited during the window
    const double ran = static_cast<double>(a->run_ns - b->second.run_ns) / window_ns;
    const double waited = static_cast<double>(a->wait_ns - b->second.wait_ns) / window_ns;
    const bool slept = a->voluntary && b->second.voluntary && *a->voluntary > *b->second.voluntary;
    if (IsRt(*t)) {
      ++w.rt_seen;
      if (ran >= kShare && !slept) w.spinning.push_back(Who(*t) + " ran " + Percent(ran) + " of " + window_text + " without sleeping");
    }
    if (Watched(*t)) {
      ++w.watched_seen;
      if (waited >= kShare) w.starving.push_back(Who(*t) + " waited runnable " + Percent(waited) + " of " + window_text);
    }
  }
  return w;
}

// The words of one window result: ranks.spinning or ranks.starvation.
struct WindowWords {
  std::string id;
  std::string none;     ///< SKIP: no such thread could be measured
  std::string pass;     ///< PASS summary
  std::string counted;  ///< "N <counted>" is the PASS figure
  std::string noun;     ///< "N <noun>s <verdict>: who, who"
  std::string verdict;
  std::string limit;
  std::string hint;
};

CheckResult WindowResult(const WindowWords& w, int seen, const std::vector<std::string>& found) {
  if (seen == 0) return Make(Status::kSkip, w.id, w.none, kChapterSpin);
  if (found.empty()) {
    CheckResult p = Make(Status::kPass, w.id, w.pass, kChapterSpin);
    p.measured = std::to_string(seen) + " " + w.counted;
    return p;
  }
  CheckResult f = Make(Status::kFail, w.id,
                       CountOf(found.size(), w.noun, w.noun + "s") + " " + w.verdict +
                           ": " + JoinSome(found, 5),
                       kChapterSpin);
  f.measured = found.front();
  f.limit = w.limit;
  f.hint = w.hint;
  return f;
}

std::vector<CheckResult> WindowResults(const WindowFindings& found, const std::string& window_text) {
  return {WindowResult({"ranks.spinning", "no real-time thread could be measured",
                        "no real-time thread ran half of " + window_text + " or more without sleeping",
                        "real-time threads measured", "real-time thread", "spin without sleeping",
                        "sleeps at least once per " + window_text + " (runs under " + Percent(kShare) + " otherwise)",
                        "a ranked loop must sleep until its next beat (clock_nanosleep TIMER_ABSTIME); a busy-polling "
                        "design belongs on an isolated CPU with nothing else to starve"},
                       found.rt_seen, found.spinning),
          WindowResult({"ranks.starvation",
                        "no watched kernel thread (ktimers, ksoftirqd, rcuc, watchdog, stalld) could be measured",
                        "every watched kernel thread got the CPU: none waited runnable half of " + window_text + " or more",
                        "threads measured", "kernel thread", "starved by higher ranks",
                        "runnable-but-waiting under " + Percent(kShare) + " of the window",
                        "something ranked above them runs without sleeping on that CPU; keep the safety net (RT "
                        "throttling or the fair server) on CPUs that are not isolated, or run stalld"},
                       found.watched_seen, found.starving)};
}

std::vector<CheckResult> SkipWindow(const std::string& spinning, const std::string& starvation) {
  return {Make(Status::kSkip, "ranks.spinning", spinning, kChapterSpin),
          Make(Status::kSkip, "ranks.starvation", starvation, kChapterSpin)};
}

std::vector<CheckResult> CheckWindow(CheckEnv& env, const std::vector<TaskView>& tasks) {
  // 1. The threads to measure: every FIFO/RR thread, then the watched ones not among them.
  std::vector<const TaskView*> threads;
  for (const TaskView& t : tasks) {
    if (IsRt(t)) threads.push_back(&t);
  }
  for (const TaskView& t : tasks) {
    if (Watched(t) && !IsRt(t)) threads.push_back(&t);
  }
  if (threads.empty()) {
    return SkipWindow("no real-time thread runs, so none can spin",
                      "no watched kernel thread (ktimers, ksoftirqd, rcuc, watchdog, stalld) runs");
  }
  // No window on a fixture tree: two readings of files that never change prove no one spins.
  if (auto no_time = env.NoLiveTime()) {
    const std::string why = "not measured over " + profile::FormatDuration(env.Window(RanksInfo())) + ": " + *no_time;
    return SkipWindow(why, why);
  }
  // 2. A sample of each before the window.
  std::map<const TaskView*, Sample> before;
  for (const TaskView* t : threads) {
    if (auto s = ReadSample(env.root, *t)) before[t] = *s;
  }
  if (before.empty()) {
    std::string why = "no thread's schedstat can be read (" + kpath::TaskSchedstat(threads.front()->pid, threads.front()->tid) +
                      ": the kernel needs CONFIG_SCHED_INFO)";
    return SkipWindow("not measured: " + why, "not measured: " + why);
  }
  // 3. The window, then each sample again.
  const Duration window = env.Window(RanksInfo());
  const std::string window_text = profile::FormatDuration(window);
  if (!env.wait(window)) {
    const std::string cut = "interrupted before the " + window_text + " window ended";
    return SkipWindow(cut, cut);
  }
  return WindowResults(CompareSamples(env.root, threads, before, window), window_text);
}

class RanksCheck : public Check {
 public:
  const CheckInfo& Info() const override { return RanksInfo(); }

  std::vector<CheckResult> Run(CheckEnv& env) const override {
    const auto walked = TasksForRules(env.root, env.state, env.profile.ranks.rules);
    const std::vector<TaskView>& tasks = *walked;
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

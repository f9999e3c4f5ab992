// The lint rules. A rule looks at what the profile will make (its boot arguments, ranks,
// sysctls) and at what the running system is (the state collected once), and answers one
// result: PASS, or the worst of its findings with every finding in the summary. Rules that
// defeat the purpose of the tuning FAIL; advice the lesson gives WARNs.
#include <algorithm>
#include <cstdio>
#include <map>

#include "check/chapters.h"
#include "check/check.h"
#include "profile/duration.h"
#include "tune/memory_tuner.h"
#include "tune/sysctls_tuner.h"
#include "tune/rank_order.h"

namespace rtagent::check {
namespace {

const char* kName = "lint";
using profile::Profile;

// checks.lint in the profile.
struct LintSettings {
  profile::Marked<bool> enabled;
  profile::Marked<std::vector<std::string>> ignore;  ///< rule ids not to report
};

const profile::CheckBlock<LintSettings>& Settings() {
  static const profile::CheckBlock<LintSettings> kSettings{
      kName,
      "the Field Guide as rules over the profile and the system",
      {profile::Custom<LintSettings>("ignore", "list of rule ids", "`[]`", "lint rules not to report",
                                     [](profile::LoadContext& c, LintSettings& s, const profile::YamlNode* v,
                                        const std::string& what) {
                                       if (v == nullptr) return;
                                       if (auto l = c.reader().StringList(*v, what, true)) Assign(&s.ignore, *l, v->mark);
                                     })}};
  return kSettings;
}

// One rule being evaluated: its findings accumulate, the worst status wins.
struct Rule {
  Rule(std::string id_, std::string chapter_, std::string pass, std::string limit_)
      : id(std::move(id_)), chapter(std::move(chapter_)), pass_summary(std::move(pass)), limit(std::move(limit_)) {}

  std::string id;
  std::string chapter;
  std::string pass_summary;
  std::string limit;
  std::vector<std::string> measured;
  std::vector<std::string> problems;
  Status status = Status::kPass;
  std::string hint;
  profile::SourceMark mark;

  void Problem(Status s, const std::string& what, const profile::SourceMark& m = {}) {
    status = Worse(status, s);
    problems.push_back(what);
    if (!mark.Known() && m.Known()) mark = m;
  }

  CheckResult ToResult() const {
    CheckResult r = NewResult(kName, id, status, "", chapter);
    if (problems.empty()) {
      r.summary = pass_summary;
    } else {
      for (const auto& p : problems) r.summary += (r.summary.empty() ? "" : "; ") + p;
      r.hint = hint;
    }
    for (const auto& m : measured) r.measured += (r.measured.empty() ? "" : "; ") + m;
    r.limit = limit;
    r.mark = mark;
    return r;
  }
};

std::string List(const CpuSet& s) { return s.Empty() ? "none" : s.ToList(); }

// The isolation the profile's boot arguments give (what the next boot will have).
struct ProfileIsolation {
  CpuSet isolated, nohz_full, rcu_nocbs;
  bool isolcpus = false, irqaffinity = false, rcu_nocb_poll = false, rcu_nocbs_on = false;
};

ProfileIsolation FromProfile(const Profile& p) {
  ProfileIsolation i;
  const auto& b = p.cores.boot;
  i.isolated = p.cores.isolated->cpus;
  i.isolcpus = b.isolcpus->has_value() && !i.isolated.Empty();
  if (b.nohz_full->enabled) i.nohz_full = b.nohz_full->cpus.cpus;
  if (b.rcu_nocbs->enabled) i.rcu_nocbs = b.rcu_nocbs->cpus.cpus;
  i.rcu_nocbs_on = b.rcu_nocbs->enabled && !i.rcu_nocbs.Empty();
  i.irqaffinity = b.irqaffinity->enabled && !b.irqaffinity->cpus.cpus.Empty();
  i.rcu_nocb_poll = *b.rcu_nocb_poll;
  return i;
}

// The isolation the running kernel was booted with.
struct LiveIsolation {
  bool known = false;
  bool isolcpus = false, nohz_full_arg = false, irqaffinity = false, rcu_nocbs_arg = false, rcu_nocb_poll = false;
  CpuSet isolated, nohz_full, rcu_nocbs;
};

LiveIsolation FromLive(const SystemState& st) {
  LiveIsolation l;
  const auto& cpus = st.cpu_sets;
  l.isolated = cpus.isolated_all;
  l.nohz_full = cpus.nohz_full.value_or(CpuSet());
  if (!st.cmdline || !st.cmdline->raw) return l;
  l.known = true;
  const IsolationArgs& a = st.cmdline->isolation;
  l.isolcpus = a.isolcpus.has_value();
  l.nohz_full_arg = a.nohz_full.has_value();
  l.irqaffinity = a.irqaffinity.has_value();
  l.rcu_nocbs_arg = a.rcu_nocbs.has_value();
  l.rcu_nocb_poll = a.rcu_nocb_poll;
  if (a.rcu_nocbs) {
    // A bare "rcu_nocbs" (no list) lets every CPU be offloaded at run time (5.17+).
    l.rcu_nocbs = a.rcu_nocbs->text.empty() ? cpus.online.value_or(CpuSet()) : a.rcu_nocbs->cpus.value_or(CpuSet());
  }
  return l;
}

// ---- Chapter 6: a core of its own

Rule IsolcpusAlone(const Profile& p, const ProfileIsolation& pi, const LiveIsolation& li) {
  Rule r{"lint.isolcpus_alone", kChapter6, "isolcpus comes with irqaffinity or nohz_full", "isolcpus with irqaffinity and nohz_full"};
  if (pi.isolcpus && !pi.irqaffinity && pi.nohz_full.Empty()) {
    r.Problem(Status::kFail, "the profile sets isolcpus without irqaffinity or nohz_full: a seating rule, not a quiet "
                             "core (interrupts, the tick and RCU callbacks stay on CPUs " + List(pi.isolated) + ")",
              p.cores.boot.isolcpus.mark);
  }
  if (li.known && li.isolcpus && !li.irqaffinity && !li.nohz_full_arg) {
    r.Problem(Status::kFail, "the running kernel was booted with isolcpus= alone, without irqaffinity= or nohz_full=");
  }
  r.hint = "add irqaffinity (the housekeeping CPUs) and nohz_full (the isolated CPUs): cores.boot.irqaffinity: true, "
           "cores.boot.nohz_full: true";
  return r;
}

Rule TickOnIsolated(const Profile& p, const ProfileIsolation& pi, const LiveIsolation& li) {
  Rule r{"lint.tick_on_isolated", kChapter6, "every isolated CPU stops its tick (nohz_full)", "isolated within nohz_full"};
  CpuSet left = pi.isolated.Minus(pi.nohz_full);
  if (!left.Empty()) {
    r.Problem(Status::kWarn, "the profile's isolated CPUs " + List(left) + " keep the scheduler tick (not in nohz_full)",
              p.cores.boot.nohz_full.mark.Known() ? p.cores.boot.nohz_full.mark : p.cores.isolated.mark);
  }
  CpuSet live_left = li.isolated.Minus(li.nohz_full);
  if (!live_left.Empty()) {
    r.Problem(Status::kWarn, "the running kernel's isolated CPUs " + List(live_left) + " keep the tick");
  }
  r.measured = {"profile nohz_full " + List(pi.nohz_full), "running nohz_full " + List(li.nohz_full)};
  r.hint = "cores.boot.nohz_full: true puts the isolated CPUs in nohz_full (keep CPU 0 out of it)";
  return r;
}

Rule RcuOnIsolated(const Profile& p, const ProfileIsolation& pi, const LiveIsolation& li) {
  Rule r{"lint.rcu_on_isolated", kChapter6, "no isolated CPU runs RCU callbacks", "isolated within rcu_nocbs or nohz_full"};
  CpuSet left = pi.isolated.Minus(pi.rcu_nocbs.Union(pi.nohz_full));
  if (!left.Empty()) {
    r.Problem(Status::kWarn, "the profile's isolated CPUs " + List(left) + " keep their RCU callbacks",
              p.cores.boot.rcu_nocbs.mark.Known() ? p.cores.boot.rcu_nocbs.mark : p.cores.isolated.mark);
  }
  if (li.known) {
    CpuSet live_left = li.isolated.Minus(li.rcu_nocbs.Union(li.nohz_full));
    if (!live_left.Empty()) {
      r.Problem(Status::kWarn, "the running kernel's isolated CPUs " + List(live_left) + " run RCU callbacks");
    }
  }
  r.hint = "cores.boot.rcu_nocbs: true (with rcu_nocb_poll) moves RCU callbacks to the housekeeping CPUs";
  return r;
}

Rule RcuNocbPoll(const Profile& p, const ProfileIsolation& pi, const LiveIsolation& li) {
  Rule r{"lint.rcu_nocb_poll", kChapter6, "offloaded RCU callbacks are polled (rcu_nocb_poll)", "rcu_nocbs with rcu_nocb_poll"};
  if (pi.rcu_nocbs_on && !pi.rcu_nocb_poll) {
    r.Problem(Status::kWarn, "the profile offloads RCU callbacks without rcu_nocb_poll: their helpers are still woken "
                             "from the isolated CPUs",
              p.cores.boot.rcu_nocb_poll.mark);
  }
  if (li.known && li.rcu_nocbs_arg && !li.rcu_nocb_poll && !li.isolated.Empty()) {
    r.Problem(Status::kWarn, "the running kernel has rcu_nocbs= without rcu_nocb_poll");
  }
  r.hint = "cores.boot.rcu_nocb_poll: true";
  return r;
}

Rule Cpu0NohzFull(const Profile& p, const ProfileIsolation& pi, const LiveIsolation& li) {
  Rule r{"lint.cpu0_nohz_full", kChapter6, "CPU 0 keeps the tick (not in nohz_full)", "CPU 0 not in nohz_full"};
  if (pi.nohz_full.Has(0)) {
    r.Problem(Status::kFail, "the profile puts CPU 0 in nohz_full: the boot CPU keeps the time of day and the kernel "
                             "refuses or ignores it",
              p.cores.boot.nohz_full.mark.Known() ? p.cores.boot.nohz_full.mark : p.cores.isolated.mark);
  }
  if (li.nohz_full.Has(0)) r.Problem(Status::kFail, "the running kernel has CPU 0 in nohz_full");
  r.hint = "keep CPU 0 for housekeeping: isolate the higher CPUs only";
  return r;
}

Rule NoHousekeeping(const Profile& p, const SystemState& st, const LiveIsolation& li) {
  Rule r{"lint.no_housekeeping", kChapter6, "at least one housekeeping CPU takes the moved work", "at least 1 housekeeping CPU"};
  if (p.cores.housekeeping->cpus.Empty()) {
    r.Problem(Status::kFail, "the profile leaves no housekeeping CPU", p.cores.housekeeping.mark);
  }
  CpuSet online = st.cpu_sets.online.value_or(p.system.online);
  CpuSet hk = online.Minus(li.isolated);
  if (!online.Empty() && hk.Empty()) {
    r.Problem(Status::kFail, "every online CPU (" + List(online) + ") is isolated on the running kernel: nothing is left "
                             "for interrupts, kernel chores and the tick");
  }
  r.measured = {"profile housekeeping " + List(p.cores.housekeeping->cpus), "running housekeeping " + List(hk)};
  r.hint = "keep at least one CPU (CPU 0) for housekeeping";
  return r;
}

Rule WorkqueueOnIsolated(const Profile& p, const SystemState& st, const LiveIsolation& li) {
  Rule r{"lint.workqueue_on_isolated", kChapter6, "unbound workqueues stay off the isolated CPUs",
         "workqueue cpumask within housekeeping"};
  const auto& wq = p.cores.runtime.workqueue_cpumask;
  CpuSet isolated = p.cores.isolated->cpus.Union(li.isolated);
  if (wq->keyword != profile::CpuKeyword::kKeep) {
    CpuSet bad = wq->cpus.Intersect(isolated);
    if (!bad.Empty()) {
      r.Problem(Status::kWarn, "the profile points the workqueue cpumask at isolated CPUs " + List(bad), wq.mark);
    }
  } else if (st.cpu_sets.workqueue_cpumask) {
    CpuSet bad = st.cpu_sets.workqueue_cpumask->Intersect(isolated);
    if (!bad.Empty()) {
      r.Problem(Status::kWarn, "unbound workqueues may run on isolated CPUs " + List(bad) +
                                   " and the profile leaves the workqueue cpumask as it is",
                wq.mark);
    }
  }
  if (st.cpu_sets.workqueue_cpumask) r.measured = {"workqueue cpumask " + List(*st.cpu_sets.workqueue_cpumask)};
  r.hint = "cores.runtime.workqueue_cpumask: housekeeping";
  return r;
}

Rule TimerMigration(const Profile& p, const SystemState& st, const LiveIsolation& li) {
  Rule r{"lint.timer_migration", kChapter6, "timer migration is off or nothing is isolated", "kernel.timer_migration = 0"};
  const auto& tm = p.cores.runtime.timer_migration;
  bool isolates = !p.cores.isolated->cpus.Empty() || !li.isolated.Empty();
  if (tm->has_value() && **tm && isolates) {
    r.Problem(Status::kWarn, "the profile turns timer migration on: timers armed on housekeeping CPUs may be moved to "
                             "and expire on the isolated ones",
              tm.mark);
  } else if (!tm->has_value() && isolates && st.cpu_sets.timer_migration && *st.cpu_sets.timer_migration != 0) {
    r.Problem(Status::kWarn, "kernel.timer_migration is 1 and the profile leaves it", tm.mark);
  }
  if (st.cpu_sets.timer_migration) r.measured = {"timer_migration " + std::to_string(*st.cpu_sets.timer_migration)};
  r.hint = "cores.runtime.timer_migration: false";
  return r;
}

// ---- Chapter 4: the rank map

// rank_order.h judges the rank map; these rules word what it finds.
std::string Describe(const profile::RankRule& r) {
  auto rank = RuleRank(r);
  return r.name + (rank ? " (" + rank->text + ")" : " (policy left as is)");
}

Rule RankOrder(const Profile& p) {
  Rule r{"lint.rank_order", kChapter4, "the declared rank order holds and each loop ranks below the IRQ thread that feeds it",
         "feeding IRQ thread > loop > other IRQ threads"};
  for (const RulePair& pair : BrokenRuleOrder(p.ranks)) {
    r.Problem(Status::kFail, "ranks.order puts " + pair.higher->name + " above " + pair.lower->name + ", but " +
                                 Describe(*pair.higher) + " does not outrank " + Describe(*pair.lower),
              OrderMark(p.ranks, pair.pos));
  }
  // An IRQ thread the profile raised above the default 50 feeds something: a loop on the
  // same CPUs ranked at or above it waits for its own data (Chapter 4: "raise the one that
  // feeds the arm above it; the arm above the rest").
  for (const auto& [loop, irq] : LoopsAtOrAboveFeeder(p.ranks)) {
    r.Problem(Status::kFail, "the loop " + Describe(*loop) + " ranks at or above the IRQ thread " + Describe(*irq) +
                                 " that feeds it on the same CPUs: the loop waits for its own data",
              loop->mark);
  }
  r.hint = "give the feeding IRQ thread a higher priority than the loop, and the loop one above 50";
  return r;
}

Rule LoopBelowIrqThreads(const Profile& p) {
  Rule r{"lint.loop_below_irq_threads", kChapter4, "every real-time loop ranks above the IRQ threads' default 50",
         "loop priority > 50"};
  for (const profile::RankRule* loop : LoopsAtOrBelowIrqThreads(p.ranks)) {
    r.Problem(Status::kWarn, "the loop " + Describe(*loop) + " ranks at or below the IRQ threads (FIFO 50): any busy "
                             "device's IRQ thread delays it",
              loop->mark);
  }
  r.hint = "rank the loop above 50 (80 is the lesson's first choice) and below the IRQ thread that feeds it";
  return r;
}

// ---- Chapter 2: the safety net and the booking desk

// memory.sysctl or sysctls: the one value the profile writes.
const Sysctl* FindSysctl(const Profile& p, const std::string& name) { return ProfileSysctl(p, name); }

Rule RtThrottlingOff(const Profile& p, const SystemState& st) {
  Rule r{"lint.rt_throttling_off", kChapter2, "RT throttling is kept (sched_rt_runtime_us is not -1)",
         "sched_rt_runtime_us != -1"};
  if (const auto* s = FindSysctl(p, "kernel.sched_rt_runtime_us"); s && s->value == "-1") {
    // validate refuses this unless kernel.rt_safety_net is any: then it is a choice made, a WARN.
    r.Problem(*p.kernel.rt_safety_net == profile::SafetyNetExpectation::kAny ? Status::kWarn : Status::kFail, "the profile writes -1 to kernel.sched_rt_runtime_us: RT throttling is global, so the "
                             "safety net goes on every CPU, not only the isolated ones",
              s->mark);
  }
  if (st.kernel && st.kernel->safety_net.active == "none" && st.kernel->safety_net.fair_server_state == "absent") {
    r.Problem(Status::kFail, "sched_rt_runtime_us is -1 on the running kernel: a runaway real-time loop starves "
                             "every CPU, housekeeping included");
  }
  if (st.kernel && st.kernel->safety_net.rt_runtime_us) {
    r.measured = {"sched_rt_runtime_us " + std::to_string(*st.kernel->safety_net.rt_runtime_us)};
  }
  r.hint = "keep the safety net; remove it only on isolated CPUs (the fair server's per-CPU runtime on 6.12+)";
  return r;
}

std::string Fraction(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

Rule DeadlineBookings(const Profile& p, const SystemState& st) {
  Rule r{"lint.deadline_bookings", kChapter2, "SCHED_DEADLINE bookings fit the admission limit", ""};
  double share = 0.95;
  const SafetyNet* net = st.kernel ? &st.kernel->safety_net : nullptr;
  if (net && net->rt_runtime_us && net->rt_period_us && *net->rt_period_us > 0 && *net->rt_runtime_us >= 0) {
    share = static_cast<double>(*net->rt_runtime_us) / static_cast<double>(*net->rt_period_us);
  }
  // 6.12+: the fair server books 5% of every CPU at the same desk (Chapter 2's 0.90).
  bool fair = st.kernel && st.kernel->parsed && st.kernel->parsed->AtLeast(6, 12);
  if (fair) share -= 0.05;
  CpuSet online = st.cpu_sets.online.value_or(p.system.online);
  r.limit = Fraction(share) + " of each CPU" + (fair ? " (0.95 less the fair server's 0.05)" : "");

  double booked = 0;
  CpuSet cpus;
  profile::SourceMark first;
  for (const auto& rule : p.ranks.rules) {
    if (!rule.policy->has_value() || **rule.policy != profile::Policy::kDeadline) continue;
    if (rule.period->count() > 0) booked += static_cast<double>(rule.runtime->count()) / rule.period->count();
    cpus = cpus.Union(rule.cpus->has_value() ? (*rule.cpus)->cpus : online);
    if (!first.Known()) first = rule.mark;
  }
  if (booked > 0) {
    double room = share * std::max(1, cpus.Count());
    r.measured.push_back("profile books " + Fraction(booked) + " of " + Fraction(room) + " on CPUs " + List(cpus));
    if (booked > room) {
      r.Problem(Status::kFail, "the profile's deadline bookings total " + Fraction(booked) + " CPUs, above the " +
                                   Fraction(room) + " the kernel admits on CPUs " + List(cpus) + ": sched_setattr fails with EBUSY",
                first);
    }
  }
  if (st.threads) {
    double live = 0;
    int n = 0;
    for (const auto& t : st.threads->realtime) {
      if (t.policy != kSchedDeadline || !t.deadline || !t.deadline->runtime_ns || !t.deadline->deadline_ns ||
          *t.deadline->deadline_ns <= 0) {
        continue;
      }
      // The period is only known to sched_getattr(2); the deadline (<= period) gives an upper bound.
      live += static_cast<double>(*t.deadline->runtime_ns) / static_cast<double>(*t.deadline->deadline_ns);
      ++n;
    }
    if (n > 0) {
      double room = share * std::max(1, online.Count());
      r.measured.push_back(std::to_string(n) + " running deadline threads book at most " + Fraction(live));
      if (live > room) {
        r.Problem(Status::kWarn, "running deadline threads book up to " + Fraction(live) + " CPUs (runtime/deadline), "
                                 "above the " + Fraction(room) + " admitted");
      }
    }
  }
  r.hint = "shorten runtimes or lengthen periods; keep the total under " + Fraction(share) + " of each CPU";
  return r;
}

// ---- Chapter 8: huge-page compaction

Rule ThpDefrag(const Profile& p, const SystemState& st) {
  Rule r{"lint.thp_defrag", kChapter8, "transparent hugepage defrag is not \"always\"", "defrag never or madvise"};
  const auto& want = MemoryOf(p).thp_defrag;
  std::optional<std::string> live;
  if (st.memory && st.memory->thp_defrag.selected) live = *st.memory->thp_defrag.selected;
  // The rule is the memory section's (ThpDefragStalls): validate warns about the profile's
  // value; here the profile's value FAILs (the tuning makes it) and a live one left WARNs.
  if (want->has_value() && ThpDefragStalls(**want)) {
    r.Problem(Status::kFail, "the profile sets transparent_hugepage/defrag to always: a page fault may stall in direct "
                             "compaction for tens of milliseconds",
              want.mark);
  } else if (!want->has_value() && live && ThpDefragStalls(*live)) {
    r.Problem(Status::kWarn, "transparent_hugepage/defrag is always and the profile leaves it");
  }
  if (live) r.measured = {"defrag " + *live};
  r.hint = "memory.thp.defrag: never (or madvise)";
  return r;
}

// ---- Chapter 7: naps and the power note

Rule DeepCstates(const Profile& p, const SystemState& st) {
  Rule r{"lint.deep_cstates", kChapter7, "no idle state allowed on the measured CPUs takes half the latency budget to leave", ""};
  const auto& budget = p.acceptance.max_us;
  if (!budget->has_value()) {
    r.pass_summary = "no latency budget (acceptance.max_us) to compare idle exit latencies with";
    return r;
  }
  long long half = **budget / 2;
  r.limit = "exit latency <= " + std::to_string(half) + " us (half of acceptance.max_us " + std::to_string(**budget) + " us)";
  const auto& pw = p.power;
  auto within = [&](const profile::Marked<std::optional<int>>& v) { return v->has_value() && **v <= half; };
  if (within(pw.cpu_dma_latency_us) || within(pw.max_exit_latency_us) || within(pw.resume_latency_us)) {
    r.pass_summary = "the profile caps the nap depth (power section) within half the budget";
    return r;
  }
  if (!st.power) {
    r.pass_summary = "the power section was not collected";
    return r;
  }
  if (st.power->cpu_dma_latency_us && *st.power->cpu_dma_latency_us <= half) {
    r.pass_summary = "a PM QoS note of " + std::to_string(*st.power->cpu_dma_latency_us) +
                     " us is held now (by another program: the profile holds none)";
    return r;
  }
  const CpuSet& measured = p.acceptance.cpus->cpus;
  std::map<std::string, std::pair<long long, CpuSet>> deep;  // state name -> (exit latency, CPUs)
  for (const auto& c : st.power->cpus) {
    if (!measured.Empty() && !measured.Has(c.cpu)) continue;
    for (const auto& s : c.idle_states) {
      if (s.latency_us && *s.latency_us > half && !s.disabled.value_or(false)) {
        auto& e = deep[s.name];
        e.first = *s.latency_us;
        e.second.Add(c.cpu);
      }
    }
  }
  if (!deep.empty()) {
    std::vector<std::string> names;
    for (const auto& [name, e] : deep) names.push_back(name + " (" + std::to_string(e.first) + " us, CPUs " + e.second.ToList() + ")");
    r.Problem(Status::kWarn, "idle states " + JoinAnd(names) + " are allowed on the measured CPUs and no PM QoS note "
                             "caps them: a wake-up from them takes more than half the " + std::to_string(**budget) +
                             " us budget",
              budget.mark);
  }
  r.hint = "set power.cpu_dma_latency_us (held by `rtagent hold`) or power.max_exit_latency_us within " +
           std::to_string(half) + " us";
  return r;
}

Rule TestPmQos(const Profile& p) {
  Rule r{"lint.test_pm_qos", kChapter7, "the acceptance test measures the power setting the board ships with",
         "acceptance.pm_qos_us unset, or no stricter than power.cpu_dma_latency_us"};
  const auto& test = p.acceptance.pm_qos_us;
  const auto& ship = p.power.cpu_dma_latency_us;
  if (test->has_value() && (!ship->has_value() || **test < **ship)) {
    r.Problem(Status::kWarn, "the acceptance test holds a PM QoS note of " + std::to_string(**test) +
                                 " us that the board does not hold in service" +
                                 (ship->has_value() ? " (it holds " + std::to_string(**ship) + " us)" : "") +
                                 ": the test hides the deep-nap tail the robot will see",
              test.mark);
  }
  r.hint = "test with the setting you ship: drop acceptance.pm_qos_us, or hold the same note with power.cpu_dma_latency_us";
  return r;
}

// ---- Chapters 5 and 10: how long to test, and when Linux is not enough

Rule AcceptanceShort(const Profile& p) {
  Rule r{"lint.acceptance_short", kChapter5, "the acceptance test runs for an hour or more", "duration >= 1h"};
  // The run's duration: the profile's, or the --duration of accept/commission written over it.
  const auto& d = p.acceptance.duration;
  const std::string runs = profile::FormatDuration(*d);
  r.measured = {"acceptance.duration " + runs};
  if (*d < std::chrono::hours(1)) {
    r.Problem(Status::kWarn, "the acceptance test runs " + runs +
                                 ": the worst case keeps growing with the run, and rare stalls need hours to show",
              d.mark);
  }
  r.hint = "acceptance.duration: 2h (or more) for a commissioning run; short runs suit CI smoke tests only";
  return r;
}

Rule BudgetSmall(const Profile& p) {
  Rule r{"lint.budget_small", kChapter10, "the latency budget is within what Linux can promise", "max_us >= 100"};
  const auto& b = p.acceptance.max_us;
  if (b->has_value() && **b < 100) {
    r.Problem(Status::kWarn, "the budget of " + std::to_string(**b) +
                                 " us is under about 100 us, the lesson's rule of thumb for moving the loop off Linux",
              b.mark);
  }
  r.hint = "prove it on the real board under load for hours; consider a co-kernel or a microcontroller for the loop";
  return r;
}

class LintCheck : public Check {
 public:
  const CheckInfo& Info() const override {
    static const CheckInfo kInfo{.name = kName,
                                 .title = "the Field Guide checklist as rules over the profile and the system",
                                 .chapters = "2, 4–8, 10",
                                 .settings = &Settings()};
    return kInfo;
  }
  std::vector<CheckResult> Run(CheckEnv& env) const override {
    const Profile& p = env.profile;
    const SystemState& st = env.state;
    ProfileIsolation pi = FromProfile(p);
    LiveIsolation li = FromLive(st);
    std::vector<Rule> rules = {IsolcpusAlone(p, pi, li),      TickOnIsolated(p, pi, li),  RcuOnIsolated(p, pi, li),
                               RcuNocbPoll(p, pi, li),        Cpu0NohzFull(p, pi, li),    NoHousekeeping(p, st, li),
                               WorkqueueOnIsolated(p, st, li), TimerMigration(p, st, li), RankOrder(p),
                               LoopBelowIrqThreads(p),        RtThrottlingOff(p, st),     DeadlineBookings(p, st),
                               ThpDefrag(p, st),              DeepCstates(p, st),         TestPmQos(p),
                               AcceptanceShort(p),            BudgetSmall(p)};
    const auto& ignore = *Settings().Of(p).ignore;
    std::vector<CheckResult> out;
    for (const Rule& rule : rules) {
      if (std::find(ignore.begin(), ignore.end(), rule.id) != ignore.end()) {
        CheckResult r = NewResult(kName, rule.id, Status::kSkip, "ignored by the profile (checks.lint.ignore)", rule.chapter);
        r.mark = Settings().Of(p).ignore.mark;
        out.push_back(std::move(r));
        continue;
      }
      out.push_back(rule.ToResult());
    }
    for (const auto& id : ignore) {
      auto known = [&](const Rule& rule) { return rule.id == id; };
      if (std::any_of(rules.begin(), rules.end(), known)) continue;
      CheckResult r = NewResult(kName, "lint.ignore", Status::kWarn,
                                "checks.lint.ignore names \"" + id + "\", which is no lint rule", kChapter11);
      r.mark = Settings().Of(p).ignore.mark;
      r.hint = "the rules are listed in docs/checks.md (lint.timer_migration, lint.thp_defrag, ...)";
      out.push_back(std::move(r));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Check> MakeLintCheck() { return std::make_unique<LintCheck>(); }
}  // namespace rtagent::check

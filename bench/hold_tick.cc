// hold's two kinds of tick on a tree, side by side (issue 19): the full plan a tick makes when a
// signal moved (PlanAll: every IRQ's files, every thread's stat), and the cheap tick that finds
// nothing changed (WatchSignals::Check: /proc/interrupts, the last PID, up to 256 managed files).
// CPU time (user + system, getrusage) per call, median of RUNS.
//
// Before measuring it writes the profile's wanted value into every file item that differs, so
// the tree is the one a holding daemon watches (the thread items, written through the sched
// actuator, stay as they are: no cheap signal reads them). It changes TREE: give it a copy.
//
// usage: rtagent_bench_holdtick TREE PROFILE [RUNS]
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "base/sysroot.h"
#include "check/check.h"
#include "profile/loader.h"
#include "service/watch_signals.h"
#include "tune/tuner.h"

using namespace rtagent;

namespace {

double CpuMs() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: " << argv[0] << " TREE PROFILE [RUNS]\n";
    return 2;
  }
  const int runs = argc > 3 ? std::max(1, std::atoi(argv[3])) : 5;
  check::DeclareProfileLanguage();
  auto root = OpenRoot(argv[1]);
  if (!root) {
    std::cerr << "bench: " << root.error().message << "\n";
    return 3;
  }
  profile::Diagnostics diags;
  auto p = profile::LoadProfile(argv[2], **root, &diags);
  if (!p) {
    std::cerr << "bench: " << diags.FormatText(false) << "\n";
    return 3;
  }
  auto plan = PlanAll(*p, **root);
  if (!plan) {
    std::cerr << "bench: cannot plan: " << plan.error().message << "\n";
    return 3;
  }
  int written = 0;
  std::vector<service::WatchedFile> files;
  for (const SectionPlan& sp : plan->sections) {
    for (const Change& c : sp.items) {
      if (c.actuator != "file" || c.reboot) continue;
      if (Pending(c)) {
        if (auto w = (*root)->Write(c.key, c.after); !w) {
          std::cerr << "bench: " << c.key << ": " << w.error().message << "\n";
          return 3;
        }
        ++written;
      }
      service::WatchedFile f{c.key, c.compare, c.after, -1, {}};
      if (sp.section == "irqs") {
        if (int irq = service::AffinityListIrq(c.key); irq >= 0) {
          if (auto cpus = CpuSet::Parse(c.after)) {
            f.irq = irq;
            f.cpus = *cpus;
          }
        }
      }
      files.push_back(std::move(f));
    }
  }
  std::vector<double> plan_ms, tick_ms;
  size_t items = 0;
  for (int i = 0; i < runs; ++i) {
    double t0 = CpuMs();
    auto again = PlanAll(*p, **root);
    plan_ms.push_back(CpuMs() - t0);
    if (!again) return 3;
    items = 0;
    for (const auto& sp : again->sections) items += sp.items.size();
  }
  service::WatchSignals watch;
  watch.Arm(**root, files);
  std::string moved;
  for (int i = 0; i < runs * 4; ++i) {
    double t0 = CpuMs();
    moved = watch.Check(**root);
    tick_ms.push_back(CpuMs() - t0);
    if (!moved.empty()) {
      std::cerr << "bench: a cheap tick saw a signal on an unchanged tree: " << moved << "\n";
      return 1;
    }
  }
  const double full = Median(plan_ms), cheap = Median(tick_ms);
  std::printf("| tree | plan items | managed files watched | values written first | full plan (CPU, median of %d) "
              "| no-change tick (CPU, median of %d) | ratio |\n",
              runs, runs * 4);
  std::printf("|---|---:|---:|---:|---:|---:|---:|\n");
  std::printf("| %s | %zu | %zu | %d | %.1f ms | %.2f ms | %.1f %% |\n", argv[1], items, watch.WatchedFiles(), written,
              full, cheap, 100.0 * cheap / full);
  return 0;
}

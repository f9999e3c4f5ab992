// The profile language's errors: each kind is asserted with its message, hint and the
// line:column it points at, on small YAML files written to a temporary directory.
#include "profile/loader.h"

#include <catch2/catch.hpp>

#include <sys/stat.h>

#include "base/trust_test_support.h"
#include "check/check.h"
#include "profile/test_support.h"
#include "tune/memory_tuner.h"

using namespace rtagent;
using namespace rtagent::profile;
using namespace rtagent::profile::testing;

TEST_CASE("a complete profile loads with every section resolved", "[profile]") {
  TempDir dir;
  auto l = LoadYaml(dir, R"(version: 1
name: bench-board
description: four cores, arm on 3
cores:
  housekeeping: "0-1"
  isolated: 2-3
  boot:
    isolcpus: [domain, managed_irq]
    rcu_nocb_poll: false
    extra: [nosoftlockup]
  bootloader: {type: extlinux, entry: primary}
  runtime:
    timer_migration: false
irqs:
  rules:
    can-to-arm:
      action: "can0"
      cpus: 3
  allowed:
    LOC: 2
    "IPI[0-9]+": any
ranks:
  rules:
    can-irq: {threads: "irq/[0-9]+-can0", policy: fifo, priority: 85, cpus: 3}
    arm: {process: arm_ctl, policy: fifo, priority: 80, cpus: [3]}
    irqs: {threads: "irq/.*", policy: fifo, priority: 50}
    planner: {process: planner, policy: deadline, runtime: 2ms, period: 10ms}
  order: [can-irq, arm, irqs]
partitions:
  rt: {cpus: isolated, processes: [arm_ctl]}
power:
  cpu_dma_latency_us: 100
  max_exit_latency_us: 50
  resume_latency_us: 0
  governor: performance
memory:
  thp: {enabled: madvise, defrag: never}
  sysctl:
    vm.stat_interval: 10
    kernel.watchdog_cpumask: 0-1
kernel:
  preempt_rt: required
  min_version: "6.6"
checks:
  suite: ci
  hwlat: false
  interrupts: {window: 20s}
acceptance:
  duration: 2h
  interval_us: 200
  max_us: 50
  p99_us: 20
  loads:
    builtin: [cache, {name: disk, workers: 2}]
    external:
      - argv: [stress-ng, --vm, "2"]
service:
  on_stop: revert
  prometheus_textfile: /var/lib/prometheus/node-exporter/rtagent.prom
)");
  INFO(l.diags.FormatText());
  REQUIRE(l.result.ok());
  CHECK(l.diags.All().empty());
  const Profile& p = *l.result;
  CHECK(*p.name == "bench-board");
  CHECK(p.cores.housekeeping->cpus == CpuSet::Range(0, 1));
  CHECK(p.cores.isolated->cpus == CpuSet::Range(2, 3));
  CHECK(p.cores.isolated.mark.line == 6);
  CHECK(p.cores.isolated.mark.column == 13);
  CHECK(*p.cores.bootloader.type == BootloaderType::kExtlinux);
  CHECK(*p.cores.bootloader.entry == "primary");
  CHECK(BootArguments(p) == std::vector<std::string>{"isolcpus=domain,managed_irq,2-3", "nohz_full=2-3",
                                                     "rcu_nocbs=2-3", "irqaffinity=0-1", "kthread_cpus=0-1",
                                                     "skew_tick=1", "nosoftlockup"});
  REQUIRE(p.irqs.rules.size() == 1);
  CHECK(p.irqs.rules[0].action->value().Matches("can0"));
  CHECK(p.irqs.rules[0].cpus->cpus == CpuSet::Of({3}));
  REQUIRE(p.irqs.allowed->size() == 2);
  CHECK(*(*p.irqs.allowed)[0].per_second == 2);
  CHECK_FALSE((*p.irqs.allowed)[1].per_second.has_value());
  CHECK((*p.irqs.allowed)[1].match.Matches("IPI3"));
  REQUIRE(p.ranks.rules.size() == 4);
  CHECK(p.ranks.rules[0].threads->value().Matches("irq/57-can0"));
  CHECK_FALSE(p.ranks.rules[0].threads->value().Matches("irq/58-eth0"));
  CHECK(*p.ranks.rules[1].priority == 80);
  CHECK(*p.ranks.rules[3].deadline == std::chrono::milliseconds(10));
  REQUIRE(p.partitions.size() == 1);
  CHECK(p.partitions[0].cpus->cpus == CpuSet::Range(2, 3));
  CHECK(*p.partitions[0].type == PartitionType::kIsolated);
  CHECK(**p.power.cpu_dma_latency_us == 100);
  CHECK(p.power.cpus->cpus == CpuSet::Range(2, 3));
  CHECK(**p.power.governor == "performance");
  REQUIRE(MemoryOf(p).sysctls.size() == 2);  // the memory tuner declares the section
  CHECK(MemoryOf(p).sysctls[1].value == "0-1");
  CHECK(*p.kernel.preempt_rt == PreemptRtRequirement::kRequired);
  CHECK(**p.kernel.min_version == profile::KernelVersion{6, 6, 0});
  CHECK(*p.checks.suite == "ci");
  CHECK(check::FindCheck("hwlat")->DisabledByProfile(p));  // each check declares its block
  CHECK(*check::FindCheck("interrupts")->Info().window->of(p) == std::chrono::seconds(20));
  CHECK(*p.acceptance.duration == std::chrono::hours(2));
  CHECK(p.acceptance.cpus->cpus == CpuSet::Range(2, 3));
  REQUIRE(p.acceptance.loads.size() == 3);
  CHECK(p.acceptance.loads[1].kind == BuiltinLoad::kDisk);
  CHECK(*p.acceptance.loads[1].workers == 2);
  CHECK(p.acceptance.loads[0].cpus->cpus == CpuSet::Range(0, 1));
  CHECK(p.acceptance.loads[2].name == "stress-ng");
  CHECK(p.acceptance.loads[2].argv == std::vector<std::string>{"stress-ng", "--vm", "2"});
  CHECK(*p.service.on_stop == OnStop::kRevert);
  CHECK(Summary(p) == "4 CPUs: housekeeping 0-1, isolated 2-3");
}

TEST_CASE("CPU lists accept strings, ints, lists of ints, N, masks and keywords", "[profile]") {
  TempDir dir;
  auto l = LoadYaml(dir, "cores:\n  housekeeping: 0\n  isolated: [1, 2, \"4-N\"]\n"
                     "acceptance:\n  cpus: 0x6\nservice:\n  cpus: housekeeping\n", 8);
  INFO(l.diags.FormatText());
  REQUIRE(l.result.ok());
  CHECK(l.result->cores.isolated->cpus == CpuSet::Of({1, 2, 4, 5, 6, 7}));
  CHECK(l.result->acceptance.cpus->cpus == CpuSet::Of({1, 2}));
  CHECK(l.result->service.cpus->cpus == CpuSet::Of({0}));
}

TEST_CASE("auto housekeeping and isolated fit every CPU count", "[profile]") {
  TempDir dir;
  const std::string yaml = "cores:\n  housekeeping: auto\n  isolated: auto\n";
  auto one = LoadYaml(dir, yaml, 1);
  REQUIRE(one.result.ok());
  CHECK(one.result->cores.housekeeping->cpus == CpuSet::Of({0}));
  CHECK(one.result->cores.isolated->cpus.Empty());
  CHECK(BootArguments(*one.result).empty());
  CHECK(Summary(*one.result) == "1 CPU: housekeeping 0, isolated none");
  auto two = LoadYaml(dir, yaml, 2);
  REQUIRE(two.result.ok());
  CHECK(two.result->cores.isolated->cpus == CpuSet::Of({1}));
  auto big = LoadYaml(dir, yaml, 256);
  REQUIRE(big.result.ok());
  CHECK(big.result->cores.housekeeping->cpus == CpuSet::Range(0, 31));
  CHECK(big.result->cores.isolated->cpus == CpuSet::Range(32, 255));
}

TEST_CASE("an isolated set alone leaves the other CPUs for housekeeping", "[profile]") {
  TempDir dir;
  auto l = LoadYaml(dir, "cores:\n  isolated: 2-3\n");
  REQUIRE(l.result.ok());
  CHECK(l.result->cores.housekeeping->cpus == CpuSet::Range(0, 1));
}

TEST_CASE("unknown keys are errors naming the nearest known key", "[profile]") {
  TempDir dir;
  auto l = LoadYaml(dir, "cores:\n  housekeping: 0\n  isolated: 1-3\ncors: {}\nmemory:\n  sysctl:\n    vm.stat_intervall: 10\n");
  REQUIRE_FALSE(l.result.ok());
  const Diagnostic& d = Only(l, "unknown key 'housekeping' in 'cores'");
  CheckAt(d, l.path, 2, 3);
  CHECK_THAT(d.hint, Catch::StartsWith("did you mean 'housekeeping'?"));
  const Diagnostic& top = Only(l, "unknown key 'cors' at the top level");
  CheckAt(top, l.path, 4, 1);
  CHECK_THAT(top.hint, Catch::StartsWith("did you mean 'cores'?"));
  const Diagnostic& sysctl = Only(l, "unknown sysctl 'vm.stat_intervall'");
  CheckAt(sysctl, l.path, 7, 5);
  CHECK_THAT(sysctl.hint, Catch::Contains("did you mean 'vm.stat_interval'?"));
  CHECK_THAT(l.result.error().message, Catch::Contains("3 errors"));
}

TEST_CASE("an unknown key far from every known key lists what the section takes", "[profile]") {
  TempDir dir;
  auto l = LoadYaml(dir, "power:\n  turbo_boost: off\n");
  const Diagnostic& d = Only(l, "unknown key 'turbo_boost' in 'power'");
  CheckAt(d, l.path, 2, 3);
  CHECK_THAT(d.hint, Catch::Contains("'power' takes: cpu_dma_latency_us, cpus"));
}

TEST_CASE("wrong types say what was expected and what was found", "[profile]") {
  TempDir dir;
  auto l = LoadYaml(dir, "cores: [0, 1]\nranks:\n  order: can-irq\nacceptance:\n  priority: high\n");
  REQUIRE_FALSE(l.result.ok());
  CheckAt(Only(l, "wrong type for 'cores': expected a mapping"), l.path, 1, 8);
  const Diagnostic& order = Only(l, "wrong type for 'ranks.order': expected a list, got a string (\"can-irq\")");
  CheckAt(order, l.path, 3, 10);
  CheckAt(Only(l, "'acceptance.priority' must be an integer, got \"high\""), l.path, 5, 13);
  // A plain 5 is a number to whoever wrote it; written in quotes it is a string.
  auto number = LoadYaml(dir, "ranks:\n  order: 5\n");
  CheckAt(Only(number, "wrong type for 'ranks.order': expected a list, got a number (5)"), number.path, 2, 10);
  auto quoted = LoadYaml(dir, "ranks:\n  order: \"5\"\n");
  CheckAt(Only(quoted, "wrong type for 'ranks.order': expected a list, got a string (\"5\")"), quoted.path, 2, 10);
  auto cpus = LoadYaml(dir, "ranks:\n  order: 0-3\n");  // a CPU list is no number
  CheckAt(Only(cpus, "wrong type for 'ranks.order': expected a list, got a string (\"0-3\")"), cpus.path, 2, 10);
  auto real = LoadYaml(dir, "ranks:\n  order: -1.5e3\n");
  CheckAt(Only(real, "wrong type for 'ranks.order': expected a list, got a number (-1.5e3)"), real.path, 2, 10);
}

TEST_CASE("bad enum values list the allowed ones and suggest the nearest", "[profile]") {
  TempDir dir;
  auto l = LoadYaml(dir, "ranks:\n  rules:\n    arm:\n      process: arm\n      policy: fofo\n      priority: 80\n"
                     "cores:\n  bootloader: lilo\n");
  const Diagnostic& d = Only(l, "bad value \"fofo\" for 'ranks.rules.arm.policy'");
  CheckAt(d, l.path, 5, 15);
  CHECK_THAT(d.hint, Catch::Contains("did you mean 'fifo'?"));
  CHECK_THAT(d.hint, Catch::Contains("fifo, rr, other, batch, idle or deadline"));
  const Diagnostic& b = Only(l, "bad value \"lilo\" for 'cores.bootloader'");
  CheckAt(b, l.path, 8, 15);
  CHECK_THAT(b.hint, Catch::Contains("auto, grub, extlinux, rpi, bls, kernel-install or print"));
}

TEST_CASE("CPUs the system does not have are errors", "[profile]") {
  TempDir dir;
  auto l = LoadYaml(dir, "cores:\n  housekeeping: 0\n  isolated: 2-7\n");
  const Diagnostic& d = Only(l, "'cores.isolated' names CPU 4-7, which this system does not have (CPUs 0-3)");
  CheckAt(d, l.path, 3, 13);
  auto list = LoadYaml(dir, "ranks:\n  rules:\n    a: {process: a, cpus: [1, 9]}\n");
  CheckAt(Only(list, "names CPU 9"), list.path, 3, 31);
}

TEST_CASE("offline CPUs are warnings, not errors", "[profile]") {
  TempDir dir;
  SystemCpus sys = Cpus(4);
  sys.online = CpuSet::Range(0, 2);
  auto l = LoadYamlOn(dir, "cores:\n  housekeeping: 0\n  isolated: 1-3\n", sys);
  REQUIRE(l.result.ok());
  REQUIRE(l.diags.WarningCount() == 1);
  CHECK_THAT(l.diags.All()[0].message, Catch::Contains("names CPU 3, which is offline"));
}

TEST_CASE("overlapping housekeeping and isolated CPUs are an error", "[profile]") {
  TempDir dir;
  auto l = LoadYaml(dir, "cores:\n  housekeeping: 0-1\n  isolated: 1-3\n");
  const Diagnostic& d = Only(l, "housekeeping and isolated CPUs overlap: CPU 1 is in both");
  CheckAt(d, l.path, 3, 13);
  // nohz_full, not written, follows the isolated CPUs: the overlap is said once, at its line,
  // not again as "nohz_full includes housekeeping CPU 1" at line 1.
  INFO(l.diags.FormatText());
  CHECK(l.diags.ErrorCount() == 1);
}

TEST_CASE("a profile leaving no housekeeping CPU is an error", "[profile]") {
  TempDir dir;
  auto l = LoadYaml(dir, "cores:\n  isolated: all\n");
  const Diagnostic& d = Only(l, "no housekeeping CPU is left");
  CheckAt(d, l.path, 2, 13);
  CHECK_THAT(d.hint, Catch::Contains("Chapter 6"));
  auto empty = LoadYaml(dir, "cores:\n  housekeeping: none\n  isolated: 1-3\n");
  CheckAt(Only(empty, "no housekeeping CPU is left"), empty.path, 2, 17);
}

TEST_CASE("bad regular expressions are errors with the compiler's reason", "[profile]") {
  TempDir dir;
  auto l = LoadYaml(dir, "ranks:\n  rules:\n    nic:\n      threads: \"irq/[0-9+-eth0\"\n      policy: fifo\n      priority: 60\n"
                     "irqs:\n  allowed:\n    \"LOC(\": 1\n");
  const Diagnostic& d = Only(l, "'ranks.rules.nic.threads' is not a valid regular expression \"irq/[0-9+-eth0\"");
  CheckAt(d, l.path, 4, 16);
  CheckAt(Only(l, "'irqs.allowed key' is not a valid regular expression"), l.path, 9, 5);
}

TEST_CASE("include cycles are errors naming the chain", "[profile]") {
  TempDir dir;
  dir.Write("a.yaml", "include: [b.yaml]\nname: a\n");
  dir.Write("b.yaml", "name: b\ninclude:\n  - c.yaml\n");
  dir.Write("c.yaml", "include: a.yaml\n");
  Diagnostics d;
  auto r = LoadProfile(dir.path() + "/a.yaml", Cpus(4), &d);
  REQUIRE_FALSE(r.ok());
  REQUIRE(d.ErrorCount() == 1);
  const Diagnostic& e = d.All()[0];
  CHECK(e.message == "include cycle: " + dir.path() + "/a.yaml -> " + dir.path() + "/b.yaml -> " + dir.path() +
                         "/c.yaml -> " + dir.path() + "/a.yaml");
  CHECK(e.mark.file == dir.path() + "/c.yaml");
  CHECK(e.mark.line == 1);
  CHECK(e.mark.column == 10);
}

TEST_CASE("a file including itself is a cycle", "[profile]") {
  TempDir dir;
  auto l = LoadYaml(dir, "include: [./p.yaml]\n");
  CheckAt(Only(l, "include cycle"), l.path, 1, 11);
}

TEST_CASE("includes merge: later ones override earlier, the including file overrides all", "[profile]") {
  TempDir dir;
  dir.Write("boards/base.yaml",
            "name: base\ncores:\n  housekeeping: 0\n  isolated: 1-3\nacceptance:\n  priority: 80\n  duration: 10m\n"
            "power:\n  governor: performance\n");
  dir.Write("boards/lab.yaml", "acceptance:\n  priority: 85\n  max_us: 40\n");
  std::string board = dir.Write("board.yaml",
                                "include:\n  - boards/base.yaml\n  - boards/lab.yaml\nname: board\n"
                                "cores:\n  isolated: 2-3\n  housekeeping: 0-1\nacceptance:\n  max_us: 30\npower:\n  governor: ~\n");
  Diagnostics d;
  auto r = LoadProfile(board, Cpus(4), &d);
  INFO(d.FormatText());
  REQUIRE(r.ok());
  CHECK(*r->name == "board");
  CHECK(r->cores.isolated->cpus == CpuSet::Range(2, 3));
  CHECK(r->cores.isolated.mark.file == board);
  CHECK(*r->acceptance.priority == 85);
  CHECK(r->acceptance.priority.mark.file == dir.path() + "/boards/lab.yaml");
  CHECK(*r->acceptance.duration == std::chrono::minutes(10));
  CHECK(r->acceptance.duration.mark.file == dir.path() + "/boards/base.yaml");
  CHECK(r->acceptance.duration.mark.line == 7);
  CHECK(**r->acceptance.max_us == 30);
  CHECK_FALSE(r->power.governor->has_value());  // null resets an included value
  CHECK(r->files == std::vector<std::string>{board, dir.path() + "/boards/base.yaml", dir.path() + "/boards/lab.yaml"});
}

TEST_CASE("a missing profile or include is an error", "[profile]") {
  TempDir dir;
  Diagnostics d;
  auto r = LoadProfile(dir.path() + "/nope.yaml", Cpus(4), &d);
  REQUIRE_FALSE(r.ok());
  REQUIRE(d.ErrorCount() == 1);
  CHECK(d.All()[0].message == "cannot read profile '" + dir.path() + "/nope.yaml': No such file or directory");
  CHECK(d.All()[0].mark.file == dir.path() + "/nope.yaml");
  auto l = LoadYaml(dir, "name: x\ninclude:\n  - base.yaml\n");
  const Diagnostic& e = Only(l, "cannot read included profile '" + dir.path() + "/base.yaml'");
  CheckAt(e, l.path, 3, 5);
  CHECK_THAT(e.hint, Catch::Contains("relative to the including file's directory"));
}

// Issue 17: root applied a profile that any user could rewrite, without a word.
TEST_CASE("a profile or include another user can write is refused as root, naming the file, mode and fix", "[profile]") {
  TempDir dir;
  rtagent::test::EnforcedFileTrust enforced;
  ::chmod(dir.path().c_str(), 0755);
  const std::string base = dir.Write("base.yaml", "name: base\n");
  REQUIRE(::chmod(base.c_str(), 0644) == 0);
  CHECK(LoadYaml(dir, "name: x\ninclude: [base.yaml]\n").result.ok());
  REQUIRE(::chmod(base.c_str(), 0666) == 0);
  auto l = LoadYaml(dir, "name: x\ninclude: [base.yaml]\n");
  REQUIRE_FALSE(l.result.ok());
  const Diagnostic& e = Only(l, "refusing included profile '" + base + "' as root");
  CHECK_THAT(e.message, Catch::EndsWith(base + " is writable by every user (mode 0666)"));
  CHECK(e.hint == "chmod o-w " + base);
  CheckAt(e, l.path, 2, 11);
  REQUIRE(::chmod(l.path.c_str(), 0646) == 0);
  Diagnostics d;
  REQUIRE_FALSE(LoadProfile(l.path, Cpus(4), &d).ok());
  REQUIRE(d.ErrorCount() == 1);
  CHECK(d.All()[0].message == "refusing profile '" + l.path + "' as root: " + l.path +
                                  " is writable by every user (mode 0646)");
}

TEST_CASE("an empty file is an error", "[profile]") {
  TempDir dir;
  auto empty = LoadYaml(dir, "");
  CheckAt(Only(empty, "the profile is empty"), empty.path, 1, 1);
  auto comments = LoadYaml(dir, "# nothing here\n\n# yet\n");
  CheckAt(Only(comments, "the profile is empty"), comments.path, 1, 1);
}

TEST_CASE("a file that is not YAML is an error at the parser's position", "[profile]") {
  TempDir dir;
  auto l = LoadYaml(dir, "name: x\ncores:\n  isolated: [1, 2\n  housekeeping: 0\n");
  REQUIRE_FALSE(l.result.ok());
  REQUIRE(l.diags.ErrorCount() == 1);
  const Diagnostic& d = l.diags.All()[0];
  CHECK_THAT(d.message, Catch::StartsWith("not valid YAML: "));
  CHECK(d.mark.file == l.path);
  CHECK(d.mark.line == 4);
  auto tabs = LoadYaml(dir, "cores:\n\thousekeeping: 0\n");
  REQUIRE(tabs.diags.ErrorCount() == 1);
  CheckAt(Only(tabs, "not valid YAML: a tab in the indentation (YAML indents with spaces only)"), tabs.path, 2, 1);
  CHECK(tabs.diags.All()[0].hint == "replace the tab at the start of line 2 with spaces, as many as the other keys at that level have");
  // The parser stumbles lines later; the tab it stumbled over is named, after spaces on its line.
  auto later = LoadYaml(dir, "name: x\ncores:\n  housekeeping: 0\n  \tisolated: 1-3\nirqs:\n  default: housekeeping\n");
  REQUIRE(later.diags.ErrorCount() == 1);
  CheckAt(Only(later, "not valid YAML: a tab in the indentation (YAML indents with spaces only)"), later.path, 4, 3);
  // A tab on an empty line, or after a key, is not indentation: the parser's own words stay.
  REQUIRE(l.diags.All()[0].message.find("tab") == std::string::npos);
  auto blank = LoadYaml(dir, "name: x\n\t\ncores:\n  isolated: [1, 2\n  housekeeping: 0\n");
  REQUIRE(blank.diags.ErrorCount() == 1);
  CHECK_THAT(blank.diags.All()[0].message, Catch::StartsWith("not valid YAML: ") && !Catch::Contains("a tab"));
}

TEST_CASE("a top level that is not a mapping is an error", "[profile]") {
  TempDir dir;
  auto list = LoadYaml(dir, "- cores\n- irqs\n");
  CheckAt(Only(list, "the top level of a profile must be a mapping of sections, got a list"), list.path, 1, 1);
  auto scalar = LoadYaml(dir, "just some words\n");
  CheckAt(Only(scalar, "must be a mapping of sections, got a string"), scalar.path, 1, 1);
}

TEST_CASE("duplicate keys are errors", "[profile]") {
  TempDir dir;
  auto l = LoadYaml(dir, "name: a\ncores:\n  isolated: 1\n  isolated: 2\n");
  const Diagnostic& d = Only(l, "duplicate key 'isolated' (first written at line 3)");
  CheckAt(d, l.path, 4, 3);
}

TEST_CASE("bad durations are errors", "[profile]") {
  TempDir dir;
  auto l = LoadYaml(dir, "acceptance:\n  duration: 10\nchecks:\n  interrupts:\n    window: 10 parsecs\nservice:\n  watch_interval: 1ms\n");
  CheckAt(Only(l, "'acceptance.duration': invalid duration \"10\": the number needs a unit"), l.path, 2, 13);
  CheckAt(Only(l, "'checks.interrupts.window': invalid duration \"10 parsecs\": unknown unit"), l.path, 5, 13);
  CheckAt(Only(l, "'service.watch_interval' is 1ms, shorter than the minimum 100ms"), l.path, 7, 19);
}

TEST_CASE("priorities outside 1..99 are errors", "[profile]") {
  TempDir dir;
  auto l = LoadYaml(dir, "ranks:\n  rules:\n    arm: {process: arm, policy: fifo, priority: 120}\nacceptance:\n  priority: 0\n");
  CheckAt(Only(l, "'ranks.rules.arm.priority' is 120, out of range 1..99"), l.path, 3, 49);
  CheckAt(Only(l, "'acceptance.priority' is 0, out of range 1..99"), l.path, 5, 13);
}

TEST_CASE("priority and policy must go together", "[profile]") {
  TempDir dir;
  auto l = LoadYaml(dir, "ranks:\n  rules:\n    a: {process: a, policy: fifo}\n    b: {process: b, policy: other, priority: 10}\n");
  CheckAt(Only(l, "rank 'a' uses policy fifo but has no priority"), l.path, 3, 29);
  CheckAt(Only(l, "'ranks.rules.b.priority' applies to policies fifo and rr, not other"), l.path, 4, 46);
  // A priority with no policy says so, rather than "not none"; a policy spelt wrong is one
  // error, not a second about the priority beside it.
  auto none = LoadYaml(dir, "ranks:\n  rules:\n    c: {process: c, priority: 80}\n    d: {process: d, policy: FIFO, priority: 80}\n");
  CheckAt(Only(none, "'ranks.rules.c.priority' needs a policy: rank 'c' has none"), none.path, 3, 31);
  Only(none, "bad value \"FIFO\" for 'ranks.rules.d.policy'");
  CHECK(none.diags.ErrorCount() == 2);
}

TEST_CASE("deadline parameters must satisfy runtime <= deadline <= period", "[profile]") {
  TempDir dir;
  auto l = LoadYaml(dir, "ranks:\n  rules:\n    planner:\n      process: planner\n      policy: deadline\n"
                     "      runtime: 2ms\n      deadline: 1ms\n      period: 10ms\n"
                     "    mapper:\n      process: mapper\n      policy: deadline\n      runtime: 1ms\n      deadline: 20ms\n      period: 10ms\n");
  CheckAt(Only(l, "rank 'planner' break runtime <= deadline <= period: runtime 2000us > deadline 1000us"), l.path, 6, 16);
  CheckAt(Only(l, "rank 'mapper' break runtime <= deadline <= period: deadline 20000us > period 10000us"), l.path, 13, 17);
  auto missing = LoadYaml(dir, "ranks:\n  rules:\n    x: {process: x, policy: deadline, runtime: 1ms}\n");
  CheckAt(Only(missing, "deadline rank 'x' needs runtime and period"), missing.path, 3, 29);
}

TEST_CASE("negative limits and rates are errors", "[profile]") {
  TempDir dir;
  auto l = LoadYaml(dir, "acceptance:\n  max_us: -5\nirqs:\n  allowed:\n    LOC: -1\npower:\n  cpu_dma_latency_us: -10\n");
  CheckAt(Only(l, "'acceptance.max_us' is -5, out of range 1..100000000 (it cannot be negative)"), l.path, 2, 11);
  CheckAt(Only(l, "'irqs.allowed.LOC' is -1, out of range 0..1e+09 (it cannot be negative)"), l.path, 5, 10);
  CheckAt(Only(l, "'power.cpu_dma_latency_us' is -10"), l.path, 7, 23);
}

TEST_CASE("a rank order the priorities contradict is an error", "[profile]") {
  TempDir dir;
  auto l = LoadYaml(dir, "ranks:\n  rules:\n    can-irq: {threads: \"irq/[0-9]+-can0\", policy: fifo, priority: 50}\n"
                     "    arm: {process: arm, policy: fifo, priority: 80}\n  order: [can-irq, arm, planer]\n");
  const Diagnostic& d = Only(l, "ranks.order names 'planer', which is not a rank rule");
  CheckAt(d, l.path, 5, 25);
  auto wrong = LoadYaml(dir, "ranks:\n  rules:\n    can-irq: {threads: \"irq/[0-9]+-can0\", policy: fifo, priority: 50}\n"
                         "    arm: {process: arm, policy: fifo, priority: 80}\n  order: [can-irq, arm]\n");
  const Diagnostic& o = Only(wrong, "ranks.order puts 'can-irq' (fifo 50) above 'arm' (fifo 80), but it does not outrank it");
  CheckAt(o, wrong.path, 5, 11);
  CHECK_THAT(o.hint, Catch::Contains("Chapter 4"));
}

TEST_CASE("contradictions across sections are errors", "[profile]") {
  TempDir dir;
  auto l = LoadYaml(dir, "cores:\n  housekeeping: 0\n  isolated: 1-3\n  boot:\n    nohz_full: 0-3\n    extra: [\"isolcpus=3\"]\n"
                     "partitions:\n  rt: {cpus: 0-3}\n"
                     "memory:\n  sysctl:\n    kernel.sched_rt_runtime_us: -1\n");
  CheckAt(Only(l, "nohz_full includes housekeeping CPU 0"), l.path, 5, 16);
  CheckAt(Only(l, "cores.boot.extra sets 'isolcpus'"), l.path, 6, 13);
  auto cross = LoadYaml(dir, "cores:\n  housekeeping: 0\n  isolated: 1-3\n  boot:\n    nohz_full: 0-3\n"
                         "partitions:\n  rt: {cpus: 0-3}\n"
                         "memory:\n  sysctl:\n    kernel.sched_rt_runtime_us: -1\n");
  CheckAt(Only(cross, "nohz_full includes housekeeping CPU 0"), cross.path, 5, 16);
  CheckAt(Only(cross, "isolated partition 'rt' takes housekeeping CPU 0"), cross.path, 7, 14);
  CheckAt(Only(cross, "the partitions take every online CPU"), cross.path, 7, 14);
  CheckAt(Only(cross, "kernel.sched_rt_runtime_us=-1 removes the RT safety net on every CPU, but kernel.rt_safety_net is keep"),
          cross.path, 10, 5);
}

TEST_CASE("acceptance criteria that cannot be met are errors", "[profile]") {
  TempDir dir;
  auto l = LoadYaml(dir, "acceptance:\n  duration: 10s\n  interval_us: 1000\n  min_samples: 20000\n");
  CheckAt(Only(l, "acceptance.min_samples 20000 cannot be reached: 10s at 1000 us gives 10000 wake-ups per CPU"),
          l.path, 4, 16);
  auto loads = LoadYaml(dir, "acceptance:\n  loads:\n    builtin: [cache, gpu]\n    external:\n      - name: x\n");
  const Diagnostic& b = Only(loads, "bad value \"gpu\" for 'acceptance.loads.builtin[]'");
  CheckAt(b, loads.path, 3, 22);
  CheckAt(Only(loads, "an external load needs 'argv'"), loads.path, 5, 9);
}

TEST_CASE("acceptance.explain is one of its three words, on-breach by default", "[profile]") {
  TempDir dir;
  auto ok = LoadYaml(dir, "acceptance:\n  explain: always\n");
  REQUIRE(ok.result.ok());
  CHECK(*ok.result->acceptance.explain == ExplainWhen::kAlways);
  auto dflt = LoadYaml(dir, "acceptance:\n  duration: 10s\n");
  REQUIRE(dflt.result.ok());
  CHECK(*dflt.result->acceptance.explain == ExplainWhen::kOnBreach);
  auto bad = LoadYaml(dir, "acceptance:\n  explain: sometimes\n");
  const Diagnostic& d = Only(bad, "bad value \"sometimes\" for 'acceptance.explain'");
  CheckAt(d, bad.path, 2, 12);
  CHECK(d.hint == "allowed: on-breach, always or off");
}

TEST_CASE("every error carries a hint", "[profile]") {
  TempDir dir;
  auto l = LoadYaml(dir, "cores:\n  housekeping: 0\n  isolated: [a]\nranks:\n  rules:\n    x: {}\nkernel:\n  min_version: six\n"
                     "irqs:\n  rules:\n    r: {irq: [1, x]}\nservice:\n  prometheus_textfile: rtagent.txt\n");
  REQUIRE(l.diags.ErrorCount() >= 6);
  for (const Diagnostic& d : l.diags.All()) {
    INFO(d.message);
    CHECK_FALSE(d.hint.empty());
    CHECK(d.mark.line > 0);
  }
}

TEST_CASE("the system's CPUs are read through the system root", "[profile]") {
  TempDir dir;
  dir.MakeSysroot("0-7", "0-5");
  FsRoot root(dir.path());
  auto cpus = ReadSystemCpus(root);
  REQUIRE(cpus.ok());
  CHECK(cpus->possible == CpuSet::Range(0, 7));
  CHECK(cpus->online == CpuSet::Range(0, 5));
  TempDir bare;
  FsRoot none(bare.path());
  CHECK_FALSE(ReadSystemCpus(none).ok());
}

TEST_CASE("an unknown schema version is an error", "[profile]") {
  TempDir dir;
  auto l = LoadYaml(dir, "version: 2\nname: x\n");
  CheckAt(Only(l, "this rtagent reads profile version 1, the profile says version 2"), l.path, 1, 10);
  auto list = LoadYaml(dir, "version: [1]\nname: x\n");
  CheckAt(Only(list, "this rtagent reads profile version 1, the profile says a list"), list.path, 1, 10);
}

TEST_CASE("a file with two YAML documents is an error", "[profile]") {
  TempDir dir;
  auto l = LoadYaml(dir, "name: a\n---\nname: b\n");
  REQUIRE_FALSE(l.result.ok());
  const Diagnostic& d = Only(l, "a profile is one YAML document, but this file holds 2");
  CHECK(d.mark.line == 3);
}

TEST_CASE("checks.suite is a built-in suite or an existing suite file", "[profile][check]") {
  TempDir dir;
  auto typo = LoadYaml(dir, "checks:\n  suite: comission\n");
  const Diagnostic& d = Only(typo, "unknown suite \"comission\" in 'checks.suite'");
  CheckAt(d, typo.path, 2, 10);
  CHECK_THAT(d.hint, Catch::Contains("did you mean \"commission\"") && Catch::Contains("suite file"));

  auto missing = LoadYaml(dir, "checks:\n  suite: suites/nightly.yaml\n");
  CheckAt(Only(missing, "the suite file 'suites/nightly.yaml' in 'checks.suite' does not exist"), missing.path, 2, 10);

  dir.Write("suites/nightly.yaml", "checks: [kernel]\n");
  auto ok = LoadYaml(dir, "checks:\n  suite: suites/nightly.yaml\n");
  REQUIRE(ok.result);
  CHECK(*ok.result->checks.suite == dir.path() + "/suites/nightly.yaml");
  auto builtin = LoadYaml(dir, "checks:\n  suite: boot\n");
  REQUIRE(builtin.result);
  CHECK(*builtin.result->checks.suite == "boot");
}

TEST_CASE("bad check thresholds are errors at their line", "[profile][check]") {
  TempDir dir;
  auto l = LoadYaml(dir, "checks:\n  interrupts:\n    window: -5s\n  hwlat:\n    width: 10us\n    threshold_us: 0\n");
  CHECK(Only(l, "checks.interrupts.window").mark.line == 3);
  CheckAt(Only(l, "'checks.hwlat.threshold_us' is 0"), l.path, 6, 19);

  auto never = LoadYaml(dir, "checks:\n  hwlat:\n    width: 10us\n    threshold_us: 20\n");
  const Diagnostic& d = Only(never, "checks.hwlat.threshold_us 20 is not shorter than the width 10us");
  CheckAt(d, never.path, 4, 19);
  CHECK_THAT(d.message, Catch::Contains("nothing would ever be reported"));
}

TEST_CASE("fuzz suite: a malformed text that made yaml-cpp's LoadAll loop for ever is an error", "[profile]") {
  // fuzz/suite_fuzz.cc: yaml-cpp 0.7's LoadAll (Debian 12) added a null document for ever on
  // this text (jbeder/yaml-cpp#1319) until memory ran out; the documents are now counted by
  // rtagent, stopping at a null root as the fixed LoadAll does.
  // Before the fix this call never returned (the case fails by ctest's timeout).
  TempDir dir;
  auto l = LoadYaml(dir, "\n,\n    ");
  CHECK(l.diags.ErrorCount() == (l.result.ok() ? 0 : l.diags.ErrorCount()));
}

TEST_CASE("a quoted string whose closing quote is missing is an error, not the rest of the file", "[profile]") {
  TempDir dir;
  // yaml-cpp 0.7 reads the string to the end of the file: cores and acceptance vanished, valid.
  auto l = LoadYaml(dir, "version: 1\nname: \"my board\ncores:\n  housekeeping: 0\n  isolated: 1-3\n");
  const Diagnostic& d = Only(l, "not valid YAML: the string opened here with \" is never closed");
  CheckAt(d, l.path, 2, 7);
  CHECK_FALSE(l.result.ok());
  auto single = LoadYaml(dir, "version: 1\nname: 'it''s\ncores:\n  isolated: 1-3\n");
  CheckAt(Only(single, "the string opened here with ' is never closed"), single.path, 2, 7);
  auto key = LoadYaml(dir, "version: 1\n\"name: x\n");
  CHECK_FALSE(key.result.ok());
  // Closed strings stay what they were: an escaped quote, a doubled one, one over two lines.
  auto fine = LoadYaml(dir, "name: \"a \\\" b\"\ndescription: 'it''s\n  fine'\n");
  INFO(fine.diags.FormatText());
  REQUIRE(fine.result.ok());
  CHECK(*fine.result->name == "a \" b");
}

TEST_CASE("anchors and aliases that multiply are refused before they take the memory", "[profile]") {
  TempDir dir;
  std::string yaml = "x0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n";
  for (int i = 1; i <= 6; ++i) {
    yaml += "x" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) yaml += (j ? ", *a" : "*a") + std::to_string(i - 1);
    yaml += "]\n";
  }
  auto l = LoadYaml(dir, yaml);  // 10^7 values if expanded: gigabytes
  const Diagnostic& d = Only(l, "the document expands to more than 100000 values");
  CHECK(d.mark.file == l.path);
  CHECK_THAT(d.hint, Catch::Contains("alias"));
  CHECK_FALSE(l.result.ok());
}

TEST_CASE("a value left empty is reported at its key or its dash, not at the next line written", "[profile]") {
  TempDir dir;
  auto map = LoadYaml(dir, "name: x\nacceptance:\n  priority:\n\n\n# later\ncores:\n  isolated: 1\n");
  // The empty value of a key is a reset (null), so this is valid; a list item left empty is not.
  INFO(map.diags.FormatText());
  CHECK(map.result.ok());
  auto item = LoadYaml(dir, "acceptance:\n  loads:\n    builtin:\n      -\n      # comment\n      - cache\n");
  CheckAt(Only(item, "got nothing"), item.path, 4, 7);
  auto last = LoadYaml(dir, "name: x\nmemory:\n  thp:\n    enabled:\n    defrag: sometimes\ncores:\n  isolated: 1\n");
  CheckAt(Only(last, "defrag"), last.path, 5, 13);
}

TEST_CASE("a named entry written with no value drops the included one", "[profile]") {
  TempDir dir;
  dir.Write("base.yaml",
            "ranks:\n  rules:\n    loop: {process: ctl, policy: fifo, priority: 80}\n"
            "    net: {threads: 'irq/.*-eth0', policy: fifo, priority: 85}\n"
            "irqs:\n  rules:\n    nic: {action: eth0, cpus: 0}\n"
            "memory:\n  sysctl:\n    vm.stat_interval: 10\n");
  auto l = LoadYaml(dir, "include: base.yaml\nranks:\n  rules:\n    loop: ~\nirqs:\n  rules:\n    nic:\n"
                         "memory:\n  sysctl:\n    vm.stat_interval:\n");
  INFO(l.diags.FormatText());
  REQUIRE(l.result.ok());
  REQUIRE(l.result->ranks.rules.size() == 1);
  CHECK(l.result->ranks.rules[0].name == "net");
  CHECK(l.result->irqs.rules.empty());
  CHECK(rtagent::MemoryOf(*l.result).sysctls.empty());
}

TEST_CASE("a kernel version with a part no int holds is an error, not a crash", "[profile]") {
  TempDir dir;
  auto l = LoadYaml(dir, "kernel:\n  min_version: \"6.99999999999\"\n");
  CheckAt(Only(l, "a part of it is too large to be a kernel version"), l.path, 2, 16);
}

TEST_CASE("hints that once printed nonsense: a sample floor no run can reach, an order rule with no priority",
          "[profile]") {
  TempDir dir;
  // 10^15 wake-ups at 10 ms overflowed the hint's duration into "1864712049423024128ns".
  auto samples = LoadYaml(dir, "acceptance:\n  duration: 10s\n  interval_us: 10000\n  min_samples: 1000000000000000\n");
  const Diagnostic& s = Only(samples, "acceptance.min_samples 1000000000000000 cannot be reached");
  CHECK(s.hint == "lower min_samples: at this interval no run could last long enough (more than 292 years)");
  auto reachable = LoadYaml(dir, "acceptance:\n  duration: 10s\n  interval_us: 1000\n  min_samples: 20000\n");
  CHECK(Only(reachable, "cannot be reached").hint == "lengthen the duration to at least 20s or lower min_samples");
  // An 'other' rule ordered above a fifo one: no priority to raise, so no empty "()" either.
  auto order = LoadYaml(dir, "ranks:\n  rules:\n    a: {process: x, policy: other}\n"
                             "    b: {process: y, policy: fifo, priority: 50}\n  order: [a, b]\n");
  const Diagnostic& o = Only(order, "ranks.order puts 'a' (other) above 'b' (fifo 50)");
  CHECK_THAT(o.hint, Catch::StartsWith("'a' (other) has no priority to raise: give it policy fifo above 'b'"));
  CHECK_THAT(o.hint, !Catch::Contains("()"));
}

TEST_CASE("an included file of another schema version is an error, though the including file says 1", "[profile]") {
  TempDir dir;
  dir.Write("frag.yaml", "version: 2\nname: frag\n");
  auto l = LoadYaml(dir, "version: 1\ninclude: frag.yaml\n");
  const Diagnostic& d = Only(l, "this rtagent reads profile version 1, the profile says version 2");
  CHECK(d.mark.file == dir.path() + "/frag.yaml");
  CHECK(d.mark.line == 1);
  dir.Write("frag.yaml", "version: 1\nname: frag\n");
  CHECK(LoadYaml(dir, "version: 1\ninclude: frag.yaml\n").result.ok());
}

TEST_CASE("irqs.default on the isolated CPUs is a warning, as systemd.cpu_affinity there is", "[profile]") {
  TempDir dir;
  auto l = LoadYaml(dir, "cores:\n  housekeeping: 0-1\n  isolated: 2-3\nirqs:\n  default: isolated\n");
  INFO(l.diags.FormatText());
  REQUIRE(l.result.ok());
  const Diagnostic& d = Only(l, "irqs.default sends every movable IRQ to isolated CPU 2-3");
  CHECK(d.severity == Severity::kWarning);
  CheckAt(d, l.path, 5, 12);
  auto fine = LoadYaml(dir, "cores:\n  housekeeping: 0-1\n  isolated: 2-3\nirqs:\n  default: housekeeping\n");
  CHECK(fine.diags.All().empty());
}

// Each section's own errors (sections.h: cores, irqs, ranks, partitions, acceptance, service)
// and the file-level ones of the loader and the YAML tree that loader_test.cc does not show:
// every message with the line:column it points at and a hint, as `rtagent validate` prints
// them. These are the error paths tools/coverage.sh found no test reaching (2026-12-06).
#include "profile/sections.h"

#include <catch2/catch.hpp>

#include <filesystem>

#include "profile/test_support.h"

using namespace rtagent;
using namespace rtagent::profile;
using namespace rtagent::profile::testing;

TEST_CASE("acceptance: a nameless builtin load, an empty argv, an interval as long as the run, a load on no CPU", "[profile]") {
  TempDir dir;
  auto nameless = LoadYaml(dir, "acceptance:\n  loads:\n    builtin:\n      - cpus: 0\n");
  REQUIRE_FALSE(nameless.result.ok());
  const Diagnostic& n = Only(nameless, "a builtin load needs a 'name'");
  CheckAt(n, nameless.path, 4, 9);
  CHECK_THAT(n.hint, Catch::Contains("cache"));  // the hint lists the loads there are

  for (const char* argv : {"[]", "[\"\"]"}) {
    auto empty = LoadYaml(dir, std::string("acceptance:\n  loads:\n    external:\n      - name: x\n        argv: ") + argv + "\n");
    INFO(argv);
    CheckAt(Only(empty, "'acceptance.loads.external[].argv' is empty"), empty.path, 5, 15);
  }

  auto slow = LoadYaml(dir, "acceptance:\n  duration: 5s\n  interval_us: 10000000\n");
  CheckAt(Only(slow, "acceptance.interval_us 10000000 is not shorter than the duration 5s"), slow.path, 3, 16);

  auto nowhere = LoadYaml(dir, "acceptance:\n  loads:\n    builtin:\n      - name: cache\n        cpus: none\n");
  CheckAt(Only(nowhere, "load 'cache' is placed on no CPU (none is empty here)"), nowhere.path, 5, 15);
}

TEST_CASE("cores: housekeeping all offline, an isolcpus flag twice or not a boolean, a bad extra argument, an empty runtime mask", "[profile]") {
  TempDir dir;
  SystemCpus sys = Cpus(4);
  sys.online = CpuSet::Range(0, 1);
  auto offline = LoadYamlOn(dir, "cores:\n  housekeeping: 2-3\n  isolated: 1\n", sys);
  REQUIRE_FALSE(offline.result.ok());
  const Diagnostic& o = Only(offline, "every housekeeping CPU (2-3) is offline");
  CheckAt(o, offline.path, 2, 17);
  CHECK_THAT(o.hint, Catch::Contains("0-1"));  // the online CPUs to choose from

  auto twice = LoadYaml(dir, "cores:\n  isolated: 1\n  boot:\n    isolcpus: [nohz, domain, nohz]\n");
  CheckAt(Only(twice, "isolcpus flag 'nohz' is listed twice"), twice.path, 4, 30);
  auto maybe = LoadYaml(dir, "cores:\n  isolated: 1\n  boot:\n    isolcpus: maybe\n");
  CheckAt(Only(maybe, "'cores.boot.isolcpus' must be true or false, got \"maybe\""), maybe.path, 4, 15);

  auto extra = LoadYaml(dir, "cores:\n  boot:\n    extra: [\"quiet splash\", \"\", \"nosoftlockup\", \"nosoftlockup=1\"]\n");
  CheckAt(Only(extra, "cores.boot.extra: \"quiet splash\" is not one kernel argument"), extra.path, 3, 13);
  CheckAt(Only(extra, "cores.boot.extra: \"\" is not one kernel argument"), extra.path, 3, 29);
  const Diagnostic& again = Only(extra, "cores.boot.extra sets 'nosoftlockup' twice");
  CheckAt(again, extra.path, 3, 49);
  CHECK_THAT(again.hint, Catch::Contains("the kernel takes the last"));

  for (const char* key : {"workqueue_cpumask", "default_smp_affinity"}) {
    auto mask = LoadYaml(dir, std::string("cores:\n  runtime:\n    ") + key + ": none\n");
    INFO(key);
    CheckAt(Only(mask, std::string("cores.runtime.") + key + " is empty"), mask.path, 3, static_cast<int>(std::string(key).size()) + 7);
  }
}

TEST_CASE("irqs: a rule that matches nothing or sends to no CPU, a default of no CPU, a rate that is not a number", "[profile]") {
  TempDir dir;
  auto nothing = LoadYaml(dir, "irqs:\n  rules:\n    x:\n      cpus: 0\n");
  const Diagnostic& m = Only(nothing, "IRQ rule 'x' matches nothing");
  CheckAt(m, nothing.path, 3, 5);
  CHECK_THAT(m.hint, Catch::Contains("'action', 'chip' or 'irq'"));

  auto nowhere = LoadYaml(dir, "irqs:\n  rules:\n    x:\n      action: eth0\n      cpus: none\n");
  CheckAt(Only(nowhere, "IRQ rule 'x' sends its IRQs to no CPU (none is empty here)"), nowhere.path, 5, 13);

  auto def = LoadYaml(dir, "irqs:\n  default: none\n");
  CheckAt(Only(def, "irqs.default names no CPU"), def.path, 2, 12);

  auto rate = LoadYaml(dir, "irqs:\n  allowed:\n    LOC: lots\n");
  const Diagnostic& r = Only(rate, "'irqs.allowed.LOC' must be a number, got \"lots\"");
  CheckAt(r, rate.path, 3, 10);
  CHECK_THAT(r.hint, Catch::Contains("without units"));
}

TEST_CASE("ranks: a deadline runtime under 1024 ns, keys of another policy, no CPU, an order with a rank twice or one without a policy", "[profile]") {
  TempDir dir;
  auto tiny = LoadYaml(dir, "ranks:\n  rules:\n    a: {process: a, policy: deadline, runtime: 500ns, period: 1ms}\n");
  CheckAt(Only(tiny, "deadline runtime of rank 'a' is below the kernel's 1024 ns minimum"), tiny.path, 3, 48);

  auto other = LoadYaml(dir, "ranks:\n  rules:\n    a: {process: a, policy: fifo, priority: 10, nice: 3, runtime: 1ms}\n");
  CheckAt(Only(other, "'ranks.rules.a.nice' applies to policies other and batch, not fifo"), other.path, 3, 55);
  CheckAt(Only(other, "'ranks.rules.a.runtime' applies to policy deadline, not fifo"), other.path, 3, 67);

  auto cpus = LoadYaml(dir, "ranks:\n  rules:\n    a: {process: a, policy: fifo, priority: 10, cpus: none}\n");
  CheckAt(Only(cpus, "rank 'a' allows no CPU"), cpus.path, 3, 55);

  auto order = LoadYaml(dir, "ranks:\n  rules:\n    a: {process: a, policy: fifo, priority: 10}\n    b: {process: b}\n  order: [a, a, b]\n");
  CheckAt(Only(order, "ranks.order lists 'a' twice"), order.path, 5, 14);
  CheckAt(Only(order, "rank 'b' has no policy, so its place in ranks.order cannot hold"), order.path, 5, 17);

  auto regex = LoadYaml(dir, "ranks:\n  rules:\n    a: {threads: \"\", policy: fifo, priority: 10}\n");
  CheckAt(Only(regex, "'ranks.rules.a.threads' is an empty regular expression"), regex.path, 3, 18);
}

TEST_CASE("partitions: a name that is no directory name, two sharing a CPU, one without cpus, and service.cpus of no CPU", "[profile]") {
  TempDir dir;
  auto name = LoadYaml(dir, "partitions:\n  .hidden:\n    cpus: 1\n");
  const Diagnostic& n = Only(name, "partition name '.hidden' cannot be a cgroup directory name");
  CheckAt(n, name.path, 2, 3);
  CHECK_THAT(n.hint, Catch::Contains("not starting with '.'"));

  auto shared = LoadYaml(dir, "cores:\n  housekeeping: 0\npartitions:\n  a:\n    cpus: 1-2\n  b:\n    cpus: 2-3\n");
  CheckAt(Only(shared, "partitions 'a' and 'b' share CPU 2"), shared.path, 7, 11);

  auto bare = LoadYaml(dir, "partitions:\n  a:\n    type: isolated\n");
  CheckAt(Only(bare, "partition 'a' has no 'cpus'"), bare.path, 2, 3);

  auto service = LoadYaml(dir, "service:\n  cpus: none\n");
  CheckAt(Only(service, "service.cpus names no CPU"), service.path, 2, 9);
}

TEST_CASE("files: a profile or include that is a directory, an include of the wrong type", "[profile]") {
  TempDir dir;
  std::filesystem::create_directories(dir.path() + "/sub");
  auto inc = LoadYaml(dir, "include: [sub]\n");
  CheckAt(Only(inc, "cannot read included profile '" + dir.path() + "/sub': it is a directory"), inc.path, 1, 11);

  Diagnostics d;
  REQUIRE_FALSE(LoadProfile(dir.path() + "/sub", Cpus(4), &d).ok());
  REQUIRE(d.ErrorCount() == 1);
  CHECK(d.All()[0].message == "cannot read profile '" + dir.path() + "/sub': it is a directory");
  CHECK(d.All()[0].hint == "name a .yaml file");

  auto map = LoadYaml(dir, "include: {a: 1}\n");
  CheckAt(Only(map, "wrong type for 'include': expected a list of files, got a mapping"), map.path, 1, 10);
  auto items = LoadYaml(dir, "include:\n  - {a: 1}\n  - \"\"\n");
  CheckAt(Only(items, "wrong type for 'include[]': expected a file name, got a mapping"), items.path, 2, 5);
  CheckAt(Only(items, "wrong type for 'include[]': expected a file name, got a string (\"\")"), items.path, 3, 5);
}

TEST_CASE("YAML: a document nested deeper than 64 levels or through an alias of itself, a key that is a list or a mapping", "[profile]") {
  TempDir dir;
  std::string deep = "cores:\n";
  for (int i = 0; i < 70; ++i) deep += std::string(static_cast<size_t>(2 * (i + 1)), ' ') + "k" + std::to_string(i) + ":\n";
  deep += std::string(142, ' ') + "x: 1\n";
  auto nested = LoadYaml(dir, deep);
  const Diagnostic& n = Only(nested, "the document nests deeper than 64 levels");
  CHECK(n.mark.file == nested.path);
  CHECK(n.mark.line == 66);  // the first node past the limit
  CHECK_FALSE(n.hint.empty());
  // An alias inside the node its anchor marks is a cycle yaml-cpp builds; the limit ends it.
  auto cycle = LoadYaml(dir, "cores: &x\n  k: *x\n");
  const Diagnostic& c = Only(cycle, "the document nests deeper than 64 levels");
  CheckAt(c, cycle.path, 1, 8);
  CHECK_THAT(c.hint, Catch::Contains("alias"));

  auto list = LoadYaml(dir, "? [a, b]\n: 1\n");
  CheckAt(Only(list, "a key must be a plain word, got a list"), list.path, 1, 3);
  auto map = LoadYaml(dir, "cores:\n  {a: 1}: 2\n");
  CheckAt(Only(map, "a key must be a plain word, got a mapping"), map.path, 2, 3);
}

#include "inspect/cmdline.h"

#include <catch2/catch.hpp>

using namespace rtagent;

TEST_CASE("the command line splits like the kernel splits it", "[inspect]") {
  auto c = ParseCmdline("BOOT_IMAGE=/vmlinuz ro quiet foo=\"a b\" isolcpus=2-3 isolcpus=1 -- --init-arg x\n");
  REQUIRE(c.args.size() == 6);
  CHECK(c.args[0].key == "BOOT_IMAGE");
  CHECK(c.args[2].key == "quiet");
  CHECK_FALSE(c.args[2].value.has_value());
  CHECK(c.args[3].value == "a b");  // quotes protect the space and are removed
  CHECK(c.Find("isolcpus")->value == "1");  // the last one wins
  CHECK(c.init_args == std::vector<std::string>{"--init-arg", "x"});
  CHECK(c.Find("nohz_full") == nullptr);
}

TEST_CASE("dashes and underscores are the same in parameter names", "[inspect]") {
  auto c = ParseCmdline("nohz-full=4-7 rcu_nocb-poll");
  REQUIRE(c.Find("nohz_full"));
  CHECK(c.Find("nohz_full")->value == "4-7");
  CHECK(c.Find("rcu_nocb_poll") != nullptr);
}

TEST_CASE("isolcpus flags come before the CPU list", "[inspect]") {
  auto a = ParseIsolcpus("nohz,domain,managed_irq,2-3");
  CHECK(a.flags == std::vector<std::string>{"nohz", "domain", "managed_irq"});
  REQUIRE(a.cpus);
  CHECK(a.cpus->ToList() == "2-3");
  auto b = ParseIsolcpus("1,3-5");
  CHECK(b.flags.empty());  // no flag: the kernel applies "domain"
  CHECK(b.cpus->ToList() == "1,3-5");
  auto c = ParseIsolcpus("domain,4-N", 8);
  CHECK(c.cpus->ToList() == "4-7");
  auto bad = ParseIsolcpus("nohz,zz");
  CHECK_FALSE(bad.cpus.has_value());
  CHECK(bad.cpus_text == "zz");
}

TEST_CASE("the isolation arguments of chapter 6's plan", "[inspect]") {
  auto c = ParseCmdline(
      "isolcpus=nohz,domain,managed_irq,2-3 nohz_full=2-3 rcu_nocbs=2-3 rcu_nocb_poll irqaffinity=0-1 "
      "skew_tick=1 nosoftlockup idle=poll intel_idle.max_cstate=0");
  IsolationArgs i = ExtractIsolation(c, 4);
  REQUIRE(i.isolcpus);
  CHECK(i.isolcpus->cpus->ToList() == "2-3");
  CHECK(i.nohz_full->cpus->ToList() == "2-3");
  CHECK(i.rcu_nocbs->cpus->ToList() == "2-3");
  CHECK(i.rcu_nocb_poll);
  CHECK(i.irqaffinity->cpus->ToList() == "0-1");
  CHECK(i.skew_tick == "1");
  CHECK(i.nosoftlockup);
  CHECK_FALSE(i.nowatchdog);
  CHECK_FALSE(i.kthread_cpus.has_value());
  REQUIRE(i.other.size() == 2);
  CHECK(i.other[0].key == "idle");
  CHECK(i.other[1].key == "intel_idle.max_cstate");
}

TEST_CASE("a bare rcu_nocbs has no list", "[inspect]") {
  IsolationArgs i = ExtractIsolation(ParseCmdline("rcu_nocbs"));
  REQUIRE(i.rcu_nocbs);
  CHECK(i.rcu_nocbs->text.empty());
}

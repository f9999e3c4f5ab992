// The trace reader on the three texts users send (tracefs' trace, trace-cmd report, rtla's
// saved trace) and on text that is not a trace at all.
#include <catch2/catch.hpp>

#include <string>

#include "trace/ftrace_text.h"

using namespace rtagent;

TEST_CASE("ftrace text: task, CPU, flags, ns time stamp, event and its fields", "[trace][parse]") {
  const std::string text =
      "# tracer: timerlat\n"
      "#\n"
      "#                                _-----=> irqs-off\n"
      "#           TASK-PID     CPU#  |||||   TIMESTAMP  FUNCTION\n"
      "     noise spin-412     [002] d..2.   548.771077442: sched_switch: prev_comm=noise spin prev_pid=412 "
      "prev_prio=4 prev_state=R+ ==> next_comm=timerlat/2 next_pid=88 next_prio=4\n"
      "          <idle>-0       [002] d.h1.   548.771072134: #402268 context    irq timer_latency     13585 ns\n"
      "   rtagent-sampler-77 (70) [001] ....  12.500000: tracing_mark_write: rtagent-wakeup cpu=1 latency_ns=5\n"
      "CPU:3 [LOST 12 EVENTS]\n";
  auto t = ParseFtraceText(text);
  REQUIRE(t);
  CHECK(t->tracer == "timerlat");
  REQUIRE(t->events.size() == 3);
  const TraceEvent& sw = t->events[0];
  CHECK(sw.comm == "noise spin");
  CHECK(sw.pid == 412);
  CHECK(sw.cpu == 2);
  CHECK(sw.ts_ns == 548771077442);
  CHECK(sw.name == "sched_switch");
  CHECK(sw.Field("prev_comm") == "noise spin");
  CHECK(sw.Field("next_comm") == "timerlat/2");
  CHECK(sw.IntField("next_pid") == 88);
  CHECK(sw.IntField("prev_prio") == 4);
  CHECK(sw.line == 5);
  CHECK(t->events[1].name == "timerlat");
  CHECK(t->events[1].comm == "<idle>");
  CHECK(t->events[2].pid == 77);
  CHECK(t->events[2].ts_ns == 12500000000);  // a µs time stamp
  CHECK(t->events[2].IntField("latency_ns") == 5);
  CHECK(t->losses == std::vector<std::string>{"CPU:3 [LOST 12 EVENTS]"});
  CHECK(t->cpus == std::vector<int>{1, 2});
}

TEST_CASE("ftrace text: trace-cmd report's header and print events", "[trace][parse]") {
  const std::string text =
      "cpus=4\n"
      "version = 6\n"
      "CPU 0 is empty\n"
      " rtagent-sampler-77    [002]   100.000000200: print:                tracing_mark_write: rtagent-wakeup cpu=2\n"
      "          <idle>-0     [002]   100.000000100: irq_handler_entry:    irq=11 name=virtio0\n";
  auto t = ParseFtraceText(text);
  REQUIRE(t);
  REQUIRE(t->events.size() == 2);
  CHECK(t->events[0].name == "tracing_mark_write");
  CHECK(t->events[0].args == "rtagent-wakeup cpu=2");
  CHECK(t->events[1].Field("name") == "virtio0");
  CHECK(t->unreadable_lines == 0);
}

TEST_CASE("ftrace text: garbage, truncation and empty input are errors or skipped lines, never a crash",
          "[trace][parse]") {
  CHECK_FALSE(ParseFtraceText(""));
  auto junk = ParseFtraceText("hello world\n\x01\x02\x03 [\n]]]][[[ 12.: x\n");
  REQUIRE_FALSE(junk);
  CHECK_THAT(junk.error().message, Catch::Contains("line 1"));
  auto only_comments = ParseFtraceText("# tracer: nop\n#\n");
  REQUIRE_FALSE(only_comments);
  CHECK_THAT(only_comments.error().message, Catch::Contains("no event"));
  // A line cut in the middle is skipped, the rest kept.
  auto cut = ParseFtraceText(
      "  <idle>-0 [002] d... 1.000000001: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=b "
      "next_pid=2 next_prio=120\n"
      "  <idle>-0 [002] d... 1.0000");
  REQUIRE(cut);
  CHECK(cut->events.size() == 1);
  CHECK(cut->unreadable_lines == 1);
  // Numbers past their range are not trusted.
  auto huge = ParseFtraceText("  a-99999999999999999999 [002] 1.0: x: y\n  b-1 [9999999] 1.0: x: y\n  c-1 [002] 99999999999.0: x: y\n");
  CHECK_FALSE(huge);
  // Every prefix of a good line parses or fails cleanly.
  const std::string good =
      "  noise-412 (400) [002] d..2. 548.771077442: sched_switch: prev_comm=noise prev_pid=412 prev_prio=4 "
      "prev_state=R ==> next_comm=x next_pid=1 next_prio=120\n";
  for (size_t n = 0; n <= good.size(); ++n) (void)ParseFtraceText(good.substr(0, n));
}

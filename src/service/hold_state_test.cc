// The state file `rtagent status` reads, and its text rendering.
#include "service/hold_state.h"

#include <catch2/catch.hpp>
#include <cerrno>

#include "base/fault_root.h"
#include "base/time_text.h"

using namespace rtagent::service;

namespace {
HoldState Sample() {
  HoldState s;
  s.pid = 4242;
  s.state = "holding";
  s.profile = "/etc/rtagent/profile.yaml";
  s.root = "/";
  s.since = 1796000000;
  s.updated = 1796000100;
  s.on_stop = "keep";
  s.watch_interval = "5s";
  s.cpus = "0";
  s.pm_qos_us = 0;
  s.applied = 12;
  s.unchangeable = 2;
  s.reboot_required = 1;
  s.ticks = 20;
  s.replans = 3;
  s.last_replan = "IRQ 125 fired outside CPUs 0";
  s.replan_interval = "5m";
  s.AddDrift({1796000050, "irqs", "IRQ 125 (eno1) affinity", "proc/irq/125/smp_affinity_list", "0-3", "0", "re-asserted"});
  s.AddDrift({1796000060, "irqs", "IRQ 125 (eno1) affinity", "proc/irq/125/smp_affinity_list", "0-3", "0", "re-asserted",
              "irqbalance (process 4242)"});
  s.last_verify = {1796000001, "PASS", 0, 3, 0, 0, 2, "boot", "0 items differ"};
  VerdictSummary v;
  v.path = "/var/lib/rtagent/v.json";
  v.started_at = "2026-11-29T00:00:00Z";
  v.ended_at = 1796000000;
  v.worst_us = 812.0;
  v.cpus = {{2, 812.0, 9.0, 3, 1000}, {3, std::nullopt, std::nullopt, 0, 0}};
  s.verdict = v;
  return s;
}
}  // namespace

TEST_CASE("the state file round-trips through JSON", "[service]") {
  HoldState s = Sample();
  auto back = ParseHoldState(ToJson(s).dump());
  REQUIRE(back.ok());
  CHECK(ToJson(*back) == ToJson(s));
  CHECK(back->drift.front().what == "IRQ 125 (eno1) affinity");
  CHECK(back->drift.front().cause.empty());
  CHECK(back->drift.back().cause == "irqbalance (process 4242)");
  CHECK(*back->pm_qos_us == 0);
  CHECK(back->verdict->worst_us == 812.0);
  CHECK(back->verdict->ended_at == 1796000000);
  CHECK(back->verdict->cpus == s.verdict->cpus);
  CHECK(back->replans == 3);
  CHECK(back->last_replan == "IRQ 125 fired outside CPUs 0");
  CHECK(ToJson(s)["put_back_at_stop"].is_null());
  s.prometheus_textfile = "/var/lib/node_exporter/rtagent.prom";
  s.put_back_at_stop = RevertedSince{1796000150, 9, 1};
  auto with_prom = ParseHoldState(ToJson(s).dump());
  REQUIRE(with_prom.ok());
  CHECK(with_prom->prometheus_textfile == "/var/lib/node_exporter/rtagent.prom");
  REQUIRE(with_prom->put_back_at_stop.has_value());
  CHECK(with_prom->put_back_at_stop->restored == 9);
  CHECK(with_prom->put_back_at_stop->failed == 1);
  CHECK(ToJson(*with_prom) == ToJson(s));
}

TEST_CASE("a state file that is not ours is an error naming the problem", "[service]") {
  CHECK_FALSE(ParseHoldState("").ok());
  CHECK_FALSE(ParseHoldState("[1,2]").ok());
  auto r = ParseHoldState("{\"pid\": \"x\", \"state\": \"holding\"}");
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message, Catch::Contains("unexpected content"));
  CHECK_FALSE(ParseHoldState("{\"state\": \"holding\"}").ok());  // no pid
}

TEST_CASE("the drift ring keeps the newest events and counts them all", "[service]") {
  HoldState s;
  for (int i = 0; i < 40; ++i) s.AddDrift({i, "irqs", "IRQ " + std::to_string(i), "", "0-3", "0", "re-asserted"});
  CHECK(s.drift.size() == HoldState::kMaxDriftEvents);
  CHECK(s.drift_total == 40);
  CHECK(s.drift.front().what == "IRQ 8");
  CHECK(s.drift.back().what == "IRQ 39");
}

TEST_CASE("status text says what is held, since when, drift and verify", "[service]") {
  HoldState s = Sample();
  std::string t = RenderStatusText(s, true, 1796000160);
  CHECK_THAT(t, Catch::StartsWith("rtagent hold: running (pid 4242), holding /etc/rtagent/profile.yaml\n"));
  CHECK_THAT(t, Catch::Contains("since:          2026-") && Catch::Contains("(2m 40s ago)"));
  CHECK_THAT(t, Catch::Contains("PM QoS note:    0 us on /dev/cpu_dma_latency (held)"));
  CHECK_THAT(t, Catch::Contains("12 written, 2 the kernel refuses to change, 1 waiting for a reboot"));
  CHECK_THAT(t, Catch::Contains("last verify:    PASS at "));
  CHECK_THAT(t, Catch::Contains("IRQ 125 (eno1) affinity: 0-3 -> 0  re-asserted\n"));
  CHECK_THAT(t, Catch::Contains("IRQ 125 (eno1) affinity: 0-3 -> 0  re-asserted; moved by irqbalance (process 4242)\n"));
  CHECK_THAT(t, Catch::Contains("full re-plans:  3 (when a cheap signal moves, at least every 5m), last: IRQ 125 fired "
                                "outside CPUs 0\n"));
  CHECK_THAT(t, Catch::Contains("latency verdict: FAIL (2026-11-29T00:00:00Z, worst 812 us)"));

  std::string gone = RenderStatusText(s, false, 1796000160);
  CHECK_THAT(gone, Catch::StartsWith("rtagent hold: not running (pid 4242 is gone;"));
  CHECK_THAT(gone, Catch::Contains("(released)"));

  s.state = "stopped";
  s.stop_reason = "SIGTERM: state kept";
  CHECK_THAT(RenderStatusText(s, false, 1796000160),
             Catch::StartsWith("rtagent hold: not running (stopped at 2026-") && Catch::Contains(": SIGTERM: state kept)"));
  s.pm_qos_us.reset();
  CHECK_THAT(RenderStatusText(s, false, 0), Catch::Contains("PM QoS note:    none asked"));
}

TEST_CASE("NoteRevertSince: a stopped hold's state file says revert put its values back", "[service]") {
  rtagent::TempTree t;
  rtagent::FaultRoot root(t.dir());
  const RevertedSince what{1796000200, 14, 2};
  REQUIRE(NoteRevertSince(root, what));  // no state file: nothing to note, nothing written
  CHECK(root.calls().empty());
  CHECK_FALSE(rtagent::FsRoot(t.dir()).Exists(StatePath()));

  HoldState s = Sample();
  s.state = "stopped";
  s.stop_reason = "SIGTERM: state kept (on_stop: keep; `rtagent revert` puts it back)";
  t.Put(StatePath(), ToJson(s).dump(2));
  REQUIRE(NoteRevertSince(root, what));
  auto back = ReadHoldState(root);
  REQUIRE(back);
  REQUIRE(back->has_value());
  REQUIRE((*back)->reverted.has_value());
  CHECK((*back)->reverted->restored == 14);
  CHECK((*back)->reverted->failed == 2);
  CHECK((*back)->updated == s.updated);          // when the hold stopped, not when revert ran
  CHECK((*back)->stop_reason == s.stop_reason);  // the stop's own record is kept as it was
  const std::string text = RenderStatusText(**back, false, 1796000300);
  CHECK_THAT(text, Catch::Contains("\n  since then:     `rtagent revert` put back 14 values at 2026-") &&
                       Catch::Contains("; 2 values could not be\n"));
  CHECK_THAT(text, Catch::StartsWith("rtagent hold: not running (stopped at " + rtagent::IsoTime(s.updated) + ": "));
  CHECK(ToJson(**back)["reverted_since"]["restored"] == 14);
  // A hold started again writes a fresh state: nothing reverted since.
  CHECK_THAT(RenderStatusText(s, false, 1796000300), !Catch::Contains("since then:"));
  CHECK(ToJson(s)["reverted_since"].is_null());

  const std::string before = t.Get(StatePath());
  root.FailNthWrite(root.calls().size() + 1, ENOSPC);
  auto full = NoteRevertSince(root, RevertedSince{1796000400, 1, 0});
  REQUIRE_FALSE(full);
  CHECK_THAT(full.error().message, Catch::StartsWith(t.dir() + "/run/rtagent/state.json: "));
  CHECK(full.error().err == ENOSPC);
  CHECK(t.Get(StatePath()) == before);

  t.Put(StatePath(), "{not json");
  auto bad = NoteRevertSince(root, what);
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().message, Catch::StartsWith(t.dir() + "/run/rtagent/state.json: "));
  CHECK(t.Get(StatePath()) == "{not json");
}

TEST_CASE("Prometheus after revert: nothing held, when it was put back and what could not be", "[service]") {
  HoldState s = Sample();
  s.state = "stopped";
  const std::string kept = RenderPrometheus(s, false);
  CHECK_THAT(kept, Catch::Contains("\nrtagent_held_values 12\n"));
  CHECK_THAT(kept, !Catch::Contains("rtagent_revert_"));
  s.reverted = RevertedSince{1796000200, 14, 2};
  const std::string after = RenderPrometheus(s, false);
  CHECK_THAT(after, Catch::Contains("\nrtagent_held_values 0\n"));
  CHECK_THAT(after, Catch::Contains("# TYPE rtagent_revert_time_seconds gauge\nrtagent_revert_time_seconds 1796000200\n"));
  CHECK_THAT(after, Catch::Contains("# TYPE rtagent_revert_failed_values gauge\nrtagent_revert_failed_values 2\n"));
}

TEST_CASE("TextfileOnHost: the running system's path live, the same path inside a fixture tree", "[service]") {
  rtagent::TempTree t;
  CHECK(TextfileOnHost(rtagent::FsRoot("/"), "/var/lib/prometheus/node-exporter/rtagent.prom") ==
        "/var/lib/prometheus/node-exporter/rtagent.prom");
  CHECK(TextfileOnHost(rtagent::FsRoot(t.dir()), "/var/lib/prometheus/node-exporter/rtagent.prom") ==
        t.dir() + "/var/lib/prometheus/node-exporter/rtagent.prom");
}

TEST_CASE("Prometheus label values are escaped", "[service]") {
  HoldState s = Sample();
  s.profile = "a\"b\\c";
  CHECK_THAT(RenderPrometheus(s, true), Catch::Contains("rtagent_hold_up{profile=\"a\\\"b\\\\c\"} 1\n"));
}

TEST_CASE("ReadHoldState: no file is no state, a bad file an error naming it, a good one its state",
          "[service]") {
  rtagent::TempTree t;
  rtagent::FaultRoot root(t.dir());
  auto none = ReadHoldState(root);
  REQUIRE(none);
  CHECK_FALSE(none->has_value());

  t.Put(StatePath(), "{not json");
  auto bad = ReadHoldState(root);
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().message, Catch::StartsWith(t.dir() + "/run/rtagent/state.json: "));

  t.Put(StatePath(), ToJson(Sample()).dump(2));
  auto good = ReadHoldState(root);
  REQUIRE(good);
  REQUIRE(good->has_value());
  CHECK((*good)->pid == 4242);
  CHECK((*good)->state == "holding");

  root.FailReads(StatePath(), EACCES);
  auto unreadable = ReadHoldState(root);
  REQUIRE_FALSE(unreadable);
  CHECK(unreadable.error().err == EACCES);
}

TEST_CASE("HeldPmQosNote: the note a state file names, and none for anything else", "[service][pm_qos]") {
  rtagent::TempTree t;
  rtagent::FaultRoot root(t.dir());
  CHECK_FALSE(HeldPmQosNote(root).has_value());  // no hold ran here

  t.Put(StatePath(), R"({"pid": 42, "state": "holding", "pm_qos_us": 20})");
  CHECK(HeldPmQosNote(root) == 20);
  t.Put(StatePath(), R"({"pid": 42, "state": "holding", "pm_qos_us": null})");
  CHECK_FALSE(HeldPmQosNote(root).has_value());
  t.Put(StatePath(), R"({"pid": 42, "state": "holding", "pm_qos_us": -5})");
  CHECK_FALSE(HeldPmQosNote(root).has_value());
  t.Put(StatePath(), "{not json");
  CHECK_FALSE(HeldPmQosNote(root).has_value());
  // A file without the state hold always writes is not hold's: no note (the reader `accept`
  // had of its own took the note from it anyway; the service's reader is the one kept).
  t.Put(StatePath(), R"({"pid": 42, "pm_qos_us": 20})");
  CHECK_FALSE(HeldPmQosNote(root).has_value());
}

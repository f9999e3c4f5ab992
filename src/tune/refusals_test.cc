#include "tune/refusals.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <filesystem>

#include "base/fault_root.h"
#include "base/trust_test_support.h"

using namespace rtagent;

namespace {

const std::string kIrq = "proc/irq/36/smp_affinity_list";

Refusal Managed() {
  return {"irqs", "IRQ 36 (virtio1-req.0) affinity", "file", kIrq, "0", "0-1", Compare::kCpuList, "a managed IRQ"};
}

Change Pending(const std::string& now, const std::string& wanted) {
  Change c;
  c.section = "irqs";
  c.what = "IRQ 36 (virtio1-req.0) affinity";
  c.key = kIrq;
  c.before = now;
  c.after = wanted;
  c.compare = Compare::kCpuList;
  return c;
}

}  // namespace

TEST_CASE("refusals: stored, loaded back field for field, and no file when there are none", "[tune]") {
  TempTree t;
  FaultRoot root(t.dir());
  auto none = RefusalRecord::Load(root);
  REQUIRE(none);
  CHECK(none->empty());

  Refusal odd = Managed();
  odd.what = "a \"quoted\" name\twith a tab";
  odd.actuator = "sched";
  odd.key = "task/812";
  odd.compare = Compare::kWords;
  REQUIRE(RefusalRecord::Store(root, {Managed(), odd}).ok());
  auto back = RefusalRecord::Load(root);
  REQUIRE(back);
  REQUIRE(back->size() == 2);
  const Refusal& r = (*back)[1];
  CHECK(r.section == "irqs");
  CHECK(r.what == odd.what);
  CHECK(r.actuator == "sched");
  CHECK(r.key == "task/812");
  CHECK(r.wanted == "0");
  CHECK(r.kept == "0-1");
  CHECK(r.compare == Compare::kWords);
  CHECK(r.reason == "a managed IRQ");
  // Written as apply writes its own files: durably, in one rename.
  CHECK(root.calls().back().kind == FaultRoot::Call::kDurable);

  REQUIRE(RefusalRecord::Store(root, {}).ok());
  CHECK_FALSE(root.Exists(RefusalRecord::Path()));
}

TEST_CASE("refusals: a record that is not rtagent's is an error naming the file, and nothing of it is used",
          "[tune]") {
  TempTree t;
  FsRoot root(t.dir());
  const std::string file = t.dir() + "/" + RefusalRecord::Path();
  auto load_error = [&](const std::string& text) {
    t.Put(RefusalRecord::Path(), text);
    auto r = RefusalRecord::Load(root);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::StartsWith(file + ": "));
    return r.error().message;
  };
  CHECK_THAT(load_error("{\"refused\": [ {\"key\": "), Catch::Contains("corrupt or truncated") &&
                                                         Catch::Contains("rm " + file));
  CHECK_THAT(load_error("{\"refused\": [], \"version\": 7}\n"),
             Catch::Contains("in format 7, written by another rtagent version; this one reads format 1"));
  CHECK_THAT(load_error("{\"refused\": []}\n"), Catch::Contains("in format none"));
  CHECK_THAT(load_error("{\"refused\": [{\"key\": \"proc/irq/36/smp_affinity_list\", \"wanted\": 0}], \"version\": 1}\n"),
             Catch::Contains("an entry lacks a field or has one of the wrong type: {\"key\":"));
  CHECK_THAT(load_error("{\"refused\": [{\"section\": \"irqs\", \"what\": \"w\", \"actuator\": \"file\", \"key\": \"k\", "
                        "\"wanted\": \"0\", \"kept\": \"1\", \"compare\": \"hexagons\", \"reason\": \"r\"}], "
                        "\"version\": 1}\n"),
             Catch::Contains("wrong type"));

  // A directory where the file should be: an error of its own, not an empty record.
  std::filesystem::remove(file);
  std::filesystem::create_directories(file);
  auto r = RefusalRecord::Load(root);
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error().message, Catch::StartsWith(file + ": "));
}

TEST_CASE("refusals: as root, a record another user can write is not read", "[tune]") {
  TempTree t;
  FsRoot root(t.dir());
  REQUIRE(RefusalRecord::Store(root, {Managed()}).ok());
  test::EnforcedFileTrust enforced;
  REQUIRE(RefusalRecord::Load(root));
  const std::string file = t.dir() + "/" + RefusalRecord::Path();
  REQUIRE(::chmod(file.c_str(), 0666) == 0);
  auto r = RefusalRecord::Load(root);
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error().message, Catch::Contains("not read as root") && Catch::Contains("chmod"));
}

TEST_CASE("refusals: a refusal explains a setting only while the kernel keeps what it kept", "[tune]") {
  const std::vector<Refusal> record = {Managed()};
  // As the plan sees it after apply: the same key, wanted value and kept value, by meaning.
  CHECK(RefusalRecord::Explaining(record, Pending("0-1", "0")) == &record[0]);
  CHECK(RefusalRecord::Explaining(record, Pending("0,1", "0")) == &record[0]);
  // Something moved it since: a drift, not the kernel's refusal.
  CHECK(RefusalRecord::Explaining(record, Pending("1", "0")) == nullptr);
  // The profile wants another value now: apply has not tried it.
  CHECK(RefusalRecord::Explaining(record, Pending("0-1", "0,2")) == nullptr);
  // Another item, or the same path through another actuator.
  Change other = Pending("0-1", "0");
  other.key = "proc/irq/37/smp_affinity_list";
  CHECK(RefusalRecord::Explaining(record, other) == nullptr);
  Change sched = Pending("0-1", "0");
  sched.actuator = "sched";
  CHECK(RefusalRecord::Explaining(record, sched) == nullptr);
}

TEST_CASE("refusals: many of them, in any order in the file, are each found", "[tune]") {
  TempTree t;
  FsRoot root(t.dir());
  // Written by hand, last IRQ first: Load sorts them for Explaining's binary search.
  std::string text = "{\"refused\": [";
  for (int irq = 99; irq >= 0; --irq) {
    text += std::string(irq == 99 ? "" : ",") + "{\"section\": \"irqs\", \"what\": \"w\", \"actuator\": \"file\", " +
            "\"key\": \"proc/irq/" + std::to_string(irq) + "/smp_affinity_list\", \"wanted\": \"0\", " +
            "\"kept\": \"" + std::to_string(irq % 4) + "\", \"compare\": \"cpulist\", \"reason\": \"r\"}";
  }
  t.Put(RefusalRecord::Path(), text + "], \"version\": 1}\n");
  auto record = RefusalRecord::Load(root);
  REQUIRE(record);
  REQUIRE(record->size() == 100);
  int found = 0;
  for (int irq = 0; irq < 100; ++irq) {
    Change c = Pending(std::to_string(irq % 4), "0");
    c.key = "proc/irq/" + std::to_string(irq) + "/smp_affinity_list";
    const Refusal* r = RefusalRecord::Explaining(*record, c);
    found += r != nullptr && r->key == c.key;
  }
  CHECK(found == 100);
}

// The run's lease on fs.mqueue.msgsize_max, against a fault root: raised only when needed,
// put back on every way out, and every failure a note rather than a write left behind.
#include <cerrno>

#include <catch2/catch.hpp>

#include "base/fault_root.h"
#include "bench/mqueue_limit.h"

using namespace rtagent;
using namespace rtagent::bench;

namespace {

const std::string kFile = "proc/sys/fs/mqueue/msgsize_max";

// A scratch tree whose msgsize_max reads `value` ("" : no such file), behind a fault root.
struct Limit {
  explicit Limit(const std::string& value) {
    if (!value.empty()) t.Put(kFile, value + "\n");
  }
  TempTree t;
  FaultRoot root{t.dir()};
};

}  // namespace

TEST_CASE("mqueue limit: raised for the run and put back when the lease ends", "[bench]") {
  Limit l("8192");
  auto& [t, root] = l;
  {
    MqueueLimit m = RaiseMqueueLimit(root, 65536);
    REQUIRE(m.lease);
    CHECK(t.Get(kFile) == "65536\n");
    CHECK_THAT(m.note, Catch::Contains("fs.mqueue.msgsize_max raised from 8192 to 65536"));
  }  // an error return or Ctrl-C leaves the command the same way
  CHECK(t.Get(kFile) == "8192\n");
  CHECK(root.writes() == std::vector<std::pair<std::string, std::string>>{{kFile, "65536"}, {kFile, "8192"}});
}

TEST_CASE("mqueue limit: an explicit restore runs once", "[bench]") {
  Limit l("8192");
  auto& [t, root] = l;
  MqueueLimit m = RaiseMqueueLimit(root, 65536);
  REQUIRE(m.lease);
  REQUIRE(m.lease->Restore());
  CHECK(t.Get(kFile) == "8192\n");
  m.lease.reset();
  CHECK(root.writes().size() == 2);
}

TEST_CASE("mqueue limit: a limit already high enough is left alone", "[bench]") {
  Limit l("131072");
  auto& [t, root] = l;
  MqueueLimit m = RaiseMqueueLimit(root, 65536);
  CHECK_FALSE(m.lease);
  CHECK(m.note.empty());
  CHECK(root.writes().empty());
}

TEST_CASE("mqueue limit: a refused raise is a note naming the limit, and nothing stays changed", "[bench]") {
  Limit l("8192");
  auto& [t, root] = l;
  root.FailWrites(kFile, EACCES);
  MqueueLimit m = RaiseMqueueLimit(root, 65536);
  CHECK_FALSE(m.lease);
  CHECK_THAT(m.note, Catch::Contains("fs.mqueue.msgsize_max is 8192 and could not be raised to 65536") &&
                         Catch::Contains("queue messages above 8192 bytes are skipped"));
  CHECK(t.Get(kFile) == "8192\n");
}

TEST_CASE("mqueue limit: a restore the kernel refuses names the file and the value it should hold", "[bench]") {
  Limit l("8192");
  auto& [t, root] = l;
  root.FailWrites(kFile, EPERM, 1);  // the raise goes through, both tries to put it back fail
  MqueueLimit m = RaiseMqueueLimit(root, 65536);
  REQUIRE(m.lease);
  auto back = m.lease->Restore();
  REQUIRE_FALSE(back);
  CHECK(back.error().err == EPERM);
  CHECK_THAT(back.error().message, Catch::Contains(kFile + " should read \"8192\""));
}

TEST_CASE("mqueue limit: no mqueue sysctl, or one that cannot be read, is a note", "[bench]") {
  Limit l("");
  auto& [t, root] = l;
  MqueueLimit none = RaiseMqueueLimit(root, 65536);
  CHECK_FALSE(none.lease);
  CHECK_THAT(none.note, Catch::Contains("no fs.mqueue.msgsize_max on this kernel"));
  t.Put(kFile, "8192\n");
  root.FailReads(kFile, EACCES);
  MqueueLimit unread = RaiseMqueueLimit(root, 65536);
  CHECK_FALSE(unread.lease);
  CHECK_THAT(unread.note, Catch::Contains("cannot read fs.mqueue.msgsize_max"));
  CHECK(root.writes().empty());
}

// The temporary twins an interrupted WriteDurable leaves, and what removes them.
#include "base/stale_temps.h"

#include <unistd.h>

#include <catch2/catch.hpp>

#include "base/fault_root.h"

using namespace rtagent;

TEST_CASE("kill: RemoveStaleTemps removes the temporary twins a killed WriteDurable left, nothing else", "[base]") {
  TempTree t;
  t.Put("run/rtagent/journal.json", "{}\n");
  t.Put("run/rtagent/journal.json.tmp.4242", "{\"vers");  // a writer killed before its rename
  t.Put("run/rtagent/journal.json.tmp.x", "not ours");
  t.Put("run/rtagent/journal.json.tmp." + std::to_string(::getpid()), "this process's own, mid-write");
  t.Put("run/rtagent/other.json.tmp.4242", "another file's");
  FsRoot root(t.dir());
  REQUIRE(RemoveStaleTemps(root, "run/rtagent/journal.json").ok());
  CHECK(t.Get("run/rtagent/journal.json") == "{}\n");
  CHECK_FALSE(root.Exists("run/rtagent/journal.json.tmp.4242"));
  CHECK(root.Exists("run/rtagent/journal.json.tmp.x"));
  CHECK(root.Exists("run/rtagent/journal.json.tmp." + std::to_string(::getpid())));
  CHECK(root.Exists("run/rtagent/other.json.tmp.4242"));
  // No directory: nothing to do, no error.
  CHECK(RemoveStaleTemps(root, "var/lib/rtagent/boot-journal.json").ok());
}

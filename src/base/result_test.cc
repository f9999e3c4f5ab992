// Errors as values: MakeError names the errno once, and Wrap adds a caller's words without
// repeating that text or losing the errno the callers above it test (ENOENT against EIO).
#include "base/result.h"

#include <catch2/catch.hpp>
#include <cerrno>

using namespace rtagent;

TEST_CASE("an error wrapped twice names its errno once and keeps it", "[base][result]") {
  const Error inner = MakeError("cannot read /proc/mounts", ENOENT);
  CHECK(inner.message == "cannot read /proc/mounts: No such file or directory");
  CHECK(inner.err == ENOENT);

  const Error once = Wrap("cannot find the cpuset hierarchy: ", inner);
  const Error twice = Wrap("partitions: ", once, "; nothing was changed");
  CHECK(twice.message ==
        "partitions: cannot find the cpuset hierarchy: cannot read /proc/mounts: No such file or directory; "
        "nothing was changed");
  CHECK(twice.err == ENOENT);

  const Error plain = Wrap("profile: ", MakeError("no such key"));
  CHECK(plain.message == "profile: no such key");
  CHECK(plain.err == 0);
}

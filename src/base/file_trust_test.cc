// The rule for files rtagent acts on as root (issue 17, "a profile writable by a non-root user
// is applied by root without a word"): scratch files with chosen modes and owners. The tests
// trust their own uid as they would root, so they mean the same as root and as a user.
#include "base/file_trust.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "base/fault_root.h"
#include "base/trust_test_support.h"

namespace rtagent {
namespace {

FileTrust Enforced() {
  test::EnforcedFileTrust scoped;
  return ProcessFileTrust();
}

std::string MakeFile(const TempTree& t, const std::string& rel, mode_t mode) {
  t.Put(rel, "name: board\n");
  const std::string path = t.dir() + "/" + rel;
  REQUIRE(::chmod(path.c_str(), mode) == 0);
  // Its directory as a umask of 022 makes it, whatever this shell's umask is.
  REQUIRE(::chmod(std::filesystem::path(path).parent_path().c_str(), 0755) == 0);
  return path;
}

}  // namespace

TEST_CASE("file trust: a file only its owner can write, in directories only root can write, is taken", "[base]") {
  TempTree t;
  const std::string p = MakeFile(t, "etc/profile.yaml", 0644);
  CHECK_FALSE(FindUntrusted(p, Enforced()));
}

TEST_CASE("file trust: a world-writable profile is refused, naming the file and its mode, with chmod o-w", "[base]") {
  TempTree t;
  const std::string p = MakeFile(t, "profile.yaml", 0666);
  auto bad = FindUntrusted(p, Enforced());
  REQUIRE(bad);
  CHECK(bad->message == p + " is writable by every user (mode 0666)");
  CHECK(bad->hint == "chmod o-w " + p);
  // Not enforced (not root, or --allow-unsafe-profile): taken.
  CHECK_FALSE(FindUntrusted(p, FileTrust{}));
}

TEST_CASE("file trust: a group-writable file is refused unless the group is root's", "[base]") {
  TempTree t;
  const std::string p = MakeFile(t, "profile.yaml", 0664);
  struct stat st;
  REQUIRE(::stat(p.c_str(), &st) == 0);
  if (st.st_gid == 0) {
    CHECK_FALSE(FindUntrusted(p, Enforced()));  // group root may write, as sudo allows
    REQUIRE(::chown(p.c_str(), static_cast<uid_t>(-1), 1) == 0);  // root may give it to group 1
  }
  auto bad = FindUntrusted(p, Enforced());
  REQUIRE(bad);
  CHECK_THAT(bad->message, Catch::StartsWith(p + " is writable by group ") && Catch::EndsWith("(mode 0664)"));
  CHECK_THAT(bad->hint, Catch::StartsWith("chmod g-w " + p));
}

TEST_CASE("file trust: a file owned by another user is refused with chown root:root", "[base]") {
  TempTree t;
  const std::string p = MakeFile(t, "profile.yaml", 0644);
  FileTrust trust = Enforced();
  if (::geteuid() == 0) {
    REQUIRE(::chown(p.c_str(), 65534, static_cast<gid_t>(-1)) == 0);
  } else {
    trust.owner = ::geteuid() + 1;  // the file's owner (this user) is now "another user"
  }
  auto bad = FindUntrusted(p, trust);
  REQUIRE(bad);
  CHECK_THAT(bad->message, Catch::StartsWith(p + " is owned by uid ") && Catch::Contains("not root"));
  CHECK_THAT(bad->hint, Catch::StartsWith("chown root:root " + p));
}

TEST_CASE("file trust: a safe file in a directory others can write is refused, naming the directory", "[base]") {
  TempTree t;
  const std::string p = MakeFile(t, "shared/profile.yaml", 0644);
  const std::string dir = t.dir() + "/shared";
  REQUIRE(::chmod(dir.c_str(), 0777) == 0);
  auto bad = FindUntrusted(p, Enforced());
  REQUIRE(bad);
  // Anyone could rename it away and put their own in its place.
  CHECK(bad->message == "the directory " + dir + " (above " + p + ") is writable by every user (mode 0777)");
  CHECK(bad->hint == "chmod o-w " + dir);
  // Sticky (as /tmp): only an entry's owner may replace it, so the directory is no way in.
  REQUIRE(::chmod(dir.c_str(), 01777) == 0);
  CHECK_FALSE(FindUntrusted(p, Enforced()));
}

TEST_CASE("file trust: a link is judged where it leads, and a missing file is left to the open", "[base]") {
  TempTree t;
  const std::string target = MakeFile(t, "open/profile.yaml", 0644);
  REQUIRE(::chmod((t.dir() + "/open").c_str(), 0777) == 0);
  MakeFile(t, "etc/keep", 0644);
  const std::string link = t.dir() + "/etc/profile.yaml";
  std::filesystem::create_symlink(target, link);
  auto bad = FindUntrusted(link, Enforced());
  REQUIRE(bad);
  CHECK_THAT(bad->message, Catch::StartsWith("the directory " + t.dir() + "/open (above " + target + ")"));
  CHECK_FALSE(FindUntrusted(t.dir() + "/missing.yaml", Enforced()));
}

}  // namespace rtagent

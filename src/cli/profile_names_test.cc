// Profiles by name: the search path, the resolution order, the listing and its descriptions,
// against fixture directories (never the live /etc), and the commands that take a PROFILE
// through the built binary with RTAGENT_PROFILE_DIR.
#include "cli/profile_names.h"

#include <catch2/catch.hpp>

#include "base/shell_test_support.h"
#include "profile/test_support.h"

using rtagent::ProfileDir;
using rtagent::profile::testing::TempDir;

namespace {

const char* kBoard = "version: 1\nname: board\ndescription: a test board\ncores:\n  housekeeping: 0\n  isolated: 1-3\n";

std::vector<ProfileDir> Dirs(const TempDir& etc, const TempDir& env, const TempDir& share) {
  return rtagent::ProfileDirs(etc.path(), env.path(), share.path() + "/rtagent/profiles");
}

rtagent::test::ShellResult RtAgent(const std::string& env, const std::string& args) {
  return rtagent::test::RunShell(env + " " + std::string(RTAGENT_BINARY) + " " + args + " 2>&1");
}

}  // namespace

TEST_CASE("the profile search path is sysconfdir, then RTAGENT_PROFILE_DIR's parts, then the data dir", "[cli]") {
  auto dirs = rtagent::ProfileDirs("/etc/rtagent", "/a::/b", "/usr/share/rtagent/profiles");
  REQUIRE(dirs.size() == 4);
  CHECK(dirs[0].path == "/etc/rtagent/profiles");
  CHECK(dirs[0].origin == "local");
  CHECK(dirs[1].path == "/a");
  CHECK(dirs[1].origin == "RTAGENT_PROFILE_DIR");
  CHECK(dirs[2].path == "/b");
  CHECK(dirs[3].path == "/usr/share/rtagent/profiles");
  CHECK(dirs[3].origin == "installed");
  CHECK(rtagent::ProfileDirs("/etc/rtagent", "", "/d").size() == 2);
}

TEST_CASE("a bare word is a profile name and anything path-like is a path", "[cli]") {
  CHECK(rtagent::IsProfileName("rpi5"));
  CHECK(rtagent::IsProfileName("x86-ipc"));
  CHECK(rtagent::IsProfileName("board.v2"));
  CHECK_FALSE(rtagent::IsProfileName(""));
  CHECK_FALSE(rtagent::IsProfileName("rpi5.yaml"));
  CHECK_FALSE(rtagent::IsProfileName("rpi5.yml"));
  CHECK_FALSE(rtagent::IsProfileName("./rpi5"));
  CHECK_FALSE(rtagent::IsProfileName("/etc/rtagent/profile.yaml"));
  CHECK_FALSE(rtagent::IsProfileName("base/arm-controller"));
  CHECK_FALSE(rtagent::IsProfileName(".."));
}

TEST_CASE("a name resolves in the first directory that has it", "[cli]") {
  TempDir etc, env, share;
  const std::string shared = share.Write("rtagent/profiles/board.yaml", kBoard);
  share.Write("rtagent/profiles/other.yaml", kBoard);
  auto r = rtagent::ResolveProfileName("board", Dirs(etc, env, share));
  REQUIRE(r.ok());
  CHECK(*r == shared);
  const std::string from_env = env.Write("board.yaml", kBoard);
  CHECK(*rtagent::ResolveProfileName("board", Dirs(etc, env, share)) == from_env);
  const std::string local = etc.Write("profiles/board.yaml", kBoard);
  CHECK(*rtagent::ResolveProfileName("board", Dirs(etc, env, share)) == local);
  CHECK(*rtagent::ResolveProfileName("other", Dirs(etc, env, share)) == share.path() + "/rtagent/profiles/other.yaml");
  // A path is never looked up; the empty argument stays the built-in default.
  CHECK(*rtagent::ResolveProfileArg("./board.yaml", Dirs(etc, env, share)) == "./board.yaml");
  CHECK(*rtagent::ResolveProfileArg("", Dirs(etc, env, share)) == "");
}

TEST_CASE("an unknown name names every directory searched and the nearest name", "[cli]") {
  TempDir etc, env, share;
  share.Write("rtagent/profiles/jetson-orin.yaml", kBoard);
  share.Write("rtagent/profiles/rpi5.yaml", kBoard);
  auto r = rtagent::ResolveProfileName("rpi4", Dirs(etc, env, share));
  REQUIRE_FALSE(r.ok());
  const std::string& m = r.error().message;
  CHECK_THAT(m, Catch::StartsWith("no profile named 'rpi4' (searched " + etc.path() + "/profiles, " + env.path() +
                                  ", " + share.path() + "/rtagent/profiles)"));
  CHECK_THAT(m, Catch::Contains("the nearest name is 'rpi5' (" + share.path() + "/rtagent/profiles/rpi5.yaml)"));
  CHECK_THAT(m, Catch::Contains("hint: `rtagent profiles` lists every name"));
  // A directory, or a file that is not NAME.yaml, is not a profile.
  share.Write("rtagent/profiles/rpi4/x.yaml", kBoard);
  share.Write("rtagent/profiles/rpi4.yml", kBoard);
  CHECK_FALSE(rtagent::ResolveProfileName("rpi4", Dirs(etc, env, share)).ok());

  TempDir e1, e2, e3;
  auto none = rtagent::ResolveProfileName("board", Dirs(e1, e2, e3));
  REQUIRE_FALSE(none.ok());
  CHECK_THAT(none.error().message, Catch::Contains("there is no profile in any of them"));
  CHECK_THAT(none.error().message, Catch::Contains("put board.yaml in " + e1.path() + "/profiles"));
}

TEST_CASE("profiles are listed once each with their description and directory", "[cli]") {
  TempDir etc, env, share;
  share.Write("rtagent/profiles/board.yaml", kBoard);
  share.Write("rtagent/profiles/commented.yaml", "\n# A board described by its comment\n# more words\nversion: 1\n");
  share.Write("rtagent/profiles/folded.yaml", "description: >-\n  two\n  lines\n");
  share.Write("rtagent/profiles/broken.yaml", "# Broken on purpose\ncores: [\n");
  share.Write("rtagent/profiles/bare.yaml", "version: 1\n# a comment after YAML is not a description\n");
  share.Write("rtagent/profiles/base/fragment.yaml", kBoard);
  share.Write("rtagent/profiles/notes.txt", "not a profile");
  etc.Write("profiles/board.yaml", "description: the local one\n");
  auto all = rtagent::ListProfiles(Dirs(etc, env, share));
  REQUIRE(all.size() == 5);
  CHECK(all[0].name == "bare");
  CHECK(all[0].description == "");
  CHECK(all[1].name == "board");
  CHECK(all[1].description == "the local one");
  CHECK(all[1].dir.origin == "local");
  CHECK(all[1].path == etc.path() + "/profiles/board.yaml");
  CHECK(all[2].name == "broken");
  CHECK(all[2].description == "Broken on purpose");
  CHECK(all[3].name == "commented");
  CHECK(all[3].description == "A board described by its comment");
  CHECK(all[4].name == "folded");
  CHECK(all[4].description == "two lines");
  CHECK(all[4].dir.origin == "installed");
}

TEST_CASE("every command that takes a PROFILE takes a name through RTAGENT_PROFILE_DIR", "[cli]") {
  TempDir sys, dir;
  sys.MakeSysroot("0-3", "0-3");
  const std::string file = dir.Write("board.yaml", kBoard);
  const std::string env = "RTAGENT_PROFILE_DIR=" + dir.path();
  auto v = RtAgent(env, "validate --root " + sys.path() + " board");
  CHECK(v.code == 0);
  CHECK(v.out == "board (" + file + "): valid (4 CPUs: housekeeping 0, isolated 1-3)\n");
  auto p = RtAgent(env, "plan --root " + sys.path() + " board");
  CHECK(p.code == 0);
  auto bad = RtAgent(env, "plan --root " + sys.path() + " bord");
  CHECK(bad.code == 2);
  CHECK_THAT(bad.out, Catch::StartsWith("rtagent plan: no profile named 'bord' (searched "));
  CHECK_THAT(bad.out, Catch::Contains(dir.path() + ", "));
  CHECK_THAT(bad.out, Catch::Contains("the nearest name is 'board' (" + file + ")"));
  auto badv = RtAgent(env, "validate --root " + sys.path() + " bord");
  CHECK(badv.code == 2);
  CHECK_THAT(badv.out, Catch::StartsWith("rtagent validate: no profile named 'bord'"));
  // A word that is a file here, not a name: the hint says how to give the file.
  dir.Write("myboard", kBoard);
  auto here = RtAgent("cd " + dir.path() + " && " + env, "validate --root " + sys.path() + " myboard");
  CHECK(here.code == 2);
  CHECK_THAT(here.out, Catch::StartsWith("rtagent validate: no profile named 'myboard' (searched "));
  CHECK_THAT(here.out, Catch::EndsWith(")\n  hint: 'myboard' is a file in this directory, but a word without '/' or "
                                       ".yaml is a profile name; give the file as ./myboard\n"));
  // A path with a slash is read as written, never looked up.
  auto path = RtAgent(env, "validate --root " + sys.path() + " ./board");
  CHECK(path.code == 2);
  CHECK_THAT(path.out, Catch::Contains("./board"));
}

// The README builds and runs build/rtagent from the source tree, whose profiles/ no name
// lookup searches: a name found only there, and `rtagent profiles` finding nothing, say so.
TEST_CASE("from a source tree, a name in ./profiles is pointed at, never picked up", "[cli]") {
  TempDir tree, sys;
  sys.MakeSysroot("0-3", "0-3");
  tree.Write("profiles/zz-source-board.yaml", kBoard);
  const std::string cd = "cd " + tree.path() + " && ";
  auto v = RtAgent(cd, "validate --root " + sys.path() + " zz-source-board");
  CHECK(v.code == 2);
  CHECK_THAT(v.out, Catch::StartsWith("rtagent validate: no profile named 'zz-source-board' (searched "));
  CHECK_THAT(v.out, Catch::EndsWith(")\n  hint: profiles/zz-source-board.yaml is in this directory (a source tree's "
                                    "profiles; RTAGENT_PROFILE_DIR=profiles makes every name there usable): give it "
                                    "as profiles/zz-source-board.yaml\n"));
  auto by_path = RtAgent(cd, "validate --root " + sys.path() + " profiles/zz-source-board.yaml");
  CHECK(by_path.code == 0);
  auto by_env = RtAgent(cd + "RTAGENT_PROFILE_DIR=profiles", "validate --root " + sys.path() + " zz-source-board");
  CHECK(by_env.code == 0);
  // Elsewhere the same name gets no such hint.
  auto away = RtAgent("cd " + sys.path() + " && ", "validate --root " + sys.path() + " zz-source-board");
  CHECK(away.code == 2);
  CHECK(away.out.find("is in this directory") == std::string::npos);

  auto list = RtAgent(cd, "profiles");
  CHECK(list.code == 0);
  const std::string note = "./profiles holds 1 profile (a source tree's profiles; RTAGENT_PROFILE_DIR=profiles makes "
                           "every name there usable)\n";
  if (list.out.rfind("no profiles found\n", 0) == 0) {
    CHECK_THAT(list.out, Catch::StartsWith("no profiles found\n" + note));
  } else {
    CHECK(list.out.find(note) == std::string::npos);  // profiles are installed here: the table shows them
  }
}

TEST_CASE("rtagent profiles lists names, descriptions, directories, and --names and --json", "[cli]") {
  TempDir dir;
  const std::string file = dir.Write("zz-test-board.yaml", kBoard);
  const std::string env = "RTAGENT_PROFILE_DIR=" + dir.path();
  auto table = RtAgent(env, "profiles");
  CHECK(table.code == 0);
  CHECK_THAT(table.out, Catch::Contains("zz-test-board"));
  CHECK_THAT(table.out, Catch::Contains("a test board"));
  CHECK_THAT(table.out, Catch::Contains("  " + dir.path() + " (RTAGENT_PROFILE_DIR)\n"));
  CHECK_THAT(table.out, Catch::Contains("searched, first match wins:"));
  auto names = RtAgent(env, "profiles --names");
  CHECK(names.code == 0);
  CHECK_THAT(names.out, Catch::Contains("zz-test-board\n"));
  CHECK(names.out.find("a test board") == std::string::npos);
  auto json = RtAgent(env, "profiles --json");
  CHECK(json.code == 0);
  CHECK_THAT(json.out, Catch::Contains("\"path\": \"" + file + "\""));
  CHECK_THAT(json.out, Catch::Contains("\"origin\": \"RTAGENT_PROFILE_DIR\""));
}

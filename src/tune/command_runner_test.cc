// The live runner starts real, harmless programs of this machine (true, false, sh, cat): what
// it reports is what a boot loader's update step would show. Nothing here changes the system.
#include "tune/command_runner.h"

#include <catch2/catch.hpp>

#include "base/fault_root.h"

using namespace rtagent;

TEST_CASE("programs are found in the system's own directories, never by a path", "[tune][boot]") {
  TempTree t;
  t.Put("usr/sbin/update-grub", "#!/bin/sh\n");
  t.Put("bin/kernel-install", "");
  FsRoot root(t.dir());
  CHECK(FindProgram(root, "update-grub") == "usr/sbin/update-grub");
  CHECK(FindProgram(root, "kernel-install") == "bin/kernel-install");
  CHECK_FALSE(FindProgram(root, "grubby"));
  CHECK_FALSE(FindProgram(root, "usr/sbin/update-grub"));  // a path is not a program name
  CHECK_FALSE(FindProgram(root, "../bin/kernel-install"));
}

TEST_CASE("the live runner reports exit status and output, stdin at its end, signals", "[tune][boot]") {
  FsRoot live("/");
  LiveCommandRunner runner(live);
  CommandRun ok = runner.Run({"true"});
  CHECK(ok.exit_status == 0);
  CHECK_FALSE(ok.Failed());
  CHECK_THAT(ok.program, Catch::EndsWith("/true"));
  CommandRun bad = runner.Run({"false"});
  CHECK(bad.exit_status == 1);
  CHECK(bad.Failed());
  CHECK(bad.Status() == "exit 1");
  // stdout and stderr in one stream, in order; the exit status kept.
  CommandRun both = runner.Run({"sh", "-c", "echo out; echo err >&2; exit 3"});
  CHECK(both.output == "out\nerr\n");
  CHECK(both.exit_status == 3);
  CHECK(both.CommandLine() == "sh -c 'echo out; echo err >&2; exit 3'");
  // A program that reads its input gets end of file at once instead of waiting for a person.
  CommandRun cat = runner.Run({"cat"});
  CHECK(cat.exit_status == 0);
  CHECK(cat.output.empty());
  CommandRun killed = runner.Run({"sh", "-c", "kill -9 $$"});
  CHECK(killed.exit_status == 128 + 9);
  CHECK(killed.Status() == "killed by signal 9");
  // Long output keeps its end.
  CommandRun lots = runner.Run({"sh", "-c", "i=0; while [ $i -lt 3000 ]; do echo line $i; i=$((i+1)); done"});
  CHECK(lots.output.size() == CommandRun::kMaxOutput);
  CHECK_THAT(lots.output, Catch::EndsWith("line 2999\n"));
  // Not installed: nothing ran, and that is a failure that says where it looked.
  CommandRun missing = runner.Run({"no-such-update-command"});
  CHECK(missing.exit_status == -1);
  CHECK(missing.Failed());
  CHECK_THAT(missing.Status(), Catch::Contains("not installed") && Catch::Contains("/usr/sbin"));
}

TEST_CASE("under --root nothing runs: the twin says so and remembers what was asked", "[tune][boot]") {
  TempTree t;
  FaultRoot root(t.dir());
  auto runner = DefaultCommandRunnerFactory()(root);
  CommandRun r = runner->Run({"update-grub"});
  CHECK(r.skipped);
  CHECK_FALSE(r.Failed());
  CHECK(r.exit_status == -1);
  CHECK_THAT(r.note, Catch::Contains(t.dir()) && Catch::Contains("on the board itself"));
  auto* twin = dynamic_cast<FixtureCommandRunner*>(runner.get());
  REQUIRE(twin != nullptr);
  CHECK(twin->asked() == std::vector<std::vector<std::string>>{{"update-grub"}});
  // The live root gets the live runner.
  FsRoot live("/");
  CHECK(dynamic_cast<LiveCommandRunner*>(DefaultCommandRunnerFactory()(live).get()) != nullptr);
}

#include "inspect/capture.h"

#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/recording_root.h"
#include "inspect/inspect_json.h"
#include "inspect/inspect_test_support.h"
#include "inspect/system_state.h"
#include "base/skip_test_support.h"

using namespace rtagent;
using rtagent::testing::Fixture;
using rtagent::testing::RunRtagent;
using rtagent::testing::TempDir;
namespace fs = std::filesystem;

namespace {

nlohmann::ordered_json InspectTree(const std::string& dir) {
  FsRoot root(dir);
  return InspectJson(CollectSystemState(root));
}

std::string Slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

const std::string kProfiles = std::string(RTAGENT_SOURCE_DIR) + "/profiles";

// `plan --json PROFILE --root DIR` without the root's name, which differs between a tree and its
// copy: the items, findings and boot loader are what must be the same.
nlohmann::json PlanOn(const std::string& profile, const std::string& dir) {
  auto r = RunRtagent("plan --json " + profile + " --root " + dir);
  INFO(r.out);
  REQUIRE(r.code == 0);
  auto j = nlohmann::json::parse(r.out);
  j.erase("root");
  return j;
}

}  // namespace

TEST_CASE("a capture of each fixture inspects exactly like the fixture", "[inspect][capture]") {
  for (const char* name : {"arm64-rt-8cpu", "x86-ipc-4cpu", "vm-x86-captured", "debian12-rt-arm64-qemu"}) {
    INFO(name);
    TempDir out;
    FsRoot source(Fixture(name));
    auto r = Capture(source, (out.path / "tree").string(), false, "test");
    REQUIRE(r.ok());
    CHECK(r->copy_errors.empty());
    CHECK(r->files > 50);
    CHECK(InspectTree((out.path / "tree").string()) == InspectTree(Fixture(name)));
  }
}

TEST_CASE("a capture copies only what inspect reads and writes a manifest", "[inspect][capture]") {
  TempDir out;
  FsRoot source(Fixture("arm64-rt-8cpu"));
  auto r = Capture(source, out.str(), false, "rtagent capture -o X");
  REQUIRE(r.ok());
  CHECK(r->cpu_dma_latency_us == 0);
  std::string manifest = Slurp(out.path / "MANIFEST");
  CHECK(manifest.find("command: rtagent capture -o X") != std::string::npos);
  CHECK(manifest.find("cpu_dma_latency_us: 0") != std::string::npos);
  CHECK(manifest.find("kernel_release: 6.12.43-rt12-rk3588") != std::string::npos);
  CHECK(manifest.find("  proc/interrupts\n") != std::string::npos);
  // Never-read files are not copied: the fixture's cgroup.procs is not an inspect input.
  CHECK(fs::exists(Fixture("arm64-rt-8cpu") + "/sys/fs/cgroup/rt/cgroup.procs"));
  CHECK_FALSE(fs::exists(out.path / "sys/fs/cgroup/rt/cgroup.procs"));
  CHECK(fs::exists(out.path / "sys/fs/cgroup/rt/cpuset.cpus.partition"));
  CHECK(fs::file_size(out.path / "dev/cpu_dma_latency") == 4);
}

TEST_CASE("inspect reads every file at most once", "[inspect][capture]") {
  // The bench compares inspect with reading its files once: a second read of any file is a bug.
  for (const char* name : {"arm64-rt-8cpu", "x86-ipc-4cpu", "vm-x86-captured", "debian12-rt-arm64-qemu"}) {
    INFO(name);
    TempDir out;
    FsRoot source(Fixture(name));
    RecordingRoot rec(source, out.str());
    CollectSystemState(rec);
    std::vector<std::string> files = rec.Files();
    std::sort(files.begin(), files.end());
    CHECK(std::adjacent_find(files.begin(), files.end()) == files.end());
    CHECK(files.size() > 100);
  }
}

TEST_CASE("capture refuses a non-empty directory unless forced", "[inspect][capture]") {
  TempDir out;
  std::ofstream(out.path / "something") << "x";
  FsRoot source(Fixture("x86-ipc-4cpu"));
  auto refused = Capture(source, out.str(), false, "test");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().err == ENOTEMPTY);
  CHECK_FALSE(fs::exists(out.path / "proc"));
  auto forced = Capture(source, out.str(), true, "test");
  REQUIRE(forced.ok());
  CHECK(fs::exists(out.path / "proc/interrupts"));
  CHECK(fs::exists(out.path / "something"));
}

TEST_CASE("capture into a directory that cannot be made says which and why (exit 2), writing nothing", "[inspect][capture]") {
  TempDir out;
  std::ofstream(out.path / "a-file") << "x";
  const std::string dir = (out.path / "a-file/cap").string();
  FsRoot source(Fixture("x86-ipc-4cpu"));
  auto r = Capture(source, dir, false, "test");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().err == ENOTDIR);
  CHECK_THAT(r.error().message, Catch::StartsWith("cannot create " + dir + ": "));
  auto cli = RunRtagent("capture --root " + Fixture("x86-ipc-4cpu") + " -o " + dir, true);
  CHECK(cli.code == 2);
  CHECK_THAT(cli.out, Catch::Contains("rtagent capture: cannot create " + dir + ": Not a directory"));
  const std::string file = (out.path / "a-file").string();
  auto onto_file = RunRtagent("capture --root " + Fixture("x86-ipc-4cpu") + " -o " + file, true);
  CHECK(onto_file.code == 2);
  CHECK(onto_file.out == "rtagent capture: " + file + " exists and is not a directory\n");
  CHECK(Slurp(out.path / "a-file") == "x");
  CHECK(std::distance(fs::directory_iterator(out.path), fs::directory_iterator{}) == 1);
}

TEST_CASE("rtagent capture --root SRC -o DIR, then inspect --root DIR", "[inspect][capture]") {
  TempDir out;
  std::string dir = (out.path / "cap").string();
  auto r = RunRtagent("capture --root " + Fixture("x86-ipc-4cpu") + " -o " + dir);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("captured") != std::string::npos);
  auto a = RunRtagent("inspect --json --root " + dir);
  auto b = RunRtagent("inspect --json --root " + Fixture("x86-ipc-4cpu"));
  REQUIRE(a.code == 0);
  CHECK(a.out == b.out);
  auto again = RunRtagent("capture --root " + Fixture("x86-ipc-4cpu") + " -o " + dir, true);
  CHECK(again.code == 2);
  CHECK(again.out == "rtagent capture: " + dir + " is not empty; choose an empty directory or pass --force\n");
  CHECK(RunRtagent("capture --root " + Fixture("x86-ipc-4cpu") + " -o " + dir + " --force").code == 0);
}

TEST_CASE("capture -o DIR PROFILE: the copy plans PROFILE exactly as the source did", "[inspect][capture]") {
  struct Case {
    std::string tree, profile;
  };
  for (const Case& c : {Case{"arm64-rt-8cpu", kProfiles + "/generic-4core.yaml"}, Case{"arm64-rt-8cpu", ""},
                        Case{"x86-ipc-4cpu", kProfiles + "/x86-ipc.yaml"}, Case{"x86-ipc-4cpu", ""},
                        Case{"vm-x86-captured", kProfiles + "/ci-vm.yaml"}}) {
    INFO(c.tree << " with " << (c.profile.empty() ? "the built-in default" : c.profile));
    // Each unbound workqueue's own mask is read by the plan alone, never by inspect.
    TempDir src;
    fs::copy(Fixture(c.tree), src.path, fs::copy_options::recursive);
    fs::create_directories(src.path / "sys/bus/workqueue/devices/writeback");
    std::ofstream(src.path / "sys/bus/workqueue/devices/writeback/cpumask") << "ff\n";
    TempDir out;
    const std::string dir = (out.path / "cap").string();
    auto r = RunRtagent("capture --root " + src.str() + " -o " + dir + " " + c.profile, true);
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::EndsWith("plan it with: rtagent --root " + dir + " plan" +
                                      (c.profile.empty() ? "" : " " + c.profile) + "\n"));
    CHECK(Slurp(out.path / "cap/sys/bus/workqueue/devices/writeback/cpumask") == "ff\n");
    CHECK_THAT(Slurp(out.path / "cap/MANIFEST"),
               Catch::Contains("also_read: the plan of " +
                               (c.profile.empty() ? std::string("the built-in default profile") : c.profile) + "\n"));
    CHECK(PlanOn(c.profile, dir) == PlanOn(c.profile, src.str()));
  }
}

TEST_CASE("capture with a profile that cannot be loaded exits 2 and writes nothing", "[inspect][capture]") {
  TempDir out;
  const std::string bad = (out.path / "bad.yaml").string();
  std::ofstream(bad) << "version: 1\ncores:\n  housekeeping: 0\n  isolated: 0\n";
  const std::string dir = (out.path / "cap").string();
  auto r = RunRtagent("capture --root " + Fixture("x86-ipc-4cpu") + " -o " + dir + " " + bad, true);
  CHECK(r.code == 2);
  CHECK_THAT(r.out, Catch::Contains(bad + ":4:13: error: housekeeping and isolated CPUs overlap"));
  CHECK_THAT(r.out, Catch::Contains("rtagent capture: " + bad + " is invalid; nothing was changed"));
  CHECK_FALSE(fs::exists(dir));
}

TEST_CASE("capture without a profile of a tree the default profile cannot load on still copies what inspect reads",
          "[inspect][capture]") {
  TempDir src;
  fs::copy(Fixture("x86-ipc-4cpu"), src.path, fs::copy_options::recursive);
  for (const char* f : {"online", "possible", "present"}) fs::remove(src.path / "sys/devices/system/cpu" / f);
  TempDir out;
  const std::string dir = (out.path / "cap").string();
  auto r = RunRtagent("capture --root " + src.str() + " -o " + dir, true);
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("rtagent capture: the built-in default profile cannot be loaded here ("));
  CHECK_THAT(r.out, Catch::Contains("); the copy holds what inspect reads\n"));
  CHECK_THAT(r.out, Catch::EndsWith("; inspect it with: rtagent --root " + dir + " inspect\n"));
  CHECK(fs::exists(out.path / "cap/proc/interrupts"));
  CHECK_THAT(Slurp(out.path / "cap/MANIFEST"), !Catch::Contains("also_read:"));
  CHECK(RunRtagent("inspect --json --root " + dir).out == RunRtagent("inspect --json --root " + src.str()).out);
}

TEST_CASE("capture with a profile the source cannot plan copies what inspect reads and says why", "[inspect][capture]") {
  // Partitions need a cpuset hierarchy; this tree mounts none, so the plan fails on it (and
  // would fail on the copy the same way).
  TempDir src;
  fs::copy(Fixture("x86-ipc-4cpu"), src.path, fs::copy_options::recursive);
  std::ofstream(src.path / "proc/mounts") << "proc /proc proc rw 0 0\n";
  const std::string profile = (src.path / "board.yaml").string();
  std::ofstream(profile) << "version: 1\ncores:\n  housekeeping: 0\n  isolated: 1-3\npartitions:\n  rt:\n    cpus: 1-3\n";
  TempDir out;
  const std::string dir = (out.path / "cap").string();
  auto r = RunRtagent("capture --root " + src.str() + " -o " + dir + " " + profile, true);
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("rtagent capture: " + profile + " cannot be planned here ("));
  CHECK_THAT(r.out, Catch::Contains("(partitions: no cpuset cgroup hierarchy under " + src.str() +
                                    ": the cgroup v2 hierarchy does not offer the cpuset controller and no v1 "
                                    "hierarchy has it (CONFIG_CPUSETS))"));
  CHECK_THAT(r.out, Catch::EndsWith("; inspect it with: rtagent --root " + dir + " inspect\n"));
  // MANIFEST says so too: whoever plans on the copy later learns why files may be missing.
  CHECK_THAT(Slurp(out.path / "cap/MANIFEST"),
             Catch::Contains("also_read: the plan of " + profile +
                             "  # failed on the source, so not all it needs is here: partitions: no cpuset cgroup "
                             "hierarchy under " + src.str()));
  CHECK(RunRtagent("inspect --json --root " + dir).out == RunRtagent("inspect --json --root " + src.str()).out);
}

TEST_CASE("capture of this machine, then inspect of the copy", "[inspect][capture][host]") {
  if (!fs::exists("/proc/interrupts")) {
    RTAGENT_SKIP("needs a live /proc");
  }
  TempDir out;
  std::string dir = (out.path / "live").string();
  auto r = RunRtagent("capture -o " + dir);
  REQUIRE(r.code == 0);
  CHECK(fs::exists(out.path / "live/MANIFEST"));
  CHECK(fs::exists(out.path / "live/proc/interrupts"));
  CHECK(fs::exists(out.path / "live/proc/cmdline"));
  auto j = RunRtagent("inspect --json --root " + dir);
  REQUIRE(j.code == 0);
  auto doc = nlohmann::json::parse(j.out);
  auto live = nlohmann::json::parse(RunRtagent("inspect --json --section kernel").out);
  CHECK(doc["kernel"]["release"] == live["kernel"]["release"]);
  CHECK(doc["cpus"]["online_count"] == ::sysconf(_SC_NPROCESSORS_ONLN));
  CHECK(doc["irqs"]["count"].get<int>() > 0);
  // The built-in default profile's plan, made here through the kernel's calls and on the copy
  // through the files capture took for it: the same changes.
  CHECK(PlanOn("", dir) == PlanOn("", "/"));
}

TEST_CASE("a capture copies the boot loader's files, so --root replays the board's boot configuration", "[inspect][capture]") {
  TempDir src;
  fs::copy(Fixture("x86-ipc-4cpu"), src.path, fs::copy_options::recursive);
  auto put = [&](const std::string& rel, const std::string& text) {
    fs::create_directories((src.path / rel).parent_path());
    std::ofstream(src.path / rel) << text;
  };
  put("etc/default/grub", "GRUB_CMDLINE_LINUX=\"quiet\"\n");
  put("etc/default/grub.d/50-cloudimg-settings.cfg", "GRUB_CMDLINE_LINUX_DEFAULT=\"console=tty1\"\n");
  put("etc/default/grub.d/README", "not a drop-in\n");
  put("boot/loader/loader.conf", "default abc-*\n");
  put("boot/loader/entries/abc-6.1.0.conf", "title a\noptions root=x\n");
  put("boot/firmware/cmdline.txt", "console=serial0,115200\n");
  put("etc/kernel/cmdline", "root=x\n");
  put("etc/shadow", "secret\n");  // never a boot file: never copied
  TempDir out;
  FsRoot source(src.str());
  auto r = Capture(source, out.str(), false, "test");
  REQUIRE(r.ok());
  for (const char* f : {"etc/default/grub", "etc/default/grub.d/50-cloudimg-settings.cfg", "boot/loader/loader.conf",
                        "boot/loader/entries/abc-6.1.0.conf", "boot/firmware/cmdline.txt", "etc/kernel/cmdline"}) {
    INFO(f);
    CHECK(Slurp(out.path / f) == Slurp(src.path / f));
  }
  CHECK_FALSE(fs::exists(out.path / "etc/default/grub.d/README"));
  CHECK_FALSE(fs::exists(out.path / "etc/shadow"));
  std::string manifest = Slurp(out.path / "MANIFEST");
  CHECK(manifest.find("boot_files: 6") != std::string::npos);
  CHECK(manifest.find("  etc/default/grub\n") != std::string::npos);
  // The copy plans the same boot loader as the board (auto finds the Raspberry Pi's file).
  TempDir prof;
  std::ofstream(prof.path / "auto.yaml") << "cores:\n  housekeeping: 0\n  isolated: 2-3\n  bootloader: auto\n";
  const std::string profile = (prof.path / "auto.yaml").string();
  auto a = RunRtagent("plan --json " + profile + " --root " + src.str());
  auto b = RunRtagent("plan --json " + profile + " --root " + out.str());
  REQUIRE(a.code == 0);
  REQUIRE(b.code == 0);
  auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  CHECK(ja["bootloader"]["loader"] == "rpi");
  CHECK(ja["bootloader"] == jb["bootloader"]);
}

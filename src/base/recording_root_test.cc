#include "base/recording_root.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

using namespace rtagent;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/rtagent-rec-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void Put(const fs::path& p, const std::string& data) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << data;
}

}  // namespace

TEST_CASE("a recording root copies what is read and nothing else", "[base][capture]") {
  TempDir src, out;
  Put(src.path / "proc/cmdline", "quiet isolcpus=2-3\n");
  Put(src.path / "proc/interrupts", "unread\n");
  Put(src.path / "dev/cpu_dma_latency", std::string("\x00\x94\x35\x77", 4));
  fs::create_directories(src.path / "proc/1/task/1");
  fs::create_symlink("/sys/devices/system/cpu/cpufreq/policy0", src.path / "proc/link");

  FsRoot source(src.path.string());
  RecordingRoot rec(source, out.path.string());
  REQUIRE(rec.Read("proc/cmdline").ok());
  REQUIRE(rec.Read("dev/cpu_dma_latency").ok());
  REQUIRE(rec.List("proc/1/task").ok());
  REQUIRE(rec.ReadLink("proc/link").ok());
  CHECK_FALSE(rec.Read("proc/missing").ok());

  FsRoot copy(out.path.string());
  CHECK(*copy.Read("proc/cmdline") == "quiet isolcpus=2-3\n");
  CHECK(copy.Read("dev/cpu_dma_latency")->size() == 4);  // binary copied byte for byte
  CHECK(copy.IsDir("proc/1/task"));
  CHECK_FALSE(copy.Exists("proc/interrupts"));
  CHECK_FALSE(copy.Exists("proc/missing"));
  // The absolute link target now points inside the capture, never at the live system.
  CHECK(*copy.ReadLink("proc/link") == "../sys/devices/system/cpu/cpufreq/policy0");
  CHECK(rec.Files() == std::vector<std::string>{"proc/cmdline", "dev/cpu_dma_latency", "proc/link"});
  CHECK(rec.CopyErrors().empty());
}

TEST_CASE("a recording root never writes to its source", "[base][capture]") {
  TempDir src, out;
  Put(src.path / "sys/kernel/mm/transparent_hugepage/defrag", "[always] madvise never\n");
  FsRoot source(src.path.string());
  RecordingRoot rec(source, out.path.string());
  auto w = rec.Write("sys/kernel/mm/transparent_hugepage/defrag", "never");
  REQUIRE_FALSE(w.ok());
  CHECK(w.error().err == EROFS);
  CHECK(*source.Read("sys/kernel/mm/transparent_hugepage/defrag") == "[always] madvise never\n");
  // rtagent's own files (a journal, a state file) are not stored or removed through it either:
  // the error names the path, and neither the source nor the capture gains or loses a file.
  Put(src.path / "run/rtagent/journal.json", "{}\n");
  auto stored = rec.WriteDurable("run/rtagent/state.json", "{}");
  REQUIRE_FALSE(stored.ok());
  CHECK(stored.error().err == ENOTSUP);
  CHECK_THAT(stored.error().message, Catch::StartsWith("this root cannot store run/rtagent/state.json: "));
  auto removed = rec.Remove("run/rtagent/journal.json");
  REQUIRE_FALSE(removed.ok());
  CHECK(removed.error().err == ENOTSUP);
  CHECK_THAT(removed.error().message, Catch::StartsWith("this root cannot remove run/rtagent/journal.json: "));
  CHECK(fs::exists(src.path / "run/rtagent/journal.json"));
  CHECK_FALSE(fs::exists(src.path / "run/rtagent/state.json"));
  CHECK_FALSE(fs::exists(out.path / "run"));
}

TEST_CASE("a recording root refuses paths that leave the capture directory", "[base][capture]") {
  TempDir src, out;
  Put(src.path / "a/b", "x");
  FsRoot source(src.path.string());
  RecordingRoot rec(source, (out.path / "cap").string());
  REQUIRE(rec.Read("a/../a/b").ok());  // the read itself still answers
  CHECK(rec.CopyErrors().size() == 1);
  CHECK(rec.Files().empty());
}

// Output paths as users give them: a file, a link to one, a FIFO, one of the process's own
// descriptors (/dev/stdout, /dev/fd/N). Only a file is replaced (a temporary file renamed over
// it); a link stays a link and nothing is ever renamed over a device or a descriptor's name.
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "base/shell_test_support.h"
#include "base/skip_test_support.h"
#include "cli/verdict_files.h"
#include "profile/test_support.h"
#include "report/json.h"
#include "report/test_verdict.h"

using rtagent::CheckWritable;
using rtagent::OutputTarget;
using rtagent::ResolveOutput;
using rtagent::WriteTextFile;
using rtagent::profile::testing::TempDir;

namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

bool IsLink(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

// The names in a directory, sorted: what a write left beside its target.
std::vector<std::string> Names(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// What a pipe's read end holds now, without waiting.
std::string Drain(int fd) {
  std::string got;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) got.append(buf, static_cast<size_t>(n));
  return got;
}

}  // namespace

TEST_CASE("an output path that is a link: the file it names is replaced, the link stays", "[cli][report]") {
  TempDir dir;
  const std::string file = dir.path() + "/verdicts/v.json";
  std::filesystem::create_directories(dir.path() + "/verdicts");
  std::ofstream(file) << "old";
  const std::string link = dir.path() + "/latest.json";
  std::filesystem::create_symlink("verdicts/v.json", link);  // relative, as ln -s writes them

  REQUIRE(CheckWritable(link));
  REQUIRE(WriteTextFile(link, "new\n"));
  CHECK(IsLink(link));
  CHECK(Slurp(file) == "new\n");
  CHECK(Names(dir.path() + "/verdicts") == std::vector<std::string>{"v.json"});

  // A link whose file is not there yet: the file is made where the link points.
  const std::string dangling = dir.path() + "/next.json";
  std::filesystem::create_symlink(dir.path() + "/verdicts/next.json", dangling);
  REQUIRE(WriteTextFile(dangling, "made\n"));
  CHECK(IsLink(dangling));
  CHECK(Slurp(dir.path() + "/verdicts/next.json") == "made\n");

  // A link to a directory, or into one that does not exist, is refused before a run.
  std::filesystem::create_symlink(dir.path() + "/verdicts", dir.path() + "/to-dir");
  auto d = CheckWritable(dir.path() + "/to-dir");
  REQUIRE_FALSE(d);
  CHECK_THAT(d.error().message, Catch::Contains("to-dir is a directory (" + dir.path() + "/verdicts)"));
  std::filesystem::create_symlink(dir.path() + "/gone/x.json", dir.path() + "/nowhere");
  auto n = CheckWritable(dir.path() + "/nowhere");
  REQUIRE_FALSE(n);
  CHECK_THAT(n.error().message, Catch::Contains("directory " + dir.path() + "/gone"));
  std::filesystem::create_symlink("loop", dir.path() + "/loop");
  CHECK_FALSE(CheckWritable(dir.path() + "/loop"));
  // A path through a file, as if it were a directory: refused with the system's reason.
  std::ofstream(dir.path() + "/plain") << "x";
  auto through = CheckWritable(dir.path() + "/plain/v.json");
  REQUIRE_FALSE(through);
  CHECK_THAT(through.error().message, Catch::Contains("cannot write " + dir.path() + "/plain/v.json"));
  CHECK(through.error().err == ENOTDIR);
}

TEST_CASE("a write that fails on a descriptor or a device is an error, and the device stays", "[cli][report]") {
  // /dev/full refuses every write with ENOSPC: opened here, written through /dev/fd/N, and
  // never written, renamed or removed by name.
  const int full = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  REQUIRE(full >= 0);
  auto w = WriteTextFile("/dev/fd/" + std::to_string(full), "lost\n");
  ::close(full);
  REQUIRE_FALSE(w);
  CHECK(w.error().err == ENOSPC);

  // The same device as a node of this test's own directory: written into, an error, still a
  // device after. (On a file system mounted nodev the open is refused instead: an error too.)
  if (::geteuid() != 0) RTAGENT_SKIP("making a device node needs root (CAP_MKNOD)");
  TempDir dir;
  const std::string node = dir.path() + "/full";
  struct stat dev;
  REQUIRE(::stat("/dev/full", &dev) == 0);
  REQUIRE(::mknod(node.c_str(), S_IFCHR | 0600, dev.st_rdev) == 0);
  auto target = ResolveOutput(node);
  REQUIRE(target);
  CHECK(target->kind == OutputTarget::Kind::kStream);
  auto d = WriteTextFile(node, "lost\n");
  REQUIRE_FALSE(d);
  CHECK_THAT(d.error().message, Catch::Contains(node));
  struct stat st;
  REQUIRE(::lstat(node.c_str(), &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  CHECK(Names(dir.path()) == std::vector<std::string>{"full"});
}

TEST_CASE("an output path that is a FIFO is written into, never replaced", "[cli][report]") {
  TempDir dir;
  const std::string fifo = dir.path() + "/pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  REQUIRE(reader >= 0);
  auto target = ResolveOutput(fifo);
  REQUIRE(target);
  CHECK(target->kind == OutputTarget::Kind::kStream);
  REQUIRE(CheckWritable(fifo));
  REQUIRE(WriteTextFile(fifo, "<testsuites/>\n"));
  CHECK(Drain(reader) == "<testsuites/>\n");
  ::close(reader);
  struct stat st;
  REQUIRE(::lstat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  CHECK(Names(dir.path()) == std::vector<std::string>{"pipe"});  // no temporary file beside it

  // A socket cannot be opened for writing: refused before a run, by name.
  const std::string sock = dir.path() + "/sock";
  const int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(s >= 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  REQUIRE(sock.size() < sizeof addr.sun_path);
  std::strcpy(addr.sun_path, sock.c_str());
  REQUIRE(::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  auto refused = CheckWritable(sock);
  ::close(s);
  REQUIRE_FALSE(refused);
  CHECK_THAT(refused.error().message, Catch::Contains("sock is a socket: give a file, a FIFO or a device"));
}

TEST_CASE("an output path naming one of the process's descriptors writes to it", "[cli][report]") {
  int fds[2];
  REQUIRE(::pipe2(fds, O_CLOEXEC | O_NONBLOCK) == 0);
  const std::string n = std::to_string(fds[1]);
  TempDir dir;
  // /dev/stdout's shape (a link to /proc/self/fd/1), made here rather than in /dev.
  const std::string link = dir.path() + "/out";
  std::filesystem::create_symlink("/proc/self/fd/" + n, link);
  for (const std::string& path : {"/dev/fd/" + n, "/proc/self/fd/" + n, "/proc/" + std::to_string(::getpid()) + "/fd/" + n, link}) {
    INFO(path);
    auto target = ResolveOutput(path);
    REQUIRE(target);
    CHECK(target->kind == OutputTarget::Kind::kDescriptor);
    CHECK(target->fd == fds[1]);
    REQUIRE(CheckWritable(path));
    REQUIRE(WriteTextFile(path, "case pass\n"));
    CHECK(Drain(fds[0]) == "case pass\n");
  }
  CHECK(IsLink(link));
  CHECK(Names(dir.path()) == std::vector<std::string>{"out"});
  for (const char* name : {"/dev/stdout", "/dev/stderr"}) {
    auto t = ResolveOutput(name);
    REQUIRE(t);
    CHECK(t->kind == OutputTarget::Kind::kDescriptor);
  }

  // The read end, and a descriptor that is closed, are refused before a run.
  auto ro = CheckWritable("/dev/fd/" + std::to_string(fds[0]));
  REQUIRE_FALSE(ro);
  CHECK_THAT(ro.error().message, Catch::Contains("is open for reading only"));
  ::close(fds[0]);
  ::close(fds[1]);
  auto closed = CheckWritable("/dev/fd/" + n);
  REQUIRE_FALSE(closed);
  CHECK_THAT(closed.error().message, Catch::Contains("descriptor " + n + " is not open"));
}

TEST_CASE("the raw trace goes beside a verdict file, never beside a descriptor or a device", "[cli][report]") {
  TempDir dir;
  using rtagent::TracePathBeside;
  using rtagent::VerdictOutput;
  CHECK(TracePathBeside({{"/dev/stdout", "json"}, {dir.path() + "/v.md", "md"}}) == dir.path() + "/v.trace.txt");
  CHECK(TracePathBeside({{"/dev/fd/1", "json"}, {"-", "md"}}).empty());
  CHECK(TracePathBeside({{dir.path() + "/a.md", "md"}, {dir.path() + "/b.json", "json"}}) == dir.path() + "/b.trace.txt");
}

TEST_CASE("report --cases /dev/fd/1 prints the cases on stdout, as a shell redirection would", "[cli][report]") {
  TempDir dir;
  const std::string v = dir.path() + "/v.json";
  std::ofstream(v) << rtagent::RenderJson(rtagent::testing::ExampleVerdict());
  auto r = rtagent::test::RunShell(std::string(RTAGENT_BINARY) + " report " + v + " --cases /dev/fd/1 --junit /dev/fd/2 2>&1");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("cpu3-max pass"));
  CHECK_THAT(r.out, Catch::Contains("<testsuites"));
  CHECK(Names(dir.path()) == std::vector<std::string>{"v.json"});
}

TEST_CASE("two formats asked into one file are refused before the run, however the path is spelt", "[cli][report]") {
  TempDir dir;
  const std::string file = dir.path() + "/verdict.out";
  std::filesystem::create_directory(dir.path() + "/sub");
  ::symlink(file.c_str(), (dir.path() + "/link").c_str());
  auto same = rtagent::CheckOutputs({{file, "json"}, {dir.path() + "/sub/../verdict.out", "md"}});
  REQUIRE_FALSE(same.ok());
  CHECK(same.error().message ==
        "--json and --md both write " + dir.path() + "/sub/../verdict.out: the second would replace the first; "
        "give each its own file");
  CHECK_FALSE(rtagent::CheckOutputs({{file, "junit"}, {dir.path() + "/link", "html"}}).ok());  // a link to it
  CHECK_FALSE(std::filesystem::exists(file));
  // Files of their own, or two formats onto stdout (a stream, written one after the other): fine.
  CHECK(rtagent::CheckOutputs({{file, "json"}, {dir.path() + "/verdict.md", "md"}, {"", "svg"}}).ok());
  CHECK(rtagent::CheckOutputs({{"-", "json"}, {"-", "md"}}).ok());
}

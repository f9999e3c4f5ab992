#include "service/notifier.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "base/fault_root.h"
#include "base/shared_library.h"

namespace rtagent::service {
namespace {

// Sets (or unsets, for nullptr) one environment variable for a test's lifetime.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// A datagram socket standing where systemd's notification socket would be.
class NotifySocket {
 public:
  explicit NotifySocket(const std::string& path) : path_(path) {
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
    bound_ = fd_ >= 0 && ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }
  ~NotifySocket() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool bound() const { return bound_; }
  // The next message, or "" when none arrived.
  std::string Receive() const {
    char buf[512];
    ssize_t n = ::recv(fd_, buf, sizeof buf, MSG_DONTWAIT);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
  }

 private:
  std::string path_;
  int fd_ = -1;
  bool bound_ = false;
};

bool LibsystemdMapped() {
  std::ifstream maps("/proc/self/maps");
  std::stringstream s;
  s << maps.rdbuf();
  return s.str().find("libsystemd.so") != std::string::npos;
}

}  // namespace

TEST_CASE("systemd notifier: not started by systemd, it sends nothing and loads no library", "[service]") {
  ScopedEnv socket("NOTIFY_SOCKET", nullptr);
  ScopedEnv watchdog("WATCHDOG_USEC", nullptr);
  // A library that cannot be loaded: asking for it would fail, so success means it was not asked.
  auto n = MakeSystemdNotifier("librtagent-no-such-library.so.0");
  REQUIRE(n);
  (*n)->Notify("READY=1");
  CHECK_FALSE((*n)->WatchdogTimeout());
  CHECK_FALSE(LibsystemdMapped());
}

TEST_CASE("systemd notifier: started by systemd, messages reach NOTIFY_SOCKET through libsystemd", "[service]") {
  TempTree tree;
  const std::string path = tree.dir() + "/notify";
  NotifySocket sock(path);
  REQUIRE(sock.bound());
  ScopedEnv socket("NOTIFY_SOCKET", path.c_str());
  const std::string pid = std::to_string(::getpid());
  ScopedEnv watchdog("WATCHDOG_USEC", "5000000");
  ScopedEnv watchdog_pid("WATCHDOG_PID", pid.c_str());

  auto n = MakeSystemdNotifier();
  REQUIRE(n);
  CHECK(LibsystemdMapped());
  (*n)->Notify("READY=1\nSTATUS=holding");
  CHECK(sock.Receive() == "READY=1\nSTATUS=holding");
  REQUIRE((*n)->WatchdogTimeout());
  CHECK(*(*n)->WatchdogTimeout() == std::chrono::seconds(5));
}

TEST_CASE("systemd notifier: a watchdog meant for another process is not this one's", "[service]") {
  ScopedEnv socket("NOTIFY_SOCKET", nullptr);
  ScopedEnv watchdog("WATCHDOG_USEC", "5000000");
  const std::string other = std::to_string(::getpid() + 1);
  ScopedEnv watchdog_pid("WATCHDOG_PID", other.c_str());
  auto n = MakeSystemdNotifier();
  REQUIRE(n);
  CHECK_FALSE((*n)->WatchdogTimeout());
}

TEST_CASE("systemd notifier: started by systemd and libsystemd cannot be loaded: an error that says so", "[service]") {
  ScopedEnv socket("NOTIFY_SOCKET", "/run/systemd/notify");
  auto n = MakeSystemdNotifier("librtagent-no-such-library.so.0");
  REQUIRE_FALSE(n);
  CHECK_THAT(n.error().message, Catch::Contains("NOTIFY_SOCKET"));
  CHECK_THAT(n.error().message, Catch::Contains("cannot load librtagent-no-such-library.so.0"));
  CHECK_THAT(n.error().message, Catch::Contains("install Debian's libsystemd0 package"));
}

TEST_CASE("systemd notifier: a library without sd_notify is refused by name", "[service]") {
  ScopedEnv socket("NOTIFY_SOCKET", "/run/systemd/notify");
  auto n = MakeSystemdNotifier("libc.so.6");
  REQUIRE_FALSE(n);
  CHECK_THAT(n.error().message, Catch::Contains("libc.so.6 has no symbol sd_notify"));
}

TEST_CASE("shared library: a function found by name is the one the library exports", "[service]") {
  auto libc = SharedLibrary::Open("libc.so.6", "libc6");
  REQUIRE(libc);
  auto len = libc->Function<decltype(::strlen)>("strlen");
  REQUIRE(len);
  CHECK((*len)("twelve chars") == 12);
  auto moved = std::move(*libc);
  CHECK(moved.soname() == "libc.so.6");
  CHECK((*moved.Function<decltype(::strlen)>("strlen"))("abc") == 3);
}

}  // namespace rtagent::service

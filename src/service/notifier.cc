#include "service/notifier.h"

#include <systemd/sd-daemon.h>

#include <cstdlib>
#include <sstream>

#include "base/shared_library.h"

namespace rtagent::service {

namespace {

class SystemdNotifier : public Notifier {
 public:
  SystemdNotifier() = default;  // not started by systemd: nothing to send, no watchdog
  explicit SystemdNotifier(SharedLibrary lib) : lib_(std::move(lib)) {}

  Result<void> Bind() {
    auto notify = lib_->Function<decltype(sd_notify)>("sd_notify");
    if (!notify) return notify.error();
    auto watchdog = lib_->Function<decltype(sd_watchdog_enabled)>("sd_watchdog_enabled");
    if (!watchdog) return watchdog.error();
    notify_ = *notify;
    watchdog_enabled_ = *watchdog;
    return Ok();
  }

  void Notify(const std::string& state) override {
    // unset_environment = 0: a reload re-reads nothing from the environment, but keeping
    // NOTIFY_SOCKET lets every later message reach systemd.
    if (notify_) (void)notify_(0, state.c_str());
  }
  std::optional<std::chrono::microseconds> WatchdogTimeout() const override {
    uint64_t usec = 0;
    // > 0 only when WATCHDOG_USEC is set and WATCHDOG_PID (if set) is this process.
    if (watchdog_enabled_ && watchdog_enabled_(0, &usec) > 0 && usec > 0) return std::chrono::microseconds(usec);
    return std::nullopt;
  }

 private:
  std::optional<SharedLibrary> lib_;
  decltype(sd_notify)* notify_ = nullptr;
  decltype(sd_watchdog_enabled)* watchdog_enabled_ = nullptr;
};

std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace

Result<std::unique_ptr<Notifier>> MakeSystemdNotifier(const std::string& soname) {
  // sd_notify(3): with NOTIFY_SOCKET unset both calls return 0 and send nothing.
  if (!std::getenv("NOTIFY_SOCKET") && !std::getenv("WATCHDOG_USEC")) return std::unique_ptr<Notifier>(new SystemdNotifier());
  auto lib = SharedLibrary::Open(soname, "libsystemd0");
  if (!lib) return Wrap("systemd started rtagent to notify it (NOTIFY_SOCKET or WATCHDOG_USEC is set), but ", lib.error());
  auto n = std::make_unique<SystemdNotifier>(std::move(*lib));
  if (auto bound = n->Bind(); !bound) return bound.error();
  return std::unique_ptr<Notifier>(std::move(n));
}

bool RecordingNotifier::Sent(const std::string& line) const {
  for (const auto& m : messages)
    for (const auto& l : Lines(m))
      if (l == line) return true;
  return false;
}

std::string RecordingNotifier::LastStatus() const {
  std::string last;
  for (const auto& m : messages)
    for (const auto& l : Lines(m))
      if (l.rfind("STATUS=", 0) == 0) last = l.substr(7);
  return last;
}

}  // namespace rtagent::service

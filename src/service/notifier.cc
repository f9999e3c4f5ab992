#include "service/notifier.h"

#include <systemd/sd-daemon.h>

#include <sstream>

namespace rtagent::service {

namespace {

class SystemdNotifier : public Notifier {
 public:
  void Notify(const std::string& state) override {
    // unset_environment = 0: a reload re-reads nothing from the environment, but keeping
    // NOTIFY_SOCKET lets every later message reach systemd.
    (void)sd_notify(0, state.c_str());
  }
  std::optional<std::chrono::microseconds> WatchdogTimeout() const override {
    uint64_t usec = 0;
    // > 0 only when WATCHDOG_USEC is set and WATCHDOG_PID (if set) is this process.
    if (sd_watchdog_enabled(0, &usec) > 0 && usec > 0) return std::chrono::microseconds(usec);
    return std::nullopt;
  }
};

std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace

std::unique_ptr<Notifier> MakeSystemdNotifier() { return std::make_unique<SystemdNotifier>(); }

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

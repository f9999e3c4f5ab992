// Talking to systemd (sd_notify(3)): READY=1, STATUS=, WATCHDOG=1, STOPPING=1, RELOADING=1.
// Behind a seam so the daemon's tests record the messages instead of sending them.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"

namespace rtagent::service {

class Notifier {
 public:
  virtual ~Notifier() = default;
  /// Sends one or more newline-separated assignments ("READY=1\nSTATUS=...").
  virtual void Notify(const std::string& state) = 0;
  /// The interval the unit's WatchdogSec asks pings at (WATCHDOG_USEC), or nullopt.
  virtual std::optional<std::chrono::microseconds> WatchdogTimeout() const = 0;
};

/// libsystemd's sd_notify() and sd_watchdog_enabled(). libsystemd (`soname`) is loaded only
/// when systemd started this process for them (NOTIFY_SOCKET or WATCHDOG_USEC is set);
/// otherwise both calls would do nothing, and so does the notifier, without loading it. The
/// error: systemd waits for a message that cannot be sent (the library cannot be loaded).
Result<std::unique_ptr<Notifier>> MakeSystemdNotifier(const std::string& soname = "libsystemd.so.0");

/// Keeps every message, for tests; `watchdog` is what WatchdogTimeout() answers.
class RecordingNotifier : public Notifier {
 public:
  void Notify(const std::string& state) override { messages.push_back(state); }
  std::optional<std::chrono::microseconds> WatchdogTimeout() const override { return watchdog; }
  /// True when some message holds the assignment `line` ("READY=1").
  bool Sent(const std::string& line) const;
  /// The last STATUS= text sent ("" when none).
  std::string LastStatus() const;

  std::vector<std::string> messages;
  std::optional<std::chrono::microseconds> watchdog;
};

}  // namespace rtagent::service

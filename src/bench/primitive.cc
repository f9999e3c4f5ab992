#include "bench/primitive.h"

#include <sched.h>

#include "bench/kernel_calls.h"
#include "bench/messages.h"
#include "bench/notifications.h"
#include "bench/signals.h"
#include "bench/switches.h"
#include "bench/sync_primitives.h"
#include "bench/thread_creation.h"
#include "bench/timers.h"

namespace rtagent::bench {

std::string GroupNames() {
  std::string all;
  for (Group g : AllGroups()) all += (all.empty() ? "" : ", ") + GroupName(g);
  return all;
}

std::string GroupName(Group g) {
  switch (g) {
    case Group::kKernel: return "kernel";
    case Group::kSwitch: return "switch";
    case Group::kMessage: return "message";
    case Group::kNotify: return "notify";
    case Group::kSync: return "sync";
    case Group::kTimer: return "timer";
    case Group::kSignal: return "signal";
    case Group::kThread: return "thread";
  }
  return "?";
}

std::string GroupTitle(Group g) {
  switch (g) {
    case Group::kKernel: return "Kernel calls";
    case Group::kSwitch: return "Context switches";
    case Group::kMessage: return "Message passing (round trips)";
    case Group::kNotify: return "Notification (the pulse)";
    case Group::kSync: return "Synchronisation (mutexes, semaphores)";
    case Group::kTimer: return "Timers";
    case Group::kSignal: return "Signals";
    case Group::kThread: return "Threads and processes";
  }
  return "?";
}

const std::vector<Group>& AllGroups() {
  static const std::vector<Group> all = {Group::kKernel, Group::kSwitch, Group::kMessage, Group::kNotify,
                                         Group::kSync,   Group::kTimer,  Group::kSignal,  Group::kThread};
  return all;
}

std::optional<Group> ParseGroup(const std::string& name) {
  for (Group g : AllGroups()) {
    if (GroupName(g) == name) return g;
  }
  return std::nullopt;
}

bool TestContext::Ranked() const { return sched.policy == SCHED_FIFO || sched.policy == SCHED_RR; }

std::vector<Primitive> Catalog() {
  std::vector<Primitive> all;
  for (auto* group : {&KernelCallTests, &SwitchTests, &MessageTests, &NotifyTests, &SyncTests, &TimerTests,
                      &SignalTests, &ThreadTests}) {
    for (Primitive& p : (*group)()) all.push_back(std::move(p));
  }
  return all;
}

Result<TestOutcome> LoopOutcome(int err, const std::string& what) {
  if (err != 0) return MakeError(what + " failed", err);
  return TestOutcome{};
}

TestOutcome Skipped(std::string why) {
  TestOutcome o;
  o.skipped = std::move(why);
  return o;
}

std::string PayloadText(uint32_t bytes) {
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes / 1024) + " KiB";
  return std::to_string(bytes) + " B";
}

const std::vector<uint32_t>& MessagePayloads() {
  static const std::vector<uint32_t> sizes = {4, 64, 1024, 16 * 1024, 64 * 1024};
  return sizes;
}

}  // namespace rtagent::bench

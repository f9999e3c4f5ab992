#include "tune/sched_attr.h"

#include <cerrno>

#include "base/kernel_text.h"
#include "inspect/threads.h"

namespace rtagent {
namespace {

std::string Num(long long v) { return v < 0 ? std::string("?") : std::to_string(v); }

Result<int> ParseIntIn(std::string_view text, long long lo, long long hi, const std::string& what) {
  auto v = ParseInt(text);
  if (!v || *v < lo || *v > hi) {
    return InvalidInput(what + ": expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi) + ", got \"" +
                            std::string(text) + "\"");
  }
  return static_cast<int>(*v);
}

}  // namespace

std::optional<SchedAttr> SchedAttrOfStat(const TaskStat& st) {
  if (st.policy == kSchedDeadline) return std::nullopt;
  SchedAttr a;
  a.policy = st.policy;
  const bool rt = st.policy == kSchedFifo || st.policy == kSchedRr;
  a.priority = rt ? static_cast<int>(st.rt_priority) : 0;
  a.nice = rt ? 0 : static_cast<int>(st.nice);
  return a;
}

std::string TaskKey(const TaskId& t) { return std::to_string(t.pid) + "/" + std::to_string(t.tid); }

Result<TaskId> ParseTaskKey(std::string_view key) {
  size_t slash = key.find('/');
  auto pid = ParseInt(key.substr(0, slash));
  auto tid = slash == std::string_view::npos ? pid : ParseInt(key.substr(slash + 1));
  if (!pid || !tid || *pid <= 0 || *tid <= 0) return InvalidInput("not a thread key (PID/TID): \"" + std::string(key) + "\"");
  return TaskId{static_cast<int>(*pid), static_cast<int>(*tid)};
}

std::string FormatSched(const SchedAttr& a) {
  const std::string name = PolicyName(a.policy);
  switch (a.policy) {
    case kSchedFifo:
    case kSchedRr: return name + ":" + std::to_string(a.priority);
    case kSchedOther:
    case kSchedBatch: return name + ":nice=" + std::to_string(a.nice);
    case kSchedDeadline:
      return name + ":runtime=" + Num(a.runtime_ns) + ",deadline=" + Num(a.deadline_ns) + ",period=" + Num(a.period_ns);
    default: return name;
  }
}

Result<SchedAttr> ParseSched(std::string_view text) {
  text = TrimView(text);
  size_t colon = text.find(':');
  std::string_view name = text.substr(0, colon);
  std::string_view args = colon == std::string_view::npos ? std::string_view() : text.substr(colon + 1);
  SchedAttr a;
  const std::string what = "scheduling class \"" + std::string(text) + "\"";
  const std::optional<int> policy = PolicyFromName(name);
  if (policy == kSchedFifo || policy == kSchedRr) {
    a.policy = *policy;
    auto p = ParseIntIn(args, 1, 99, what);
    if (!p) return p.error();
    a.priority = *p;
    return a;
  }
  if (policy == kSchedOther || policy == kSchedBatch) {
    a.policy = *policy;
    if (args.substr(0, 5) != "nice=") return InvalidInput(what + ": expected nice=N");
    auto n = ParseIntIn(args.substr(5), -20, 19, what);
    if (!n) return n.error();
    a.nice = *n;
    return a;
  }
  if (policy == kSchedIdle && args.empty()) {
    a.policy = kSchedIdle;
    return a;
  }
  if (policy == kSchedDeadline) {
    a.policy = kSchedDeadline;
    bool runtime = false, deadline = false, period = false;
    for (auto field : SplitChar(args, ',')) {
      size_t eq = field.find('=');
      if (eq == std::string_view::npos) return InvalidInput(what + ": expected runtime=,deadline=,period=");
      std::string_view k = field.substr(0, eq);
      std::string_view v = field.substr(eq + 1);
      long long n = -1;
      if (v != "?") {
        auto parsed = ParseInt(v);
        if (!parsed || *parsed < 0) return InvalidInput(what + ": bad " + std::string(k));
        n = *parsed;
      }
      if (k == "runtime") {
        a.runtime_ns = n;
        runtime = true;
      } else if (k == "deadline") {
        a.deadline_ns = n;
        deadline = true;
      } else if (k == "period") {
        a.period_ns = n;
        period = true;
      } else {
        return InvalidInput(what + ": unknown field " + std::string(k));
      }
    }
    if (!runtime || !deadline || !period) return InvalidInput(what + ": expected runtime=,deadline=,period=");
    return a;
  }
  return InvalidInput("unknown " + what + " (fifo:P, rr:P, other:nice=N, batch:nice=N, idle, deadline:...)");
}

}  // namespace rtagent

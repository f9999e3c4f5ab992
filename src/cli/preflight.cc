#include "cli/preflight.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "base/kernel_paths.h"
#include "inspect/power.h"

namespace rtagent {

std::vector<PreflightCheck> PreflightFromSuite(const check::SuiteReport& report) {
  struct Entry {
    std::string check;
    int pass = 0, warn = 0, skip = 0;
    std::string fails, first_warn;
  };
  std::vector<Entry> entries;  // one per check, in run order
  for (const check::CheckResult& r : report.results) {
    auto it = std::find_if(entries.begin(), entries.end(), [&](const Entry& e) { return e.check == r.check; });
    Entry& e = it != entries.end() ? *it : entries.emplace_back(Entry{r.check, 0, 0, 0, "", ""});
    const std::string said = r.summary.empty() ? r.id : r.id + ": " + r.summary;
    switch (r.status) {
      case check::Status::kFail: e.fails += (e.fails.empty() ? "" : "; ") + said; break;
      case check::Status::kWarn:
        if (e.warn++ == 0) e.first_warn = said;
        break;
      case check::Status::kPass: ++e.pass; break;
      case check::Status::kSkip: ++e.skip; break;
    }
  }
  std::vector<PreflightCheck> out;
  for (const Entry& e : entries) {
    if (!e.fails.empty()) {
      out.push_back({e.check, false, "FAIL " + e.fails});
      continue;
    }
    std::string reason = std::to_string(e.pass) + " passed";
    if (e.warn) reason += ", " + std::to_string(e.warn) + " warned (" + e.first_warn + (e.warn > 1 ? "; ..." : "") + ")";
    if (e.skip) reason += ", " + std::to_string(e.skip) + " skipped";
    out.push_back({e.check, true, reason + " (suite " + report.suite + ")"});
  }
  if (report.interrupted) {
    out.push_back({"suite", false, "the " + report.suite + " suite was interrupted: its remaining checks did not run"});
  }
  return out;
}

PmQosNote JudgePmQos(std::optional<int32_t> device_us, std::optional<int32_t> hold_us) {
  if (!device_us) {
    // Unreadable device: trust hold's own word, else say we cannot tell.
    if (hold_us) return {PmQosHolder::kProfile, hold_us};
    return {PmQosHolder::kUnknown, std::nullopt};
  }
  if (*device_us >= kPmQosNoLimitUs) return {PmQosHolder::kNone, std::nullopt};
  if (hold_us && *hold_us == *device_us) return {PmQosHolder::kProfile, device_us};
  // A stricter note than hold's (or a note without hold): another program holds it.
  return {PmQosHolder::kUnknown, device_us};
}

std::optional<int32_t> ReadHoldPmQos(const SysRoot& root) {
  // `rtagent hold` (issue 6, service/hold_state.h) keeps its state beside the journal; the
  // note it holds is "pm_qos_us" (null when it holds none).
  auto text = root.Read(kpath::kRunDir + "/state.json");
  if (!text) return std::nullopt;
  auto j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("pm_qos_us")) return std::nullopt;
  const auto& v = j.at("pm_qos_us");
  if (!v.is_number_integer()) return std::nullopt;
  const auto n = v.get<long long>();
  if (n < 0 || n > kPmQosNoLimitUs) return std::nullopt;
  return static_cast<int32_t>(n);
}

std::optional<int32_t> ReadPmQosDevice(const SysRoot& root) {
  auto bytes = root.Read(kpath::kCpuDmaLatency);
  if (!bytes) return std::nullopt;
  auto v = ParseCpuDmaLatency(*bytes);
  if (!v || *v < 0 || *v > kPmQosNoLimitUs) return std::nullopt;
  return static_cast<int32_t>(*v);
}

}  // namespace rtagent

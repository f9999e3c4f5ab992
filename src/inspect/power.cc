#include "inspect/power.h"

#include <cstdint>
#include <cstring>

#include "base/kernel_paths.h"
#include "base/kernel_text.h"

namespace rtagent {
namespace {

std::optional<long long> ReadNumber(const SysRoot& root, const std::string& path) {
  auto r = root.Read(path);
  if (!r) return std::nullopt;
  return ParseInt(*r);
}

std::optional<std::string> ReadText(const SysRoot& root, const std::string& path) {
  auto r = root.ReadTrimmed(path);
  if (!r) return std::nullopt;
  return *r;
}

std::vector<std::string> Words(const std::optional<std::string>& text) {
  std::vector<std::string> out;
  if (text) {
    for (auto w : SplitWs(*text)) out.emplace_back(w);
  }
  return out;
}

}  // namespace

std::optional<long long> ParseCpuDmaLatency(std::string_view bytes) {
  // Decimal text first: a fixture's "2000000000\n". Binary values below 800 seconds always
  // hold a NUL byte, and four raw bytes that are all digits would mean more than 800 s.
  if (bytes.find('\0') == std::string_view::npos) {
    if (auto v = ParseInt(bytes)) return v;
  }
  if (bytes.size() == sizeof(int32_t)) {
    // kernel/power/qos.c cpu_latency_qos_read(): copies the s32 target in host byte order.
    int32_t v = 0;
    std::memcpy(&v, bytes.data(), sizeof v);
    return v;
  }
  return std::nullopt;
}

PowerState CollectPower(const SysRoot& root, const CpuSet& online) {
  PowerState p;
  auto qos = root.Read(kpath::kCpuDmaLatency);
  if (qos) {
    p.cpu_dma_latency_us = ParseCpuDmaLatency(*qos);
    p.cpu_dma_latency_state = p.cpu_dma_latency_us ? "ok" : "unparsable";
  } else {
    p.cpu_dma_latency_state = qos.error().err == ENOENT ? "absent" : "not_readable";
  }
  p.idle_driver = ReadText(root, kpath::kCpuIdleDriver);
  p.idle_governor = ReadText(root, kpath::kCpuIdleGovernor);
  if (!p.idle_governor) p.idle_governor = ReadText(root, kpath::kCpuIdleGovernorRo);  // before 5.x, or no switching
  p.idle_governors = Words(ReadText(root, kpath::kCpuIdleAvailableGovernors));

  for (int cpu : online.Cpus()) {
    CpuPower c;
    c.cpu = cpu;
    // States are numbered from 0 without gaps; the first missing name ends the list.
    for (int s = 0;; ++s) {
      auto name = root.ReadTrimmed(kpath::CpuIdleStateFile(cpu, s, kpath::kIdleStateName));
      if (!name) break;
      IdleState st;
      st.index = s;
      st.name = *name;
      st.desc = ReadText(root, kpath::CpuIdleStateFile(cpu, s, kpath::kIdleStateDesc)).value_or("");
      st.latency_us = ReadNumber(root, kpath::CpuIdleStateFile(cpu, s, kpath::kIdleStateLatency));
      st.residency_us = ReadNumber(root, kpath::CpuIdleStateFile(cpu, s, kpath::kIdleStateResidency));
      if (auto d = ReadNumber(root, kpath::CpuIdleStateFile(cpu, s, kpath::kIdleStateDisable))) st.disabled = *d != 0;
      c.idle_states.push_back(std::move(st));
    }
    if (auto gov = ReadText(root, kpath::CpuFreqFile(cpu, kpath::kScalingGovernor))) {
      CpuFreq f;
      f.governor = gov;
      f.driver = ReadText(root, kpath::CpuFreqFile(cpu, kpath::kScalingDriver));
      f.available_governors = Words(ReadText(root, kpath::CpuFreqFile(cpu, kpath::kScalingAvailableGovernors)));
      f.cur_khz = ReadNumber(root, kpath::CpuFreqFile(cpu, kpath::kScalingCurFreq));
      f.min_khz = ReadNumber(root, kpath::CpuFreqFile(cpu, kpath::kScalingMinFreq));
      f.max_khz = ReadNumber(root, kpath::CpuFreqFile(cpu, kpath::kScalingMaxFreq));
      c.cpufreq = std::move(f);
    }
    c.resume_latency_us = ReadText(root, kpath::CpuResumeLatency(cpu));
    p.cpus.push_back(std::move(c));
  }
  return p;
}

}  // namespace rtagent

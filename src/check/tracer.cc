#include "check/tracer.h"

#include "base/kernel_text.h"

namespace rtagent::check {

std::vector<HwlatGap> ParseHwlatTrace(std::string_view text) {
  std::vector<HwlatGap> out;
  for (auto line : SplitLines(text)) {
    if (TrimView(line).empty() || TrimView(line).front() == '#') continue;
    size_t io = line.find("inner/outer(us):");
    if (io == std::string_view::npos) continue;
    HwlatGap g;
    // "<idle>-0 [003] d... 123.456: #1 inner/outer(us): 12/14 ..."; the CPU is the first
    // bracketed number before the event.
    size_t lb = line.find('[');
    if (lb != std::string_view::npos && lb < io) {
      size_t rb = line.find(']', lb);
      if (rb != std::string_view::npos) {
        if (auto cpu = ParseInt(TrimView(line.substr(lb + 1, rb - lb - 1)))) g.cpu = static_cast<int>(*cpu);
      }
    }
    auto rest = TrimView(line.substr(io + 16));
    auto words = SplitWs(rest);
    if (words.empty()) continue;
    auto parts = SplitChar(words.front(), '/');
    if (parts.size() != 2) continue;
    auto inner = ParseInt(parts[0]);
    auto outer = ParseInt(parts[1]);
    if (!inner || !outer) continue;
    g.inner_us = *inner;
    g.outer_us = *outer;
    out.push_back(g);
  }
  return out;
}

}  // namespace rtagent::check

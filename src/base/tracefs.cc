#include "base/tracefs.h"

#include "base/kernel_paths.h"
#include "base/kernel_text.h"

namespace rtagent {

Result<std::string> FindTracefs(const SysRoot& root) {
  for (const std::string& dir : {kpath::kTracefs, kpath::kTracefsLegacy}) {
    if (root.Exists(kpath::TracefsFile(dir, kpath::kAvailableTracers))) return dir;
  }
  return MakeError("tracefs is not mounted: neither " + kpath::kTracefs + " nor " + kpath::kTracefsLegacy + " under " +
                   root.Dir() + " holds " + kpath::kAvailableTracers);
}

Result<std::vector<std::string>> AvailableTracers(const SysRoot& root, const std::string& tracefs) {
  auto text = root.Read(kpath::TracefsFile(tracefs, kpath::kAvailableTracers));
  if (!text) return text.error();
  std::vector<std::string> out;
  for (auto w : SplitWs(*text)) out.emplace_back(w);
  return out;
}

}  // namespace rtagent

#include "base/tracefs.h"

#include <algorithm>
#include <cerrno>

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

Result<TracefsLease> TracefsLease::Take(SysRoot& root, std::string tracefs, const std::vector<std::string>& files) {
  TracefsLease lease(root, std::move(tracefs));
  for (const std::string& f : files) {
    std::string path = kpath::TracefsFile(lease.tracefs_, f);
    if (!root.Exists(path)) continue;
    auto text = root.Read(path);
    if (!text) {
      lease.restored_ = true;  // nothing changed yet: nothing to give back
      return text.error();
    }
    // A choice file reads "none [round-robin] per-cpu" but takes one word back.
    std::string value = ParseBracketChoice(*text).value_or(Trim(*text));
    lease.saved_.push_back({f, std::move(value), false});
  }
  return lease;
}

TracefsLease::TracefsLease(TracefsLease&& other) noexcept
    : root_(other.root_), tracefs_(std::move(other.tracefs_)), saved_(std::move(other.saved_)),
      restored_(other.restored_) {
  other.restored_ = true;
}

TracefsLease::~TracefsLease() {
  if (!restored_) (void)Restore();
}

bool TracefsLease::Has(const std::string& file) const {
  return std::any_of(saved_.begin(), saved_.end(), [&](const Saved_& s) { return s.file == file; });
}

std::string TracefsLease::Saved(const std::string& file) const {
  for (const auto& s : saved_) {
    if (s.file == file) return s.value;
  }
  return {};
}

Result<void> TracefsLease::Set(const std::string& file, const std::string& value) {
  for (auto& s : saved_) {
    if (s.file != file) continue;
    s.changed = true;
    restored_ = false;
    return root_->Write(kpath::TracefsFile(tracefs_, file), value);
  }
  return MakeError("tracefs file " + file + " was not leased", EINVAL);
}

Result<void> TracefsLease::Restore() {
  if (restored_) return Ok();
  restored_ = true;
  std::vector<const Saved_*> order;
  // The tracer goes back first: switching away from hwlat stops its sampling thread before
  // its width and window change under it (kernel/trace/trace_hwlat.c hwlat_tracer_reset).
  for (const auto& s : saved_) {
    if (s.changed && s.file == kpath::kCurrentTracer) order.push_back(&s);
  }
  for (const auto& s : saved_) {
    if (s.changed && s.file != kpath::kCurrentTracer) order.push_back(&s);
  }
  // A file that already reads its old value (a write the kernel refused) is not written.
  auto current = [&](const Saved_& s) -> std::string {
    auto text = root_->Read(kpath::TracefsFile(tracefs_, s.file));
    if (!text) return {};
    return ParseBracketChoice(*text).value_or(Trim(*text));
  };
  std::vector<const Saved_*> failed;
  for (const Saved_* s : order) {
    if (current(*s) == s->value) continue;
    if (!root_->Write(kpath::TracefsFile(tracefs_, s->file), s->value)) failed.push_back(s);
  }
  // hwlat_detector/width must stay at or below window (trace_min_max_param): the pair can
  // need the other order, so what was refused is tried once more.
  std::string left;
  int err = 0;
  for (const Saved_* s : failed) {
    auto r = root_->Write(kpath::TracefsFile(tracefs_, s->file), s->value);
    if (r) continue;
    left += (left.empty() ? "" : "; ") + tracefs_ + "/" + s->file + " should read \"" + s->value + "\" (" +
            r.error().message + ")";
    err = r.error().err;
  }
  for (auto& s : saved_) s.changed = false;
  if (!left.empty()) return MakeError("tracer state not restored: " + left, err);
  return Ok();
}

}  // namespace rtagent

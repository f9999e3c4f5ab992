#include "base/file_lease.h"

#include <algorithm>
#include <cerrno>

#include "base/kernel_text.h"

namespace rtagent {
namespace {

// A choice file reads "none [round-robin] per-cpu" but takes one word back.
std::string Value(const std::string& text) { return ParseBracketChoice(text).value_or(Trim(text)); }

}  // namespace

Result<FileLease> FileLease::Take(SysRoot& root, std::string dir, const std::vector<std::string>& files) {
  FileLease lease(root, std::move(dir));
  for (const std::string& f : files) {
    const std::string path = lease.Path(f);
    if (!root.Exists(path)) continue;
    auto text = root.Read(path);
    if (!text) {
      lease.restored_ = true;  // nothing changed yet: nothing to give back
      return text.error();
    }
    lease.saved_.push_back({f, Value(*text), false});
  }
  return lease;
}

FileLease::FileLease(FileLease&& other) noexcept
    : root_(other.root_), dir_(std::move(other.dir_)), saved_(std::move(other.saved_)), restored_(other.restored_) {
  other.restored_ = true;
}

FileLease::~FileLease() {
  if (!restored_) (void)Restore();
}

bool FileLease::Has(const std::string& file) const {
  return std::any_of(saved_.begin(), saved_.end(), [&](const Saved_& s) { return s.file == file; });
}

std::string FileLease::Saved(const std::string& file) const {
  for (const auto& s : saved_) {
    if (s.file == file) return s.value;
  }
  return {};
}

Result<void> FileLease::Set(const std::string& file, const std::string& value) {
  for (auto& s : saved_) {
    if (s.file != file) continue;
    s.changed = true;
    restored_ = false;
    return root_->Write(Path(file), value);
  }
  return InvalidInput(dir_ + "/" + file + " was not leased");
}

Result<void> FileLease::Restore() {
  if (restored_) return Ok();
  restored_ = true;
  // A file that already reads its old value (a write the kernel refused) is not written.
  auto current = [&](const Saved_& s) -> std::string {
    auto text = root_->Read(Path(s.file));
    return text ? Value(*text) : std::string();
  };
  std::vector<const Saved_*> failed;
  for (const Saved_& s : saved_) {
    if (!s.changed || current(s) == s.value) continue;
    if (!root_->Write(Path(s.file), s.value)) failed.push_back(&s);
  }
  // hwlat_detector/width must stay at or below window (trace_min_max_param): the pair can
  // need the other order, so what was refused is tried once more.
  std::string left;
  int err = 0;
  for (const Saved_* s : failed) {
    auto r = root_->Write(Path(s->file), s->value);
    if (r) continue;
    left += (left.empty() ? "" : "; ") + Path(s->file) + " should read \"" + s->value + "\" (" + r.error().message + ")";
    err = r.error().err;
  }
  for (auto& s : saved_) s.changed = false;
  if (!left.empty()) return MakeError("not restored: " + left, err);
  return Ok();
}

}  // namespace rtagent

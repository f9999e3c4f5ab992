#include "profile/diagnostics.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

namespace rtagent::profile {

std::string SourceMark::ToString() const {
  if (!Known()) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

void Diagnostics::Error(const SourceMark& mark, std::string message, std::string hint) {
  items_.push_back({Severity::kError, mark, std::move(message), std::move(hint)});
}

void Diagnostics::Warning(const SourceMark& mark, std::string message, std::string hint) {
  items_.push_back({Severity::kWarning, mark, std::move(message), std::move(hint)});
}

int Diagnostics::ErrorCount() const {
  return static_cast<int>(std::count_if(items_.begin(), items_.end(),
                                        [](const Diagnostic& d) { return d.severity == Severity::kError; }));
}

int Diagnostics::WarningCount() const { return static_cast<int>(items_.size()) - ErrorCount(); }

void Diagnostics::Sort() {
  std::stable_sort(items_.begin(), items_.end(), [](const Diagnostic& a, const Diagnostic& b) {
    if (a.mark.file != b.mark.file) return a.mark.file < b.mark.file;
    if (a.mark.line != b.mark.line) return a.mark.line < b.mark.line;
    return a.mark.column < b.mark.column;
  });
}

std::string Diagnostics::FormatText(bool color) const {
  const char* bold = color ? "\033[1m" : "";
  const char* red = color ? "\033[1;31m" : "";
  const char* magenta = color ? "\033[1;35m" : "";
  const char* cyan = color ? "\033[1;36m" : "";
  const char* reset = color ? "\033[0m" : "";
  std::string out;
  for (const Diagnostic& d : items_) {
    bool error = d.severity == Severity::kError;
    out += bold + d.mark.ToString() + ":" + reset + " ";
    out += std::string(error ? red : magenta) + (error ? "error" : "warning") + reset + ": ";
    out += d.message + "\n";
    if (!d.hint.empty()) out += std::string("  ") + cyan + "hint:" + reset + " " + d.hint + "\n";
  }
  return out;
}

std::string Diagnostics::FormatJsonArray() const {
  nlohmann::json arr = nlohmann::json::array();
  for (const Diagnostic& d : items_) {
    arr.push_back({{"file", d.mark.file},
                   {"line", d.mark.line},
                   {"column", d.mark.column},
                   {"severity", d.severity == Severity::kError ? "error" : "warning"},
                   {"message", d.message},
                   {"hint", d.hint}});
  }
  return arr.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

int EditDistance(const std::string& a, const std::string& b) {
  std::vector<int> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      int subst = prev[j - 1] + (std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                                         std::tolower(static_cast<unsigned char>(b[j - 1]))
                                     ? 0
                                     : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string NearestWord(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  int best_distance = 0;
  for (const std::string& c : candidates) {
    int d = EditDistance(word, c);
    if (best.empty() || d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  // A typo changes a few letters; beyond a third of the word it is another word.
  int limit = std::max<int>(2, static_cast<int>(word.size()) / 3);
  if (best.empty() || best_distance > limit) return "";
  return best;
}

}  // namespace rtagent::profile

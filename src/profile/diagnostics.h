// Problems found in a profile, each tied to the file, line and column it came from, printed
// the way compilers print them so editors and CI logs can jump to the line.
#pragma once

#include <string>
#include <vector>

namespace rtagent::profile {

/// Where a value was written: a file and a 1-based line and column. `line` is 0 when the
/// problem has no position (a file that cannot be read, the system's CPU list).
struct SourceMark {
  std::string file;
  int line = 0;
  int column = 0;

  /// True when the mark points at a line of a file.
  bool Known() const { return line > 0; }
  /// "file:line:column", or "file" when the position is unknown.
  std::string ToString() const;
};

/// Errors make a profile invalid; warnings are printed and the profile is still valid.
enum class Severity { kError, kWarning };

/// One problem: errors make the profile invalid (nothing is applied), warnings do not.
struct Diagnostic {
  Severity severity = Severity::kError;
  SourceMark mark;
  std::string message;
  std::string hint;  ///< what to do about it; every error carries one
};

/// The problems collected while loading and validating one profile, in the order found.
class Diagnostics {
 public:
  /// Records an error at `mark`.
  void Error(const SourceMark& mark, std::string message, std::string hint);
  /// Records a warning at `mark`.
  void Warning(const SourceMark& mark, std::string message, std::string hint);

  /// Every diagnostic, in the order found (or sorted, after Sort()).
  const std::vector<Diagnostic>& All() const { return items_; }
  /// How many errors (the profile is invalid when there is any).
  int ErrorCount() const;
  /// How many warnings.
  int WarningCount() const;
  /// True when at least one error was recorded.
  bool HasErrors() const { return ErrorCount() > 0; }

  /// Sorts by file, line and column, keeping the order found among equal positions.
  void Sort();
  /// Every diagnostic as "file:line:column: error: message" followed by "  hint: ..." lines.
  /// With `color`, severities are coloured as compilers do.
  std::string FormatText(bool color = false) const;
  /// Every diagnostic as a JSON array of {file, line, column, severity, message, hint}.
  std::string FormatJsonArray() const;

 private:
  std::vector<Diagnostic> items_;
};

/// Levenshtein distance between two words, used to suggest the nearest known key or value.
int EditDistance(const std::string& a, const std::string& b);

/// The candidate nearest to `word` when it is close enough to be a plausible typo, or "".
std::string NearestWord(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace rtagent::profile

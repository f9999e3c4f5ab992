// Aligned text for a terminal: column widths counted as a terminal shows them (UTF-8 through
// utf8proc's character widths, ANSI colour codes taking no room), tables and shortened cells.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rtagent {

/// The columns `s` takes on a terminal: each character's width (µ and → one, a CJK ideograph
/// two, a combining mark none), ANSI escape sequences (colours) none, a byte that is not
/// UTF-8 one.
size_t DisplayWidth(std::string_view s);

/// Shortens a value for a table cell: its first line (" ..." marks more lines), at most
/// `width` columns ("..." marks a cut), `""` for an empty value.
std::string ShortValue(const std::string& value, size_t width = 48);

/// Columns padded to their widest cell (in DisplayWidth); columns marked numeric are
/// right-aligned. The last column is never padded, so long names do not leave trailing blanks.
class TextTable {
 public:
  /// `headers` names the columns; a header starting with '>' is right-aligned (the '>' is
  /// not printed).
  explicit TextTable(std::vector<std::string> headers);
  /// Adds a row; missing cells are empty, extra cells are dropped.
  void Row(std::vector<std::string> cells);
  size_t Rows() const { return rows_.size(); }
  /// The table, each line prefixed by `indent` spaces and ended by '\n'.
  std::string Render(int indent = 2) const;

 private:
  std::vector<std::string> headers_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace rtagent

// Aligned text tables for a terminal.
#pragma once

#include <string>
#include <vector>

namespace rtagent {

/// Columns padded to their widest cell; columns marked numeric are right-aligned.
/// The last column is never padded, so long names do not leave trailing blanks.
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

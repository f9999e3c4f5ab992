#include "inspect/text_table.h"

#include <algorithm>

namespace rtagent {

TextTable::TextTable(std::vector<std::string> headers) {
  for (auto& h : headers) {
    bool right = !h.empty() && h.front() == '>';
    right_.push_back(right);
    headers_.push_back(right ? h.substr(1) : h);
  }
}

void TextTable::Row(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::Render(int indent) const {
  std::vector<size_t> width(headers_.size());
  for (size_t c = 0; c < headers_.size(); ++c) {
    width[c] = headers_[c].size();
    for (const auto& r : rows_) width[c] = std::max(width[c], r[c].size());
  }
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l(static_cast<size_t>(indent), ' ');
    for (size_t c = 0; c < cells.size(); ++c) {
      bool last = c + 1 == cells.size();
      size_t pad = width[c] - std::min(width[c], cells[c].size());
      if (right_[c]) l.append(pad, ' ');
      l += cells[c];
      if (!right_[c] && !last) l.append(pad, ' ');
      if (!last) l += "  ";
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l;
    out += '\n';
  };
  line(headers_);
  for (const auto& r : rows_) line(r);
  return out;
}

}  // namespace rtagent

#include "base/text_table.h"

#include <utf8proc.h>

#include <algorithm>

namespace rtagent {

namespace {

/// One step through `s` from `i`: how many bytes the next character (or escape sequence)
/// takes and how many columns it shows as.
struct Step {
  size_t bytes = 1;
  size_t columns = 1;
};

Step NextStep(std::string_view s, size_t i) {
  // ECMA-48 CSI sequence (ESC '[' parameters, a final byte 0x40-0x7e): a colour, no column.
  if (s[i] == '\033' && i + 1 < s.size() && s[i + 1] == '[') {
    size_t j = i + 2;
    while (j < s.size() && !(s[j] >= 0x40 && s[j] <= 0x7e)) ++j;
    return {std::min(j + 1, s.size()) - i, 0};
  }
  // Printable ASCII, nearly every byte of a plan or a report: one byte, one column (what
  // utf8proc says too), without decoding it.
  const auto byte = static_cast<unsigned char>(s[i]);
  if (byte >= 0x20 && byte < 0x7f) return {1, 1};
  utf8proc_int32_t cp = 0;
  const auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(s.data() + i),
                                  static_cast<utf8proc_ssize_t>(s.size() - i), &cp);
  if (n <= 0) return {1, 1};  // not UTF-8: one byte, shown as one replacement column
  return {static_cast<size_t>(n), static_cast<size_t>(std::max(0, utf8proc_charwidth(cp)))};
}

}  // namespace

size_t DisplayWidth(std::string_view s) {
  size_t columns = 0;
  for (size_t i = 0; i < s.size();) {
    const Step st = NextStep(s, i);
    columns += st.columns;
    i += st.bytes;
  }
  return columns;
}

std::string ShortValue(const std::string& value, size_t width) {
  std::string v = value;
  const size_t nl = v.find('\n');
  const bool more = nl != std::string::npos && nl + 1 < v.size();
  if (nl != std::string::npos) v.resize(nl);
  if (v.empty() && !more) return "\"\"";
  if (DisplayWidth(v) > width) {
    // Cut at a character boundary, leaving room for "...".
    const size_t room = width < 3 ? 0 : width - 3;
    size_t bytes = 0, columns = 0;
    while (bytes < v.size()) {
      const Step st = NextStep(v, bytes);
      if (columns + st.columns > room) break;
      columns += st.columns;
      bytes += st.bytes;
    }
    v.resize(bytes);
    v += "...";
  } else if (more) {
    v += " ...";
  }
  return v;
}

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
    width[c] = DisplayWidth(headers_[c]);
    for (const auto& r : rows_) width[c] = std::max(width[c], DisplayWidth(r[c]));
  }
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l(static_cast<size_t>(indent), ' ');
    for (size_t c = 0; c < cells.size(); ++c) {
      bool last = c + 1 == cells.size();
      size_t pad = width[c] - std::min(width[c], DisplayWidth(cells[c]));
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

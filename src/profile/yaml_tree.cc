#include "profile/yaml_tree.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

namespace rtagent::profile {
namespace {

SourceMark ToMark(const YAML::Mark& m, const std::string& file, const SourceMark& fallback) {
  // yaml-cpp marks are 0-based, and null_mark() (-1) for nodes it made up (an empty value).
  if (m.line < 0) return fallback;
  return SourceMark{file, m.line + 1, m.column + 1};
}

// The documents of a YAML stream, counted without building them. yaml-cpp 0.7's
// LoadAll() (Debian 12) loops for ever on some malformed texts, adding a null document at each
// turn and allocating until memory runs out (jbeder/yaml-cpp#1319, fixed in 0.8; found here by
// fuzz/suite_fuzz.cc). The count stops as the fixed LoadAll does: at a document whose root is
// null, which is also where the parser stops advancing.
class DocumentCounter : public YAML::EventHandler {
 public:
  int documents = 0;
  YAML::Mark second;  ///< where the second document's root starts
  bool null_root = false;

  void OnDocumentStart(const YAML::Mark&) override {
    null_root = false;
    depth_ = 0;
    ++documents;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override {
    if (depth_ == 0) null_root = true;
    Root(mark);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { Root(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string&) override { Root(mark); }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    Root(mark);
    ++depth_;
  }
  void OnSequenceEnd() override { --depth_; }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    Root(mark);
    ++depth_;
  }
  void OnMapEnd() override { --depth_; }

 private:
  void Root(const YAML::Mark& mark) {
    if (depth_ == 0 && documents == 2) second = mark;
  }
  int depth_ = 0;
};

// What converting one file needs besides the node: its text (to look at what a mark points
// at), its name, where errors go, and how many nodes are left to make.
struct ConvertState {
  const std::string& text;
  const std::string& file;
  Diagnostics* diags;
  /// Nodes left before the document is refused: an alias (*name) is the node its anchor marks,
  /// so a few lines of anchors that each repeat the previous one ten times expand to millions
  /// of nodes (the "billion laughs"). A real profile has a few hundred.
  long budget = 100'000;
  bool over_budget = false;
};

// True when the text at `pos` spells a null (`~`, `null`): a null written out, whose mark is its
// own. yaml-cpp marks a value left empty ("key:" and nothing) at the token after it instead.
bool WrittenNull(const std::string& text, int pos) {
  if (pos < 0 || static_cast<size_t>(pos) >= text.size()) return false;
  const std::string_view rest = std::string_view(text).substr(static_cast<size_t>(pos));
  for (std::string_view word : {"~", "null", "Null", "NULL"}) {
    if (rest.substr(0, word.size()) == word) return true;
  }
  return false;
}

// The block sequence's dash an empty item belongs to: the last thing before `pos` that is not
// blank or a comment, when it is a '-'. nullopt when it is anything else.
std::optional<SourceMark> DashBefore(const std::string& text, const std::string& file, int pos) {
  if (pos <= 0 || static_cast<size_t>(pos) > text.size()) return std::nullopt;
  size_t end = static_cast<size_t>(pos);  // the part of the line before pos, then whole lines before it
  while (true) {
    const size_t newline = end == 0 ? std::string::npos : text.rfind('\n', end - 1);
    const size_t start = newline == std::string::npos ? 0 : newline + 1;
    std::string_view line = std::string_view(text).substr(start, end - start);
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) {
        line = line.substr(0, i);
        break;
      }
    }
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.remove_suffix(1);
    if (!line.empty()) {
      if (line.back() != '-') return std::nullopt;
      const int number = static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(start), '\n')) + 1;
      return SourceMark{file, number, static_cast<int>(line.size())};
    }
    if (start == 0) return std::nullopt;
    end = start - 1;
  }
}

// Where a quoted scalar that starts at `pos` (its opening quote) closes; npos when it never
// does. yaml-cpp 0.7 takes a string whose closing quote is missing to run to the end of the
// file, so `name: "my board` swallows every key after it without a word.
size_t ClosingQuote(const std::string& text, size_t pos) {
  const char quote = text[pos];
  for (size_t i = pos + 1; i < text.size(); ++i) {
    if (quote == '"' && text[i] == '\\') {
      ++i;  // an escape: the next character is never the closing quote
    } else if (text[i] == quote) {
      if (quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
        ++i;  // '' is a quote inside a single-quoted string
        continue;
      }
      return i;
    }
  }
  return std::string::npos;
}

// Reports a quoted scalar at `m` whose closing quote is missing.
void CheckClosed(ConvertState& st, const YAML::Mark& m, const SourceMark& at) {
  if (m.pos < 0 || static_cast<size_t>(m.pos) >= st.text.size()) return;
  const char quote = st.text[static_cast<size_t>(m.pos)];
  if (quote != '"' && quote != '\'') return;
  if (ClosingQuote(st.text, static_cast<size_t>(m.pos)) != std::string::npos) return;
  st.diags->Error(at, std::string("not valid YAML: the string opened here with ") + quote + " is never closed",
                  std::string("add the closing ") + quote + " at the end of the value, e.g. name: " + quote + "my board" +
                      quote + "; without it the string runs to the end of the file and hides every key after it");
}

YamlNode Convert(ConvertState& st, const YAML::Node& in, const SourceMark& fallback, int depth) {
  YamlNode out;
  out.mark = ToMark(in.Mark(), st.file, fallback);
  if (depth > 64) {
    st.diags->Error(out.mark, "the document nests deeper than 64 levels",
                    "a profile is at most a few levels deep; an alias (*name) inside the node its anchor (&name) "
                    "marks nests for ever");
    return out;
  }
  if (--st.budget < 0) {
    if (!st.over_budget) {
      st.diags->Error(out.mark, "the document expands to more than 100000 values",
                      "an alias (*name) stands for the whole node its anchor (&name) marks; aliases of lists "
                      "that hold aliases multiply: write the values out");
    }
    st.over_budget = true;
    return out;
  }
  switch (in.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      out.kind = YamlNode::Kind::kNull;
      break;
    case YAML::NodeType::Scalar:
      out.kind = YamlNode::Kind::kScalar;
      out.scalar = in.Scalar();
      // yaml-cpp tags plain scalars "?" and quoted ones "!".
      out.quoted = in.Tag() == "!";
      if (out.quoted) CheckClosed(st, in.Mark(), out.mark);
      break;
    case YAML::NodeType::Sequence:
      out.kind = YamlNode::Kind::kSequence;
      for (const YAML::Node& item : in) {
        YamlNode n = Convert(st, item, out.mark, depth + 1);
        // An empty item ("-" and nothing) is marked where the next token starts: point at its dash.
        if (n.IsNull() && !WrittenNull(st.text, item.Mark().pos)) {
          if (auto dash = DashBefore(st.text, st.file, item.Mark().pos)) n.mark = *dash;
        }
        out.items.push_back(std::move(n));
      }
      break;
    case YAML::NodeType::Map:
      out.kind = YamlNode::Kind::kMap;
      for (const auto& kv : in) {
        SourceMark key_mark = ToMark(kv.first.Mark(), st.file, out.mark);
        if (!kv.first.IsScalar()) {
          st.diags->Error(key_mark, "a key must be a plain word, got " +
                                        std::string(kv.first.IsSequence() ? "a list" : kv.first.IsMap() ? "a mapping" : "nothing"),
                          "write the key as a word followed by a colon, e.g. 'isolated: 2-3'");
          continue;
        }
        if (kv.first.Tag() == "!") CheckClosed(st, kv.first.Mark(), key_mark);
        std::string key = kv.first.Scalar();
        int previous = out.IndexOf(key);
        if (previous >= 0) {
          st.diags->Error(key_mark, "duplicate key '" + key + "' (first written at line " +
                                        std::to_string(out.key_marks[previous].line) + ")",
                          "YAML keeps only one value per key; delete one of the two");
          continue;
        }
        out.keys.push_back(key);
        out.key_marks.push_back(key_mark);
        YamlNode value = Convert(st, kv.second, key_mark, depth + 1);
        // A value left empty is marked where the next token starts, lines below: the key is where it is.
        if (value.IsNull()) value.mark = key_mark;
        out.items.push_back(std::move(value));
      }
      break;
  }
  return out;
}

}  // namespace

const YamlNode* YamlNode::Find(std::string_view key) const {
  int i = IndexOf(key);
  return i < 0 ? nullptr : &items[static_cast<size_t>(i)];
}

int YamlNode::IndexOf(std::string_view key) const {
  if (kind != Kind::kMap) return -1;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] == key) return static_cast<int>(i);
  }
  return -1;
}

namespace {

// [+-] digits [. digits] [e [+-] digits], or the same with only a fraction: YAML's decimal forms.
bool IsYamlNumber(std::string_view s) {
  size_t i = 0;
  auto digits = [&] {
    const size_t from = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - from;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  size_t n = digits();
  if (i < s.size() && s[i] == '.') {
    ++i;
    n += digits();
  }
  if (n == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

}  // namespace

std::string YamlNode::Describe() const {
  switch (kind) {
    case Kind::kNull:
      return "nothing";
    case Kind::kScalar: {
      std::string shown = scalar.size() > 40 ? scalar.substr(0, 37) + "..." : scalar;
      // A plain 2 or -1.5e3 is a number to the reader of the file, whatever the key wanted;
      // 0-3 (a CPU list) is not.
      return !quoted && IsYamlNumber(scalar) ? "a number (" + shown + ")" : "a string (\"" + shown + "\")";
    }
    case Kind::kSequence:
      return "a list";
    case Kind::kMap:
      return "a mapping";
  }
  return "?";
}

namespace {

// The first line, up to `last_line` (1-based), whose indentation holds a tab, and the tab's
// column: YAML indents with spaces only (YAML 1.2, 6.1), and the parser's own complaint
// ("illegal map value", "end of map not found") lands somewhere after it.
std::optional<SourceMark> FirstTabIndent(const std::string& text, const std::string& file, int last_line) {
  int line = 1;
  size_t start = 0;
  while (start <= text.size() && line <= last_line) {
    const size_t end = std::min(text.find('\n', start), text.size());
    for (size_t i = start; i < end && (text[i] == ' ' || text[i] == '\t'); ++i) {
      if (text[i] == '\t' && text.find_first_not_of(" \t\r", i) < end) {
        return SourceMark{file, line, static_cast<int>(i - start) + 1};
      }
    }
    start = end + 1;
    ++line;
  }
  return std::nullopt;
}

}  // namespace

YamlNode ParseYaml(const std::string& text, const std::string& file, Diagnostics* diags, bool* parsed) {
  *parsed = false;
  YAML::Node doc;
  try {
    std::istringstream stream(text);
    YAML::Parser parser(stream);
    DocumentCounter counter;
    int real = 0;  // documents with something in them
    while (parser.HandleNextDocument(counter)) {
      if (counter.null_root) break;
      ++real;
    }
    if (real > 1) {
      SourceMark m = ToMark(counter.second, file, SourceMark{file, 1, 1});
      diags->Error(m, "a profile is one YAML document, but this file holds " + std::to_string(real),
                   "remove the second '---' and merge the documents, or split them into files joined by 'include:'");
      return YamlNode{};
    }
    if (real == 1) doc = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    // ParserException and friends: e.msg is the bare reason, e.mark its 0-based position.
    SourceMark m{file, e.mark.line >= 0 ? e.mark.line + 1 : 1, e.mark.column >= 0 ? e.mark.column + 1 : 1};
    if (auto tab = FirstTabIndent(text, file, m.line)) {
      diags->Error(*tab, "not valid YAML: a tab in the indentation (YAML indents with spaces only)",
                   "replace the tab at the start of line " + std::to_string(tab->line) +
                       " with spaces, as many as the other keys at that level have");
      return YamlNode{};
    }
    diags->Error(m, "not valid YAML: " + e.msg,
                 "check the indentation (spaces, not tabs) and quoting near this position");
    return YamlNode{};
  }
  *parsed = true;
  try {
    ConvertState st{text, file, diags};
    YamlNode out = Convert(st, doc, SourceMark{file, 1, 1}, 0);
    if (st.over_budget) *parsed = false;
    return out;
  } catch (const YAML::Exception& e) {
    *parsed = false;
    SourceMark m{file, e.mark.line >= 0 ? e.mark.line + 1 : 1, e.mark.column >= 0 ? e.mark.column + 1 : 1};
    diags->Error(m, "not valid YAML: " + e.msg, "check the document's structure near this position");
    return YamlNode{};
  }
}

void MergeYaml(YamlNode* base, const YamlNode& over) {
  if (base->kind != YamlNode::Kind::kMap || over.kind != YamlNode::Kind::kMap) {
    *base = over;
    return;
  }
  for (size_t i = 0; i < over.keys.size(); ++i) {
    int j = base->IndexOf(over.keys[i]);
    if (j < 0) {
      base->keys.push_back(over.keys[i]);
      base->key_marks.push_back(over.key_marks[i]);
      base->items.push_back(over.items[i]);
      continue;
    }
    // The overriding file's key position is the one a diagnostic should point at.
    base->key_marks[static_cast<size_t>(j)] = over.key_marks[i];
    MergeYaml(&base->items[static_cast<size_t>(j)], over.items[i]);
  }
}

namespace {

nlohmann::json ToCanonical(const YamlNode& n) {
  switch (n.kind) {
    case YamlNode::Kind::kNull: return nullptr;
    case YamlNode::Kind::kScalar: return n.scalar;
    case YamlNode::Kind::kSequence: {
      nlohmann::json list = nlohmann::json::array();
      for (const YamlNode& item : n.items) list.push_back(ToCanonical(item));
      return list;
    }
    case YamlNode::Kind::kMap: {
      nlohmann::json map = nlohmann::json::object();  // keys sorted: a mapping has no order
      for (size_t i = 0; i < n.keys.size(); ++i) map[n.keys[i]] = ToCanonical(n.items[i]);
      return map;
    }
  }
  return nullptr;
}

}  // namespace

std::string CanonicalJson(const YamlNode& node) { return ToCanonical(node).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

}  // namespace rtagent::profile

// The words of a JSON reader's failure, for a message a user reads after the file's name.
#pragma once

#include <exception>
#include <string>
#include <string_view>

namespace rtagent {

/// What `e` says without nlohmann-json's "[json.exception.type_error.302] " tag: "key 'schema'
/// not found", "parse error at line 1, column 2: syntax error ...". Any other exception's text
/// is kept whole.
inline std::string JsonReason(const std::exception& e) {
  std::string_view what = e.what();
  if (what.rfind("[json.exception.", 0) == 0) {
    const size_t end = what.find("] ");
    if (end != std::string_view::npos) what.remove_prefix(end + 2);
  }
  return std::string(what);
}

}  // namespace rtagent

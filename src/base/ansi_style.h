// Terminal colour for people reading rtagent's text: SGR escape sequences (ECMA-48), used only
// when the output is a terminal (GlobalOptions::color).
#pragma once

#include <string>
#include <string_view>

namespace rtagent {

/// `text` between the SGR sequence `sgr` ("1" bold, "31" red, "1;33" bold yellow) and a reset
/// when `color`; `text` alone otherwise.
inline std::string Paint(bool color, std::string_view sgr, std::string_view text) {
  if (!color) return std::string(text);
  return "\033[" + std::string(sgr) + "m" + std::string(text) + "\033[0m";
}

}  // namespace rtagent

#include "base/utf8.h"

namespace rtagent {

bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    // The lead byte says how many continuation bytes follow (RFC 3629, section 4).
    int extra = 0;
    unsigned cp = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      extra = 1;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      extra = 2;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      extra = 3;
      cp = c & 0x07;
    } else {
      return false;  // a continuation byte first, an overlong lead (C0, C1) or past F4
    }
    if (i + extra >= s.size()) return false;  // cut inside a character
    for (int k = 1; k <= extra; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if (extra == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) return false;  // overlong, surrogate
    if (extra == 3 && (cp < 0x10000 || cp > 0x10FFFF)) return false;                  // overlong, too high
    i += extra + 1;
  }
  return true;
}

}  // namespace rtagent

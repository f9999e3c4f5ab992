// Digests through a library (nettle, Debian's nettle-dev), never hand-written.
#pragma once

#include <string>
#include <string_view>

namespace rtagent {

/// The SHA-256 digest (FIPS 180-4) of `data`, as 64 lowercase hex digits.
std::string Sha256Hex(std::string_view data);

}  // namespace rtagent

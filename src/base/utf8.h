// Whether bytes are UTF-8 text. The kernel's files and the boot loader's are bytes: a thread
// name the kernel cut at 15 bytes can end inside a character, a GRUB file can hold Latin-1,
// and JSON (the journal, every --json output) holds only UTF-8.
#pragma once

#include <string_view>

namespace rtagent {

/// True when `s` is well-formed UTF-8: no stray continuation byte, no character cut short, no
/// overlong form, surrogate or code point past U+10FFFF (what nlohmann::json's dump() accepts).
bool IsValidUtf8(std::string_view s);

}  // namespace rtagent

#include "base/utf8.h"

#include <catch2/catch.hpp>
#include <string>

using namespace rtagent;

TEST_CASE("utf8: text is told from bytes that are not UTF-8", "[base]") {
  CHECK(IsValidUtf8(""));
  CHECK(IsValidUtf8("irq/24-eth0"));
  CHECK(IsValidUtf8("r\xc3\xa9seau \xe2\x82\xac \xf0\x9f\xa4\x96"));  // é, €, an emoji
  CHECK_FALSE(IsValidUtf8("caf\xe9"));                                 // Latin-1 é
  CHECK_FALSE(IsValidUtf8("\xe2\x82"));                                // € cut after two bytes (a 15-byte comm)
  CHECK_FALSE(IsValidUtf8("\x80"));                                    // a continuation byte first
  CHECK_FALSE(IsValidUtf8("\xc0\xaf"));                                // overlong '/'
  CHECK_FALSE(IsValidUtf8("\xe0\x80\xaf"));                            // overlong '/' in three bytes
  CHECK_FALSE(IsValidUtf8("\xed\xa0\x80"));                            // a surrogate
  CHECK_FALSE(IsValidUtf8("\xf4\x90\x80\x80"));                        // past U+10FFFF
  CHECK(IsValidUtf8(std::string("a\0b", 3)));                          // NUL is a character
}

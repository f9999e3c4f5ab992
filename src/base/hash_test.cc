#include "base/hash.h"

#include <catch2/catch.hpp>

using namespace rtagent;

// Test vectors of FIPS 180-4's examples (NIST CSRC "SHA256.pdf") and of the empty message.
TEST_CASE("Sha256Hex gives the published digests", "[base][hash]") {
  CHECK(Sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(Sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_CASE("Sha256Hex hashes every byte, NULs and high bytes included", "[base][hash]") {
  const std::string with_nul("a\0b", 3);
  CHECK(Sha256Hex(with_nul) != Sha256Hex("ab"));
  CHECK(Sha256Hex(std::string(1000000, 'a')) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  CHECK(Sha256Hex("µs").size() == 64);
}

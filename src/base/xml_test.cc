#include "base/xml.h"

#include <catch2/catch.hpp>

using namespace rtagent;

TEST_CASE("XmlEscape escapes the five markup characters and nothing else", "[base][xml]") {
  CHECK(XmlEscape("a < b && c > \"d\" 'e'") == "a &lt; b &amp;&amp; c &gt; &quot;d&quot; &apos;e&apos;");
  CHECK(XmlEscape("12.3 µs ⚠") == "12.3 µs ⚠");
  CHECK(XmlEscape("") == "");
}

#include "base/text_table.h"

#include <catch2/catch.hpp>

using namespace rtagent;

TEST_CASE("text tables align and right-align numbers", "[base][table]") {
  TextTable t({"NAME", ">COUNT"});
  t.Row({"eth0", "7"});
  t.Row({"arch_timer", "12345"});
  CHECK(t.Render(0) == "NAME        COUNT\neth0            7\narch_timer  12345\n");
  CHECK(t.Rows() == 2);
}

TEST_CASE("a cell's width is what a terminal shows: UTF-8 characters, wide ones, no colour codes",
          "[base][table]") {
  CHECK(DisplayWidth("max µs") == 6);      // µ is two bytes, one column
  CHECK(DisplayWidth("CPU → 3") == 7);
  CHECK(DisplayWidth("表") == 2);          // an East Asian wide character
  CHECK(DisplayWidth("\033[1;31mFAIL\033[0m") == 4);
  CHECK(DisplayWidth("e\xcc\x81") == 1);   // e + combining acute
  CHECK(DisplayWidth("\xff") == 1);        // not UTF-8: one column

  TextTable t({"status", ">max µs", "what"});
  t.Row({"\033[32mPASS\033[0m", "12.3", "a"});
  t.Row({"\033[1;31mFAIL\033[0m", "1,234.5", "b"});
  CHECK(t.Render(0) ==
        "status   max µs  what\n"
        "\033[32mPASS\033[0m       12.3  a\n"
        "\033[1;31mFAIL\033[0m    1,234.5  b\n");
}

TEST_CASE("missing cells are empty, extra cells dropped, no trailing blanks", "[base][table]") {
  TextTable t({"a", "b"});
  t.Row({"x"});
  t.Row({"y", "z", "dropped"});
  CHECK(t.Render(1) == " a  b\n x\n y  z\n");
}

TEST_CASE("ShortValue keeps a cell to its first line and its width, cutting between characters",
          "[base][table]") {
  CHECK(ShortValue("") == "\"\"");
  CHECK(ShortValue("0-3") == "0-3");
  CHECK(ShortValue("first\nsecond\n") == "first ...");
  CHECK(ShortValue("only\n") == "only");
  CHECK(ShortValue("\nsecond") == " ...");
  CHECK(ShortValue(std::string(50, 'x'), 10) == "xxxxxxx...");
  CHECK(ShortValue("µµµµµµµµµµµµ", 10) == "µµµµµµµ...");  // never half a character
  CHECK(ShortValue("表表表表表表", 8) == "表表...");       // wide characters count two
}

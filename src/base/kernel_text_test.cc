#include "base/kernel_text.h"

#include <catch2/catch.hpp>

using namespace rtagent;

TEST_CASE("bracketed choices compare by the selected one", "[base][inspect][text]") {
  CHECK(ParseBracketChoice("always [madvise] never\n") == "madvise");
  CHECK(ParseBracketChoice("always defer defer+madvise [madvise] never") == "madvise");
  CHECK(ParseBracketChoice("[always] madvise never") == "always");
  CHECK(ParseBracketChoice("none voluntary (full) lazy") == "full");  // debugfs sched/preempt
  CHECK_FALSE(ParseBracketChoice("always madvise never").has_value());
  CHECK(BracketChoices("always [madvise] never") == std::vector<std::string>{"always", "madvise", "never"});
}

TEST_CASE("integers, fields and lines", "[base][inspect][text]") {
  CHECK(ParseInt(" -1\n") == -1);
  CHECK(ParseInt("950000") == 950000);
  CHECK_FALSE(ParseInt("12abc").has_value());
  CHECK_FALSE(ParseInt("").has_value());
  CHECK(ParseUint("18446744073709551615") == 18446744073709551615ull);
  CHECK_FALSE(ParseUint("-3").has_value());
  CHECK(AllDigits("0"));
  CHECK(AllDigits("4194304"));
  CHECK_FALSE(AllDigits(""));
  CHECK_FALSE(AllDigits("12a"));
  CHECK_FALSE(AllDigits("-1"));
  CHECK_FALSE(AllDigits("self"));
  CHECK(SplitWs("  a \tb\n c ").size() == 3);
  CHECK(SplitChar("a,,b", ',').size() == 3);
  CHECK(SplitLines("x\ny\n").size() == 2);
  CHECK(Trim(std::string_view("model\0", 6)) == "model");
}

TEST_CASE("the first fields of a line, split without allocating, are SplitWs's first fields", "[base][inspect][text]") {
  std::string_view fields[3];
  REQUIRE(SplitWsInto("  a \tbb\n c d e", fields, 3) == 3);
  CHECK(fields[0] == "a");
  CHECK(fields[1] == "bb");
  CHECK(fields[2] == "c");
  // Fewer fields than asked for: the count says so, and the empty and blank lines give none.
  CHECK(SplitWsInto("x y ", fields, 3) == 2);
  CHECK(SplitWsInto("", fields, 3) == 0);
  CHECK(SplitWsInto(" \t\n", fields, 3) == 0);
  CHECK(SplitWsInto("x", fields, 0) == 0);
}

TEST_CASE("status key lookup", "[base][inspect][text]") {
  std::string status = "Name:\tbash\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\n";
  CHECK(FindKeyValue(status, "Cpus_allowed_list") == "0-1");
  CHECK(FindKeyValue(status, "Cpus_allowed") == "3");
  CHECK_FALSE(FindKeyValue(status, "Mems_allowed").has_value());
}

TEST_CASE("words of a list, and a list in a message", "[base][text]") {
  CHECK(HasWord("cpuset cpu io\n", "cpu"));
  CHECK_FALSE(HasWord("cpuset cpu io", "cpus"));
  CHECK_FALSE(HasWord("", "cpu"));
  CHECK(JoinSome({"a", "b"}, 5) == "a, b");
  CHECK(JoinSome({"a", "b", "c"}, 1) == "a and 2 more");
  CHECK(JoinSome({}, 3).empty());
}

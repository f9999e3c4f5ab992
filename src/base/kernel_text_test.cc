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
  CHECK(SplitWs("  a \tb\n c ").size() == 3);
  CHECK(SplitChar("a,,b", ',').size() == 3);
  CHECK(SplitLines("x\ny\n").size() == 2);
  CHECK(Trim(std::string_view("model\0", 6)) == "model");
}

TEST_CASE("status key lookup", "[base][inspect][text]") {
  std::string status = "Name:\tbash\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\n";
  CHECK(FindKeyValue(status, "Cpus_allowed_list") == "0-1");
  CHECK(FindKeyValue(status, "Cpus_allowed") == "3");
  CHECK_FALSE(FindKeyValue(status, "Mems_allowed").has_value());
}

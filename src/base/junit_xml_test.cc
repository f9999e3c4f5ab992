#include "base/junit_xml.h"

#include <catch2/catch.hpp>

using namespace rtagent;

TEST_CASE("the JUnit writer counts the cases, escapes every text and writes each kind of case", "[base][junit]") {
  JUnitReport r;
  r.name = "tool";
  r.suite_name = "tool: <board>";
  r.time = "1.500";
  r.timestamp = "2026-11-30T03:40:00Z";
  r.properties = {{"result", "FAIL"}, {"note", "a \"quoted\" & <tagged> value"}};
  r.cases.push_back({"t.run", "passes", "0", std::nullopt, std::nullopt, std::nullopt});
  r.cases.push_back({"t.run", "fails", "0", JUnitFailure{"max 12 > 10", "max", "evidence <here>"}, std::nullopt,
                     std::nullopt});
  r.cases.push_back({"t.run", "bare failure", "0", JUnitFailure{"stopped", "interrupted", std::nullopt}, std::nullopt,
                     std::nullopt});
  r.cases.push_back({"t.run", "skips", "0", std::nullopt, std::string("no tracer"), std::nullopt});
  r.cases.push_back({"t.run", "warns", "0", std::nullopt, std::nullopt, std::string("WARN: close\n")});
  r.system_out = "result FAIL\n";
  CHECK(RenderJUnitXml(r) ==
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<testsuites name=\"tool\" tests=\"5\" failures=\"2\" errors=\"0\" time=\"1.500\">\n"
        "  <testsuite name=\"tool: &lt;board&gt;\" tests=\"5\" failures=\"2\" errors=\"0\" skipped=\"1\" time=\"1.500\" "
        "timestamp=\"2026-11-30T03:40:00Z\">\n"
        "    <properties>\n"
        "      <property name=\"result\" value=\"FAIL\"/>\n"
        "      <property name=\"note\" value=\"a &quot;quoted&quot; &amp; &lt;tagged&gt; value\"/>\n"
        "    </properties>\n"
        "    <testcase classname=\"t.run\" name=\"passes\" time=\"0\"/>\n"
        "    <testcase classname=\"t.run\" name=\"fails\" time=\"0\">\n"
        "      <failure message=\"max 12 &gt; 10\" type=\"max\">evidence &lt;here&gt;</failure>\n"
        "    </testcase>\n"
        "    <testcase classname=\"t.run\" name=\"bare failure\" time=\"0\">\n"
        "      <failure message=\"stopped\" type=\"interrupted\"/>\n"
        "    </testcase>\n"
        "    <testcase classname=\"t.run\" name=\"skips\" time=\"0\">\n"
        "      <skipped message=\"no tracer\"/>\n"
        "    </testcase>\n"
        "    <testcase classname=\"t.run\" name=\"warns\" time=\"0\">\n"
        "      <system-out>WARN: close\n</system-out>\n"
        "    </testcase>\n"
        "    <system-out>result FAIL\n</system-out>\n"
        "  </testsuite>\n"
        "</testsuites>\n");
}

TEST_CASE("the JUnit writer leaves out what is not given: time, timestamp, hostname, output", "[base][junit]") {
  JUnitReport r;
  r.name = "v";
  r.suite_name = "v: s";
  const std::string x = RenderJUnitXml(r);
  CHECK(x.find("<testsuites name=\"v\" tests=\"0\" failures=\"0\" errors=\"0\">") != std::string::npos);
  CHECK(x.find("<testsuite name=\"v: s\" tests=\"0\" failures=\"0\" errors=\"0\" skipped=\"0\">") != std::string::npos);
  CHECK(x.find("time=") == std::string::npos);
  CHECK(x.find("system-out") == std::string::npos);
}

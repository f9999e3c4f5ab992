#include "base/junit_xml.h"

#include "base/xml.h"

namespace rtagent {

namespace {

std::string Attr(const std::string& name, const std::string& value) {
  return " " + name + "=\"" + XmlEscape(value) + "\"";
}

std::string RenderCase(const JUnitCase& c) {
  std::string x = "    <testcase" + Attr("classname", c.classname) + Attr("name", c.name) + Attr("time", c.time);
  if (!c.failure && !c.skipped && !c.system_out) return x + "/>\n";
  x += ">\n";
  if (c.failure) {
    x += "      <failure" + Attr("message", c.failure->message) + Attr("type", c.failure->type);
    x += c.failure->text ? ">" + XmlEscape(*c.failure->text) + "</failure>\n" : "/>\n";
  }
  if (c.skipped) x += "      <skipped" + Attr("message", *c.skipped) + "/>\n";
  if (c.system_out) x += "      <system-out>" + XmlEscape(*c.system_out) + "</system-out>\n";
  return x + "    </testcase>\n";
}

}  // namespace

std::string RenderJUnitXml(const JUnitReport& r) {
  int failures = 0, skipped = 0;
  for (const JUnitCase& c : r.cases) {
    failures += c.failure ? 1 : 0;
    skipped += c.skipped ? 1 : 0;
  }
  const std::string counts = Attr("tests", std::to_string(r.cases.size())) + Attr("failures", std::to_string(failures)) +
                             Attr("errors", "0");
  const std::string time = r.time ? Attr("time", *r.time) : "";
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x += "<testsuites" + Attr("name", r.name) + counts + time + ">\n";
  x += "  <testsuite" + Attr("name", r.suite_name) + counts + Attr("skipped", std::to_string(skipped)) + time;
  if (!r.timestamp.empty()) x += Attr("timestamp", r.timestamp);
  if (!r.hostname.empty()) x += Attr("hostname", r.hostname);
  x += ">\n    <properties>\n";
  for (const auto& [name, value] : r.properties) x += "      <property" + Attr("name", name) + Attr("value", value) + "/>\n";
  x += "    </properties>\n";
  for (const JUnitCase& c : r.cases) x += RenderCase(c);
  if (r.system_out) x += "    <system-out>" + XmlEscape(*r.system_out) + "</system-out>\n";
  x += "  </testsuite>\n</testsuites>\n";
  return x;
}

}  // namespace rtagent

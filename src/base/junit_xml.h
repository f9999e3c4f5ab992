// One JUnit XML writer for every report CI reads: the latency verdict (report/junit.h) and
// the check suite (check/render.h) describe their cases; this writes the document.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rtagent {

/// A <failure> of a test case.
struct JUnitFailure {
  std::string message;
  std::string type;
  std::optional<std::string> text;  ///< the element's body; nullopt writes an empty element
};

/// One <testcase>: passed unless it carries a failure or is skipped.
struct JUnitCase {
  std::string classname;
  std::string name;
  std::string time = "0";                  ///< seconds, as written
  std::optional<JUnitFailure> failure;
  std::optional<std::string> skipped;      ///< <skipped message="..."/>
  std::optional<std::string> system_out;   ///< <system-out> inside the case
};

/// A document of one <testsuite> inside <testsuites>. The tests, failures and skipped counts
/// are counted from the cases; errors is always 0.
struct JUnitReport {
  std::string name;                        ///< <testsuites name>
  std::string suite_name;                  ///< <testsuite name>
  std::optional<std::string> time;         ///< seconds, on both elements when set
  std::string timestamp;                   ///< <testsuite timestamp>, left out when empty
  std::string hostname;                    ///< <testsuite hostname>, left out when empty
  std::vector<std::pair<std::string, std::string>> properties;
  std::vector<JUnitCase> cases;
  std::optional<std::string> system_out;   ///< the suite's <system-out>, after the cases
};

/// The document as XML (UTF-8, two-space indentation, every text and attribute escaped).
std::string RenderJUnitXml(const JUnitReport& report);

}  // namespace rtagent

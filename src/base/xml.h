// Escaping text for XML documents (JUnit, SVG).
#pragma once

#include <string>

namespace rtagent {

/// `s` escaped for XML text and attribute values (&, <, >, ", ').
std::string XmlEscape(const std::string& s);

}  // namespace rtagent

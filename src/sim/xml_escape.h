// Escaping text for the SVG reports (element text and attribute values). Pure; thread-safe.
#ifndef SQUEEZE_SIM_XML_ESCAPE_H_
#define SQUEEZE_SIM_XML_ESCAPE_H_

#include <string>

namespace squeeze {

// `s` with &, <, > and " replaced by their XML entities.
std::string XmlEscape(const std::string& s);

}  // namespace squeeze

#endif  // SQUEEZE_SIM_XML_ESCAPE_H_

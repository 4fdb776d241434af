// Checks an ns-3 attribute default given as text (a scenario's transport attributes) before
// ns-3 sees it: several of ns-3's value parsers abort the process on malformed text ("many" for
// an integer, "5 apples" for a time) instead of reporting it.
#ifndef MRCSIM_SIM_ATTRIBUTE_CHECK_H
#define MRCSIM_SIM_ATTRIBUTE_CHECK_H

#include <optional>
#include <string>

namespace mrcsim
{

/// \brief Why `value` cannot be the default of attribute `name` ("ns3::Type::Attribute"), or
/// nothing if it can: the type and attribute exist (the attribute may be inherited), the text
/// parses as the attribute's kind of value and the checker accepts it (ranges, enum names).
std::optional<std::string> CheckAttributeDefault(const std::string& name, const std::string& value);

} // namespace mrcsim

#endif

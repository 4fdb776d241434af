// Checks an ns-3 attribute default given as text (a scenario's transport attributes) before
// ns-3 sees it: several of ns-3's value parsers abort the process on malformed text ("many" for
// an integer, "5 apples" for a time) instead of reporting it.
#ifndef MRCSIM_SIM_SCENARIO_ATTRIBUTE_CHECK_H
#define MRCSIM_SIM_SCENARIO_ATTRIBUTE_CHECK_H

#include <map>
#include <optional>
#include <string>
#include <utility>

namespace mrcsim
{

/// \brief Why `value` cannot be the default of attribute `name` ("ns3::Type::Attribute"), or
/// nothing if it can: the type and attribute exist (the attribute may be inherited), the text
/// parses as the attribute's kind of value and the checker accepts it (ranges, enum names).
/// Beyond the checker, the range model (sim/scenario/value-ranges.h): a time within what the simulator's
/// clock holds, and what the model needs of the attribute (periods above 0, ...).
std::optional<std::string> CheckAttributeDefault(const std::string& name, const std::string& value);

/// \brief What the models need of a transport's attributes together (each already passed
/// CheckAttributeDefault) on a fabric of `planes` planes: queue limits and the trimming threshold
/// of at least one frame of the NIC's Mtu, MRC's EVs within what a QP can number. Returns the
/// attribute at fault and why, or nothing.
std::optional<std::pair<std::string, std::string>> CheckTransportAttributes(
  const std::map<std::string, std::string>& attributes,
  int planes);

} // namespace mrcsim

#endif

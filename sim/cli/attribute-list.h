// Every ns-3 attribute a scenario can set (a transport's "attributes"), as `mrcsim attributes`
// lists it: the full name, the kind of value, the default, the range or names the checker
// accepts, and the documentation (which cites each default's source). Taken from ns-3's TypeId
// registry, so a new attribute is listed without a change here.
#ifndef MRCSIM_SIM_CLI_ATTRIBUTE_LIST_H
#define MRCSIM_SIM_CLI_ATTRIBUTE_LIST_H

#include <string>
#include <vector>

namespace mrcsim
{

/// \brief One attribute of one registered ns-3 type.
struct AttributeEntry
{
  std::string name;         ///< "ns3::Type::Attribute", as a scenario names it
  std::string kind;         ///< the value's kind as text takes it: "time", "rate", "integer", ...
  std::string defaultValue; ///< the default, as text a scenario could give
  std::string accepts;      ///< what the checker accepts: a range, names, or a type
  std::string help;         ///< the attribute's documentation
  /// Empty if a scenario may set it; else why not (CheckAttributeDefault on its own default, or
  /// an attribute that cannot be set at construction).
  std::string notSettable;
};

/// \brief The attributes of every registered type whose full name contains `filter` (all if
/// empty), in type then attribute order. Each is listed under the type that declares it.
std::vector<AttributeEntry> ListAttributes(const std::string& filter);

} // namespace mrcsim

#endif

#include "sim/attribute-check.h"

#include "ns3/string.h"
#include "ns3/type-id.h"

#include <cmath>
#include <cstdlib>
#include <regex>

namespace mrcsim
{

namespace
{

bool
IsReal(const std::string& text)
{
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0])))
  {
    return false;
  }
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(x);
}

/// What the text of a value of kind `valueType` must look like, for the kinds whose ns-3 parser
/// aborts on malformed text; an empty string if it is fine.
std::string
FormatProblem(const std::string& valueType, const std::string& text)
{
  static const std::regex kUnsigned("\\+?[0-9]+");
  static const std::regex kSigned("[+-]?[0-9]+");
  static const std::regex kTime("[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?(s|ms|us|ns|ps|fs|min|h|d|y)?");
  if (valueType == "ns3::UintegerValue" && !std::regex_match(text, kUnsigned))
  {
    return "expected a non-negative integer";
  }
  if (valueType == "ns3::IntegerValue" && !std::regex_match(text, kSigned))
  {
    return "expected an integer";
  }
  if (valueType == "ns3::DoubleValue" && !IsReal(text))
  {
    return "expected a number";
  }
  if (valueType == "ns3::TimeValue" && !std::regex_match(text, kTime))
  {
    return "expected a time: a number with a unit s, ms, us, ns, ps, fs, min, h, d or y (e.g. \"262us\")";
  }
  return "";
}

/// Attributes whose value names an ns-3 type, and the base class that type must have. ns-3's
/// checker of a TypeId attribute accepts any registered type, and aborts on an unknown name
/// without saying which file or key it came from; the model checks the base class only when it
/// builds a queue pair, where a wrong one could only abort.
struct TypeNamingAttribute
{
  const char* type;
  const char* attribute;
  const char* base;
};

constexpr TypeNamingAttribute kTypeNamingAttributes[] = {
  { "ns3::MrcQueuePair", "EvSelector", "ns3::EvSelector" },
  { "ns3::MrcQueuePair", "CongestionControl", "ns3::MrcCongestionControl" },
};

/// \brief The registered types derived from `base` that can be created, as "a", "b", ...
std::string
ConcreteSubtypes(ns3::TypeId base)
{
  std::string list;
  for (uint16_t i = 0; i < ns3::TypeId::GetRegisteredN(); ++i)
  {
    const ns3::TypeId tid = ns3::TypeId::GetRegistered(i);
    if (tid != base && tid.IsChildOf(base) && tid.HasConstructor())
    {
      list += (list.empty() ? "\"" : ", \"") + tid.GetName() + "\"";
    }
  }
  return list;
}

/// \brief Why `value` cannot name the type of a type-naming attribute, or "" if it can (or the
/// attribute does not name a type).
std::string
TypeNameProblem(ns3::TypeId owner, const std::string& attribute, const std::string& value)
{
  for (const TypeNamingAttribute& a : kTypeNamingAttributes)
  {
    ns3::TypeId type;
    if (attribute != a.attribute || !ns3::TypeId::LookupByNameFailSafe(a.type, &type) ||
        (owner != type && !owner.IsChildOf(type)))
    {
      continue;
    }
    const ns3::TypeId base = ns3::TypeId::LookupByName(a.base);
    ns3::TypeId named;
    if (!ns3::TypeId::LookupByNameFailSafe(value, &named) || !named.IsChildOf(base) || !named.HasConstructor())
    {
      return "expected the name of a type derived from " + std::string(a.base) + ": one of " + ConcreteSubtypes(base);
    }
  }
  return "";
}

} // namespace

std::optional<std::string>
CheckAttributeDefault(const std::string& name, const std::string& value)
{
  const size_t cut = name.rfind("::");
  const std::string typeName = name.substr(0, cut);
  const std::string attribute = name.substr(cut + 2);
  ns3::TypeId tid;
  if (!ns3::TypeId::LookupByNameFailSafe(typeName, &tid))
  {
    return "no ns-3 type \"" + typeName + "\" (the model headers list each type's attributes)";
  }
  ns3::TypeId::AttributeInformation info;
  if (!tid.LookupAttributeByName(attribute, &info))
  {
    return "type " + typeName + " has no attribute \"" + attribute + "\"";
  }
  const std::string valueType = info.checker->GetValueTypeName();
  const std::string problem = FormatProblem(valueType, value);
  if (!problem.empty())
  {
    return "\"" + value + "\": " + problem + " (" + info.help + ")";
  }
  const std::string typeProblem = TypeNameProblem(tid, attribute, value);
  if (!typeProblem.empty())
  {
    return "\"" + value + "\": " + typeProblem;
  }
  if (!info.checker->CreateValidValue(ns3::StringValue(value)))
  {
    return "\"" + value + "\" is not a valid value here (out of range or unknown name; " + info.help + ")";
  }
  return std::nullopt;
}

} // namespace mrcsim

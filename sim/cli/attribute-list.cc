#include "sim/cli/attribute-list.h"

#include "sim/scenario/attribute-check.h"

#include "ns3/type-id.h"

#include <algorithm>

namespace mrcsim
{

namespace
{

/// \brief The kind of value, in words, from the attribute value's class name.
std::string
KindOf(const std::string& valueType)
{
  static const std::pair<const char*, const char*> kKinds[] = {
    { "ns3::TimeValue", "time (a number and a unit: 55us, 1.5ms)" },
    { "ns3::DataRateValue", "rate (a number and a unit: 100Gbps, 40Mb/s)" },
    { "ns3::UintegerValue", "integer" },
    { "ns3::IntegerValue", "integer" },
    { "ns3::DoubleValue", "number" },
    { "ns3::BooleanValue", "true or false" },
    { "ns3::EnumValue", "name" },
    { "ns3::StringValue", "text" },
    { "ns3::TypeIdValue", "type name" },
  };
  for (const auto& [type, kind] : kKinds)
  {
    if (valueType == type)
    {
      return kind;
    }
  }
  return valueType;
}

} // namespace

std::vector<AttributeEntry>
ListAttributes(const std::string& filter)
{
  std::vector<ns3::TypeId> types;
  for (uint16_t i = 0; i < ns3::TypeId::GetRegisteredN(); ++i)
  {
    types.push_back(ns3::TypeId::GetRegistered(i));
  }
  std::sort(types.begin(), types.end(), [](const ns3::TypeId& a, const ns3::TypeId& b) { return a.GetName() < b.GetName(); });
  std::vector<AttributeEntry> out;
  for (const ns3::TypeId& tid : types)
  {
    for (std::size_t j = 0; j < tid.GetAttributeN(); ++j)
    {
      const ns3::TypeId::AttributeInformation info = tid.GetAttribute(j);
      AttributeEntry e;
      e.name = tid.GetName() + "::" + info.name;
      if (!filter.empty() && e.name.find(filter) == std::string::npos)
      {
        continue;
      }
      const std::string valueType = info.checker->GetValueTypeName();
      e.kind = KindOf(valueType);
      e.help = info.help;
      if (valueType == "ns3::ObjectPtrContainerValue" || valueType == "ns3::PointerValue" ||
          valueType == "ns3::CallbackValue")
      {
        // Objects and callbacks have no text form (ns-3 aborts when asked for one).
        e.notSettable = "holds an object or a callback, not a value";
        out.push_back(std::move(e));
        continue;
      }
      e.defaultValue = info.initialValue->SerializeToString(info.checker);
      e.accepts = info.checker->HasUnderlyingTypeInformation() ? info.checker->GetUnderlyingTypeInformation() : "";
      if (!(info.flags & ns3::TypeId::ATTR_CONSTRUCT))
      {
        e.notSettable = "not set at construction (its default cannot be given)";
      }
      else if (info.supportLevel == ns3::TypeId::OBSOLETE)
      {
        e.notSettable = "obsolete";
      }
      else if (auto problem = CheckAttributeDefault(e.name, e.defaultValue))
      {
        e.notSettable = *problem;
      }
      out.push_back(std::move(e));
    }
  }
  return out;
}

} // namespace mrcsim

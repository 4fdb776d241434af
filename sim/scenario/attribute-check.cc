#include "sim/scenario/attribute-check.h"

#include "sim/scenario/value-ranges.h"

#include "ns3/data-rate.h"
#include "ns3/string.h"
#include "ns3/type-id.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <sstream>

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

/// A number as an error shows it (shortest form).
std::string
Num(double x)
{
  std::ostringstream out;
  out << x;
  return out.str();
}

/// \brief The seconds a time text (FormatProblem's form) stands for, as a double: ns-3 converts
/// it to 64-bit picoseconds without a range check (a large time wraps), so the range model
/// looks at it first.
double
TimeSeconds(const std::string& text)
{
  size_t end = text.size();
  while (end > 0 && std::isalpha(static_cast<unsigned char>(text[end - 1])))
  {
    --end;
  }
  const std::string unit = text.substr(end);
  static const std::pair<const char*, double> kUnits[] = { { "", 1 },       { "s", 1 },     { "ms", 1e-3 },
                                                           { "us", 1e-6 },  { "ns", 1e-9 }, { "ps", 1e-12 },
                                                           { "fs", 1e-15 }, { "min", 60 },  { "h", 3600 },
                                                           { "d", 86400 },  { "y", 365 * 86400.0 } };
  double factor = 1;
  for (const auto& [name, f] : kUnits)
  {
    if (unit == name)
    {
      factor = f;
    }
  }
  return std::strtod(text.substr(0, end).c_str(), nullptr) * factor;
}

/// What the models need of single attributes beyond their ns-3 checkers (which bound their
/// fields, not what a run can do with them): "" if `text` (well-formed, in the checker's range)
/// is fine.
std::string
ModelProblem(const std::string& typeName, const std::string& attribute, const std::string& text)
{
  const std::string name = typeName + "::" + attribute;
  if (name == "ns3::MrcQueuePair::LossProbeRtts" && std::strtod(text.c_str(), nullptr) > range::kMaxLossProbeRtts)
  {
    return "expected at most " + Num(range::kMaxLossProbeRtts) +
           " smoothed RTTs (RACK-TLP waits 2; the probe's timeout must be a time the simulator's clock "
           "holds); 0 turns the probe off";
  }
  if (name == "ns3::PortQueueConfig::ReferenceRate")
  {
    const uint64_t bps = ns3::DataRate(text).GetBitRate();
    if (bps != 0 && bps < 1000000000ull)
    {
      return "expected 0 (no scaling) or a rate of at least 1Gbps, the slowest link a fabric may have "
             "(thresholds derived at a lower rate round down to nothing)";
    }
  }
  if (name == "ns3::FabricChannel::Delay")
  {
    // The network sets each link's delay from the fabric after the defaults are applied, so a
    // default would be ignored without a word.
    return "link delays come from the topology (the fabric spec's link delays, GraphML's delay_ns), "
           "not from this attribute";
  }
  return "";
}

/// \brief The text of attribute `name` a transport runs with: its own value, else ns-3's default.
std::string
Effective(const std::map<std::string, std::string>& attributes, const std::string& name)
{
  auto it = attributes.find(name);
  if (it != attributes.end())
  {
    return it->second;
  }
  const size_t cut = name.rfind("::");
  ns3::TypeId::AttributeInformation info;
  ns3::TypeId::LookupByName(name.substr(0, cut)).LookupAttributeByName(name.substr(cut + 2), &info);
  return info.initialValue->SerializeToString(info.checker);
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
  if (valueType == "ns3::TimeValue" && !(std::fabs(TimeSeconds(value)) <= range::kMaxAttributeTimeS))
  {
    return "\"" + value + "\": expected a time of at most " + Num(range::kMaxAttributeTimeS) +
           "s (about 11.6 days, beyond any run; the simulator's clock holds 9.2e6 s in picoseconds) (" + info.help +
           ")";
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
  const std::string modelProblem = ModelProblem(typeName, attribute, value);
  if (!modelProblem.empty())
  {
    return "\"" + value + "\": " + modelProblem;
  }
  return std::nullopt;
}

std::optional<std::pair<std::string, std::string>>
CheckTransportAttributes(const std::map<std::string, std::string>& attributes, int planes)
{
  const auto number = [&](const std::string& name) { return std::strtod(Effective(attributes, name).c_str(), nullptr); };
  // Queue limits and the trimming threshold hold at least one full data frame: a limit below it
  // drops every full packet, a threshold below it trims every packet that finds another queued,
  // and a message then never completes.
  const double frame = number("ns3::RdmaNic::Mtu") + range::kFrameHeaderAllowance;
  for (const char* name :
       { "ns3::PortQueueConfig::DataLimit", "ns3::PortQueueConfig::ControlLimit", "ns3::PortQueueConfig::TrimThreshold" })
  {
    if (attributes.count(name) && number(name) < frame)
    {
      return std::make_pair(std::string(name),
                            "\"" + attributes.at(name) + "\": expected at least one full data frame, " + Num(frame) +
                              " bytes (ns3::RdmaNic::Mtu " + Effective(attributes, "ns3::RdmaNic::Mtu") + " plus " +
                              std::to_string(range::kFrameHeaderAllowance) + " bytes of headers)");
    }
  }
  // An MRC QP's EVs over all planes are numbered in 14 bits of the UDP source port.
  const double perPlane = std::max(1.0, std::floor(number("ns3::MrcQueuePair::EvCount") / std::max(1, planes)));
  const double backups = number("ns3::MrcQueuePair::BackupEvsPerPlane");
  const double evs = double(planes) * (perPlane + backups);
  if (evs > range::kMaxEvsPerQp)
  {
    const std::string name =
      attributes.count("ns3::MrcQueuePair::BackupEvsPerPlane") ? "ns3::MrcQueuePair::BackupEvsPerPlane" : "ns3::MrcQueuePair::EvCount";
    return std::make_pair(name,
                          "\"" + Effective(attributes, name) + "\": " + std::to_string(planes) + " planes x (" +
                            Num(perPlane) + " EVs + " + Num(backups) + " backups) make " + Num(evs) +
                            " EVs per QP; at most " + std::to_string(range::kMaxEvsPerQp) +
                            " (the EV index travels in 14 bits of the UDP source port)");
  }
  return std::nullopt;
}

} // namespace mrcsim

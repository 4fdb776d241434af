// The value an attribute of a type gives objects made from now on (its initial value, as
// Config::SetDefault last set it), read without making an object of the type.
#ifndef MRCSIM_MODELS_ENGINE_ATTRIBUTE_DEFAULT_H
#define MRCSIM_MODELS_ENGINE_ATTRIBUTE_DEFAULT_H

#include "ns3/abort.h"
#include "ns3/type-id.h"

#include <string>
#include <utility>

namespace ns3
{

/// \brief The default of attribute `name` of `tid` (or of a parent type), as a `Value`'s Get()
/// returns it, e.g. AttributeDefault<TimeValue>(RdmaNic::GetTypeId(), "TxLatency"). Aborts if
/// the type has no such attribute or it holds another kind of value: both are mistakes in code.
template<typename Value>
auto
AttributeDefault(TypeId tid, const std::string& name) -> decltype(std::declval<const Value&>().Get())
{
  TypeId::AttributeInformation info;
  NS_ABORT_MSG_UNLESS(tid.LookupAttributeByName(name, &info), tid.GetName() << " has no attribute " << name);
  const Ptr<const Value> value = DynamicCast<const Value>(info.initialValue);
  NS_ABORT_MSG_UNLESS(value, tid.GetName() << "::" << name << " holds another kind of value");
  return value->Get();
}

} // namespace ns3

#endif

#include "models/mrc/ev-selector.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EvSelector");

NS_OBJECT_ENSURE_REGISTERED(EvSelector);

TypeId
EvSelector::GetTypeId()
{
  static TypeId tid = TypeId("ns3::EvSelector").SetParent<ObjectBase>();
  NS_LOG_LOGIC("registered " << tid.GetName());
  return tid;
}

} // namespace ns3

#include "models/mrc/ev-selector.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(EvSelector);

TypeId
EvSelector::GetTypeId()
{
  static TypeId tid = TypeId("ns3::EvSelector").SetParent<Object>();
  return tid;
}

} // namespace ns3

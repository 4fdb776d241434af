#include "models/mrc/mrc-congestion-control.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MrcCongestionControl");

NS_OBJECT_ENSURE_REGISTERED(MrcCongestionControl);

TypeId
MrcCongestionControl::GetTypeId()
{
  static TypeId tid = TypeId("ns3::MrcCongestionControl").SetParent<ObjectBase>();
  NS_LOG_LOGIC("registered " << tid.GetName());
  return tid;
}

} // namespace ns3

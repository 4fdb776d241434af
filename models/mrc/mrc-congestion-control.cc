#include "models/mrc/mrc-congestion-control.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MrcCongestionControl);

TypeId
MrcCongestionControl::GetTypeId()
{
  static TypeId tid = TypeId("ns3::MrcCongestionControl").SetParent<Object>();
  return tid;
}

} // namespace ns3

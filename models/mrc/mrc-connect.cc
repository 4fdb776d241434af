#include "models/mrc/mrc-connect.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MrcConnect");

std::pair<Ptr<MrcQueuePair>, Ptr<MrcQueuePair>>
ConnectMrc(FabricNetwork& net, uint32_t a, uint32_t b)
{
  NS_LOG_FUNCTION(a << b);
  Ptr<MrcQueuePair> x = CreateObject<MrcQueuePair>();
  Ptr<MrcQueuePair> y = CreateObject<MrcQueuePair>();
  ConnectQueuePairs(net, a, b, x, y);
  x->SetPeer(PeekPointer(y));
  y->SetPeer(PeekPointer(x));
  return { x, y };
}

} // namespace ns3

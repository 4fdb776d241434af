#include "models/mrc/mrc-connect.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MrcConnect");

namespace
{

std::pair<Ptr<MrcQueuePair>, Ptr<MrcQueuePair>>
Pair(FabricNetwork& net, uint32_t a, uint32_t b, Ptr<MrcQueuePair> x, Ptr<MrcQueuePair> y)
{
  ConnectQueuePairs(net, a, b, x, y);
  return { x, y };
}

} // namespace

std::pair<Ptr<MrcQueuePair>, Ptr<MrcQueuePair>>
ConnectMrc(FabricNetwork& net, uint32_t a, uint32_t b)
{
  NS_LOG_FUNCTION(a << b);
  Ptr<MrcQueuePair> x = CreateLight<MrcQueuePair>();
  Ptr<MrcQueuePair> y = CreateLight<MrcQueuePair>();
  return Pair(net, a, b, x, y);
}

std::pair<Ptr<MrcQueuePair>, Ptr<MrcQueuePair>>
ConnectMrc(FabricNetwork& net, uint32_t a, uint32_t b, const MrcQueuePair& prototype)
{
  NS_LOG_FUNCTION(a << b);
  return Pair(net, a, b, prototype.Copy(), prototype.Copy());
}

} // namespace ns3

#include "models/roce/roce-connect.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceConnect");

std::pair<Ptr<RoceQueuePair>, Ptr<RoceQueuePair>>
ConnectRoce(FabricNetwork& net, uint32_t a, uint32_t b, uint16_t port, uint16_t entropy)
{
  NS_LOG_FUNCTION(a << b << port << entropy);
  GetOrCreateNic(net, a); // NICs before QPs, as objects are numbered in creation order
  GetOrCreateNic(net, b);
  Ptr<RoceQueuePair> x = CreateLight<RoceQueuePair>();
  Ptr<RoceQueuePair> y = CreateLight<RoceQueuePair>();
  for (auto& qp : { x, y })
  {
    qp->SetAttribute("Port", UintegerValue(port));
    qp->SetAttribute("Entropy", UintegerValue(entropy));
  }
  ConnectQueuePairs(net, a, b, x, y);
  return { x, y };
}

std::pair<Ptr<RoceQueuePair>, Ptr<RoceQueuePair>>
ConnectRoce(FabricNetwork& net, uint32_t a, uint32_t b, uint16_t port, uint16_t entropy, const RoceQueuePair& prototype)
{
  NS_LOG_FUNCTION(a << b << port << entropy);
  GetOrCreateNic(net, a);
  GetOrCreateNic(net, b);
  Ptr<RoceQueuePair> x = prototype.Copy(port, entropy);
  Ptr<RoceQueuePair> y = prototype.Copy(port, entropy);
  ConnectQueuePairs(net, a, b, x, y);
  return { x, y };
}

} // namespace ns3

#include "models/rdma/rdma-connect.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaConnect");

Ptr<RdmaNic>
GetOrCreateNic(FabricNetwork& net, uint32_t gpu)
{
  Ptr<FabricHost> host = net.GetHost(gpu);
  Ptr<RdmaNic> nic = host->GetObject<RdmaNic>();
  if (!nic)
  {
    nic = CreateObject<RdmaNic>();
    nic->Attach(host);
    nic->SetRouting(&net.Routing());
    host->AggregateObject(nic);
  }
  return nic;
}

namespace
{

uint32_t
NextQpn(Ptr<RdmaNic> nic)
{
  uint32_t qpn = 1;
  while (nic->GetQueuePair(qpn))
  {
    ++qpn;
  }
  return qpn;
}

} // namespace

void
ConnectQueuePairs(FabricNetwork& net, uint32_t a, uint32_t b, Ptr<RdmaQueuePair> x, Ptr<RdmaQueuePair> y)
{
  Ptr<RdmaNic> na = GetOrCreateNic(net, a);
  Ptr<RdmaNic> nb = GetOrCreateNic(net, b);
  uint32_t qa = NextQpn(na);
  uint32_t qb = a == b ? qa + 1 : NextQpn(nb);
  na->AddQueuePair(x, qa, b, qb);
  nb->AddQueuePair(y, qb, a, qa);
}

} // namespace ns3

#include "models/rdma-connect.h"

#include "ns3/uinteger.h"

namespace ns3
{

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

namespace
{

template<typename Qp>
std::pair<Ptr<Qp>, Ptr<Qp>>
Connect(FabricNetwork& net, uint32_t a, uint32_t b, Ptr<Qp> x, Ptr<Qp> y)
{
  Ptr<RdmaNic> na = GetOrCreateNic(net, a);
  Ptr<RdmaNic> nb = GetOrCreateNic(net, b);
  uint32_t qa = NextQpn(na);
  uint32_t qb = a == b ? qa + 1 : NextQpn(nb);
  na->AddQueuePair(x, qa, b, qb);
  nb->AddQueuePair(y, qb, a, qa);
  return { x, y };
}

} // namespace

std::pair<Ptr<MrcQueuePair>, Ptr<MrcQueuePair>>
ConnectMrc(FabricNetwork& net, uint32_t a, uint32_t b)
{
  auto qps = Connect(net, a, b, CreateObject<MrcQueuePair>(), CreateObject<MrcQueuePair>());
  qps.first->SetPeer(PeekPointer(qps.second));
  qps.second->SetPeer(PeekPointer(qps.first));
  return qps;
}

std::pair<Ptr<RoceQueuePair>, Ptr<RoceQueuePair>>
ConnectRoce(FabricNetwork& net, uint32_t a, uint32_t b, uint16_t port, uint16_t entropy)
{
  Ptr<RdmaNic> na = GetOrCreateNic(net, a);
  Ptr<RdmaNic> nb = GetOrCreateNic(net, b);
  uint32_t qa = NextQpn(na);
  uint32_t qb = NextQpn(nb);
  if (a == b)
  {
    qb = qa + 1;
  }
  Ptr<RoceQueuePair> x = CreateObject<RoceQueuePair>();
  Ptr<RoceQueuePair> y = CreateObject<RoceQueuePair>();
  for (auto& qp : { x, y })
  {
    qp->SetAttribute("Port", UintegerValue(port));
    qp->SetAttribute("Entropy", UintegerValue(entropy));
  }
  na->AddQueuePair(x, qa, b, qb);
  nb->AddQueuePair(y, qb, a, qa);
  return { x, y };
}

} // namespace ns3

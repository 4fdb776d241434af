#include "models/rdma/rdma-connect.h"

#include "ns3/log.h"

#include <tuple>

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
    nic->SetNetwork(&net);
    host->AggregateObject(nic);
  }
  return nic;
}

void
ConnectQueuePairs(FabricNetwork& net, uint32_t a, uint32_t b, Ptr<RdmaQueuePair> x, Ptr<RdmaQueuePair> y)
{
  Ptr<RdmaNic> na = GetOrCreateNic(net, a);
  Ptr<RdmaNic> nb = GetOrCreateNic(net, b);
  const uint32_t qa = na->TakeQpn();
  const uint32_t qb = nb->TakeQpn();
  for (auto [nic, qp, qpn, remoteGpu, remoteQpn] : { std::make_tuple(na, x, qa, b, qb), std::make_tuple(nb, y, qb, a, qa) })
  {
    if (FabricParallelSimulatorImpl::RunsHere(nic->GetNodeId()))
      nic->AddQueuePair(qp, qpn, remoteGpu, remoteQpn);
    else
      qp->Bind(PeekPointer(nic), qpn, remoteGpu, remoteQpn);
  }
}

} // namespace ns3

// Sets up RDMA NICs on hosts and connected queue-pair pairs between them, the way a job's
// communicator does at start-up.
#ifndef MRCSIM_MODELS_RDMA_CONNECT_H
#define MRCSIM_MODELS_RDMA_CONNECT_H

#include "models/fabric-network.h"
#include "models/rdma-nic.h"
#include "models/mrc-queue-pair.h"
#include "models/roce-queue-pair.h"

#include <utility>

namespace ns3
{

/// \brief The NIC of GPU `gpu`, created and attached on first use.
Ptr<RdmaNic> GetOrCreateNic(FabricNetwork& net, uint32_t gpu);

/// \brief A RoCEv2 QP pair between GPUs a and b pinned to NIC port `port` of each and to UDP
/// source port `entropy`; QP numbers are the next free ones on each NIC. Attributes of the QPs
/// come from the ns3::RoceQueuePair defaults.
std::pair<Ptr<RoceQueuePair>, Ptr<RoceQueuePair>> ConnectRoce(FabricNetwork& net,
                                                              uint32_t a,
                                                              uint32_t b,
                                                              uint16_t port,
                                                              uint16_t entropy);

/// \brief An MRC QP pair between GPUs a and b (every plane); attributes from the
/// ns3::MrcQueuePair defaults. Each QP learns its peer for port-status messages.
std::pair<Ptr<MrcQueuePair>, Ptr<MrcQueuePair>> ConnectMrc(FabricNetwork& net, uint32_t a, uint32_t b);

} // namespace ns3

#endif

// Connects MRC queue pairs between GPUs (see rdma/rdma-connect.h).
#ifndef MRCSIM_MODELS_MRC_CONNECT_H
#define MRCSIM_MODELS_MRC_CONNECT_H

#include "models/mrc/mrc-queue-pair.h"
#include "models/rdma/rdma-connect.h"

#include <utility>

namespace ns3
{

/// \brief An MRC QP pair between GPUs a and b (every plane); attributes from the
/// ns3::MrcQueuePair defaults. Each QP finds its peer's node, for port-status messages, through
/// its NIC (RdmaNic::NodeOfGpu of its remote GPU).
std::pair<Ptr<MrcQueuePair>, Ptr<MrcQueuePair>> ConnectMrc(FabricNetwork& net, uint32_t a, uint32_t b);
/// \brief As above, the QPs copied from `prototype` (MrcQueuePair::CreatePrototype): what a run
/// that makes many connections uses.
std::pair<Ptr<MrcQueuePair>, Ptr<MrcQueuePair>> ConnectMrc(FabricNetwork& net,
                                                            uint32_t a,
                                                            uint32_t b,
                                                            const MrcQueuePair& prototype);

} // namespace ns3

#endif

// Connects RoCEv2 queue pairs between GPUs (see rdma/rdma-connect.h).
#ifndef MRCSIM_MODELS_ROCE_CONNECT_H
#define MRCSIM_MODELS_ROCE_CONNECT_H

#include "models/rdma/rdma-connect.h"
#include "models/roce/roce-queue-pair.h"

#include <utility>

namespace ns3
{

/// \brief A RoCEv2 QP pair between GPUs a and b pinned to NIC port `port` of each and to UDP
/// source port `entropy`; QP numbers are the next free ones on each NIC. Attributes of the QPs
/// come from the ns3::RoceQueuePair defaults.
std::pair<Ptr<RoceQueuePair>, Ptr<RoceQueuePair>> ConnectRoce(FabricNetwork& net,
                                                              uint32_t a,
                                                              uint32_t b,
                                                              uint16_t port,
                                                              uint16_t entropy);
/// \brief As above, the QPs copied from `prototype` (RoceQueuePair::CreatePrototype): what a run
/// that makes many connections uses.
std::pair<Ptr<RoceQueuePair>, Ptr<RoceQueuePair>> ConnectRoce(FabricNetwork& net,
                                                              uint32_t a,
                                                              uint32_t b,
                                                              uint16_t port,
                                                              uint16_t entropy,
                                                              const RoceQueuePair& prototype);

} // namespace ns3

#endif

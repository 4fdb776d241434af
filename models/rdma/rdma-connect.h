// Sets up RDMA NICs on hosts and connects queue pairs between them, the way a job's communicator
// does at start-up. Each transport adds its own Connect (mrc/mrc-connect.h, roce/roce-connect.h).
#ifndef MRCSIM_MODELS_RDMA_CONNECT_H
#define MRCSIM_MODELS_RDMA_CONNECT_H

#include "models/fabric/fabric-network.h"
#include "models/rdma/rdma-nic.h"

namespace ns3
{

/// \brief The NIC of GPU `gpu`, created and attached on first use.
Ptr<RdmaNic> GetOrCreateNic(FabricNetwork& net, uint32_t gpu);

/// \brief Adds `x` to GPU a's NIC and `y` to GPU b's, as each other's remote QP. QP numbers are
/// the next free ones on each NIC (RdmaNic::TakeQpn: two consecutive ones when a == b). In a run
/// across MPI ranks a QP joins its NIC only in the process that runs its GPU's node
/// (FabricParallelSimulatorImpl::RunsHere); elsewhere it is bound (numbered, its peer known) but
/// no NIC holds it, so that the caller may let it go: each rank keeps only its own QPs.
void ConnectQueuePairs(FabricNetwork& net, uint32_t a, uint32_t b, Ptr<RdmaQueuePair> x, Ptr<RdmaQueuePair> y);

} // namespace ns3

#endif

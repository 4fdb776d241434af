// A run across processes (`mpirun -np N mrcsim run ...`): ns-3's MPI module (MpiInterface) starts
// MPI and gives the rank and the communicator; MpiRanks carries the parallel simulator's window
// traffic between the ranks (ns3::RankLink) with MPI collectives. See docs/CLUSTER.md.
#ifndef MRCSIM_SIM_MPI_RANKS_H
#define MRCSIM_SIM_MPI_RANKS_H

#include "models/engine/fabric-parallel-simulator.h"

namespace mrcsim
{

/// \brief Whether this process was started by an MPI launcher (mpirun, srun) with more than one
/// rank (its environment says so).
bool LaunchedByMpi();

/// \brief Starts MPI through ns-3's MpiInterface (if LaunchedByMpi) and stops it when destroyed.
/// Throws if the build has no MPI.
class MpiSession
{
public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

/// \brief The link between this process and the others of an MPI run; null when the process
/// runs alone.
ns3::RankLink* MpiLink();

/// \brief Ends every rank of an MPI run with exit code `code` (MPI_Abort: the others may wait in
/// a collective for this one); nothing when the process runs alone.
void AbortRanks(int code);

} // namespace mrcsim

#endif

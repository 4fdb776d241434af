// A run across processes (`mpirun -np N mrcsim run ...`): ns-3's MPI module (MpiInterface) starts
// MPI and gives the rank and the communicator; MpiRanks carries the parallel simulator's window
// traffic between the ranks (ns3::RankLink) with MPI collectives. See docs/CLUSTER.md.
#ifndef MRCSIM_SIM_PARALLEL_MPI_RANKS_H
#define MRCSIM_SIM_PARALLEL_MPI_RANKS_H

#include "models/engine/fabric-parallel-simulator.h"

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

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

/// \brief What the ranks of an MPI run must have alike: a name ("scenario") and a canonical text.
struct RankAgreementPart
{
  std::string name;
  std::string text;
};

/// \brief Where this rank's text of a part differs from rank 0's, for a person: (name, this
/// rank's text, rank 0's text) to, e.g., "key 'workloads.0.bytes': 65536 here, 131072 on rank 0".
using ExplainDifference = std::function<std::string(const std::string&, const std::string&, const std::string&)>;

/// \brief An error that every rank of an MPI run raised at the same point, with the same message:
/// the ranks end by themselves (no MPI_Abort), and rank 0 alone reports it.
class RanksDisagree : public std::runtime_error
{
public:
  using std::runtime_error::runtime_error;
};

/// \brief Compares every rank's `parts` (at most 8) with rank 0's, collectively: rank 0's digests
/// go to all first (a fixed size, so that a rank with other parts cannot cut a message short),
/// then a reduction tells every rank whether any differs. If one does, rank 0's texts of the parts
/// that differ go to the first rank that differs, which explains them (`explain`); every rank
/// then throws RanksDisagree with that rank's explanation. Nothing when the process runs alone.
void AgreeWithRankZero(const std::vector<RankAgreementPart>& parts, const ExplainDifference& explain);

/// \brief Ends every rank of an MPI run with exit code `code` (MPI_Abort: the others may wait in
/// a collective for this one); nothing when the process runs alone.
void AbortRanks(int code);

} // namespace mrcsim

#endif

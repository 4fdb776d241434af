#include "sim/mpi-ranks.h"

#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

#ifdef MRCSIM_HAVE_MPI
#include "ns3/mpi-interface.h"

#include <mpi.h>
#endif

namespace mrcsim
{

bool
LaunchedByMpi()
{
  // Open MPI's mpirun, and PMI/PMIx launchers (Slurm's srun).
  for (const char* name : { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE" })
  {
    const char* value = std::getenv(name);
    if (value && std::atoi(value) > 1)
      return true;
  }
  return false;
}

#ifdef MRCSIM_HAVE_MPI

namespace
{

/// \brief RankLink over MPI: one MPI_Alltoall of the sizes and one MPI_Alltoallv of the bytes per
/// exchange, MPI_Allreduce for the reductions, all on ns-3's communicator.
class MpiRankLink : public ns3::RankLink
{
public:
  uint32_t Rank() const override { return ns3::MpiInterface::GetSystemId(); }
  uint32_t Ranks() const override { return ns3::MpiInterface::GetSize(); }

  std::vector<std::vector<uint8_t>> Exchange(const std::vector<std::vector<uint8_t>>& out) override
  {
    const int n = static_cast<int>(Ranks());
    std::vector<int> sendCounts(n), recvCounts(n), sendAt(n), recvAt(n);
    std::vector<uint8_t> send;
    for (int r = 0; r < n; ++r)
    {
      if (out[r].size() > std::size_t(INT32_MAX) - send.size())
        throw std::runtime_error("MPI: more than 2 GiB for one window's exchange");
      sendAt[r] = static_cast<int>(send.size());
      sendCounts[r] = static_cast<int>(out[r].size());
      send.insert(send.end(), out[r].begin(), out[r].end());
    }
    MPI_Comm comm = ns3::MpiInterface::GetCommunicator();
    MPI_Alltoall(sendCounts.data(), 1, MPI_INT, recvCounts.data(), 1, MPI_INT, comm);
    int total = 0;
    for (int r = 0; r < n; ++r)
    {
      recvAt[r] = total;
      total += recvCounts[r];
    }
    std::vector<uint8_t> recv(total);
    MPI_Alltoallv(send.data(), sendCounts.data(), sendAt.data(), MPI_BYTE, recv.data(), recvCounts.data(),
                  recvAt.data(), MPI_BYTE, comm);
    std::vector<std::vector<uint8_t>> in(n);
    for (int r = 0; r < n; ++r)
      in[r].assign(recv.begin() + recvAt[r], recv.begin() + recvAt[r] + recvCounts[r]);
    return in;
  }

  void Reduce(std::vector<uint64_t>& values, bool min) override
  {
    MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_UINT64_T, min ? MPI_MIN : MPI_SUM,
                  ns3::MpiInterface::GetCommunicator());
  }
};

std::unique_ptr<MpiRankLink> g_link;

} // namespace

MpiSession::MpiSession(int* argc, char*** argv)
{
  if (!LaunchedByMpi())
    return;
  ns3::MpiInterface::Enable(argc, argv);
  g_link = std::make_unique<MpiRankLink>();
}

MpiSession::~MpiSession()
{
  if (!g_link)
    return;
  g_link.reset();
  ns3::MpiInterface::Disable();
}

ns3::RankLink*
MpiLink()
{
  return g_link.get();
}

void
AbortRanks(int code)
{
  if (g_link)
    MPI_Abort(ns3::MpiInterface::GetCommunicator(), code);
}

#else

MpiSession::MpiSession(int*, char***)
{
  if (LaunchedByMpi())
    throw std::runtime_error("started by an MPI launcher, but this build has no MPI (scripts/setup.sh builds ns-3's "
                             "MPI module)");
}

MpiSession::~MpiSession() = default;

ns3::RankLink*
MpiLink()
{
  return nullptr;
}

void
AbortRanks(int)
{
}

#endif

} // namespace mrcsim

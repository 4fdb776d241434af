#include "sim/parallel/mpi-ranks.h"

#include <algorithm>
#include <cstdint>
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

  std::vector<std::vector<uint8_t>> Exchange(std::vector<std::vector<uint8_t>> out) override
  {
    const int n = static_cast<int>(Ranks());
    std::vector<int> sendCounts(n), recvCounts(n), sendAt(n), recvAt(n);
    std::vector<uint8_t> send;
    std::size_t sendBytes = 0;
    for (const std::vector<uint8_t>& part : out)
      sendBytes += part.size();
    send.reserve(sendBytes);
    for (int r = 0; r < n; ++r)
    {
      if (out[r].size() > std::size_t(INT32_MAX) - send.size())
        throw std::runtime_error("MPI: more than 2 GiB for one window's exchange");
      sendAt[r] = static_cast<int>(send.size());
      sendCounts[r] = static_cast<int>(out[r].size());
      send.insert(send.end(), out[r].begin(), out[r].end());
      std::vector<uint8_t>().swap(out[r]); // copied: one copy of the window's bytes at a time
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
    std::vector<uint8_t>().swap(send);
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

namespace
{

/// 64-bit FNV-1a of a part's name and text (never 0: 0 stands for a part a rank does not have).
uint64_t
Digest(const RankAgreementPart& part)
{
  uint64_t h = 0xcbf29ce484222325ull;
  for (const std::string* s : { &part.name, &part.text })
  {
    for (unsigned char c : *s)
    {
      h ^= c;
      h *= 0x100000001b3ull;
    }
    h ^= 0xff; // separates the name from the text
    h *= 0x100000001b3ull;
  }
  return h == 0 ? 1 : h;
}

/// Sends `text` from rank `root` to every rank: its length first (a fixed size), then its bytes.
std::string
BroadcastText(std::string text, int root, MPI_Comm comm)
{
  uint64_t size = text.size();
  MPI_Bcast(&size, 1, MPI_UINT64_T, root, comm);
  if (size > uint64_t(INT32_MAX))
    throw std::runtime_error("MPI: a text of " + std::to_string(size) + " bytes to agree on");
  text.resize(size);
  MPI_Bcast(text.data(), static_cast<int>(size), MPI_CHAR, root, comm);
  return text;
}

} // namespace

void
AgreeWithRankZero(const std::vector<RankAgreementPart>& parts, const ExplainDifference& explain)
{
  if (!g_link)
    return;
  constexpr std::size_t kParts = 8;
  if (parts.size() > kParts)
    throw std::logic_error("AgreeWithRankZero: more than 8 parts");
  MPI_Comm comm = ns3::MpiInterface::GetCommunicator();
  const uint64_t rank = g_link->Rank();
  uint64_t mine[kParts] = {};
  for (std::size_t i = 0; i < parts.size(); ++i)
    mine[i] = Digest(parts[i]);
  uint64_t zero[kParts];
  std::copy(mine, mine + kParts, zero);
  MPI_Bcast(zero, kParts, MPI_UINT64_T, 0, comm);
  // [0]: the first rank that differs (UINT64_MAX: none); [1 + i]: 1 if every rank has part i as
  // rank 0 has it.
  uint64_t agreed[1 + kParts];
  bool differs = false;
  for (std::size_t i = 0; i < kParts; ++i)
  {
    agreed[1 + i] = mine[i] == zero[i] ? 1 : 0;
    differs = differs || mine[i] != zero[i];
  }
  agreed[0] = differs ? rank : UINT64_MAX;
  MPI_Allreduce(MPI_IN_PLACE, agreed, 1 + kParts, MPI_UINT64_T, MPI_MIN, comm);
  if (agreed[0] == UINT64_MAX)
    return;
  const int first = static_cast<int>(agreed[0]);
  std::string explanation;
  for (std::size_t i = 0; i < kParts; ++i)
  {
    if (agreed[1 + i] == 1)
      continue;
    // Every rank takes part (the root's length first), though only `first` reads it.
    const std::string theirs = BroadcastText(rank == 0 && i < parts.size() ? parts[i].text : "", 0, comm);
    if (rank != agreed[0] || mine[i] == zero[i])
      continue;
    const std::string name = i < parts.size() ? parts[i].name : "part " + std::to_string(i);
    explanation += (explanation.empty() ? "" : "; ") + name + ": " +
                   (i < parts.size() && zero[i] != 0 ? explain(name, parts[i].text, theirs)
                                                      : std::string("not on both ranks"));
  }
  explanation = BroadcastText(explanation, first, comm);
  throw RanksDisagree("rank " + std::to_string(first) + "'s run differs from rank 0's (every rank of an MPI run must "
                      "run the same scenario with the same --set overrides and options): " + explanation);
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

void
AgreeWithRankZero(const std::vector<RankAgreementPart>&, const ExplainDifference&)
{
}

#endif

} // namespace mrcsim

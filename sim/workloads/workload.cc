// Workload records, group splitting and the random streams of workloads; the workload types and
// MakeWorkload are in sim/workloads/workload-types.cc.
#include "sim/workloads/workload.h"

#include "models/engine/splitmix.h"

#include "ns3/abort.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace mrcsim
{

std::size_t
Workload::RecordMessage(uint32_t src, uint32_t dst, uint64_t bytes, double idealS)
{
  MessageRecord& record = m_messages.emplace_back();
  record.src = src;
  record.dst = dst;
  record.bytes = bytes;
  record.posted = ns3::Simulator::Now();
  record.idealS = idealS;
  return m_messages.size() - 1;
}

std::vector<std::vector<uint32_t>>
SplitGroups(const std::vector<uint32_t>& gpus, uint32_t groupSize, const std::string& placement)
{
  const std::size_t size = groupSize == 0 ? gpus.size() : groupSize;
  NS_ABORT_MSG_IF(size == 0 || gpus.size() % size != 0,
                  "SplitGroups: groups of " << size << " from " << gpus.size() << " GPUs");
  NS_ABORT_MSG_IF(placement != "contiguous" && placement != "strided", "SplitGroups: placement " << placement);
  const std::size_t count = gpus.size() / size;
  std::vector<std::vector<uint32_t>> groups(count);
  for (std::size_t g = 0; g < count; ++g)
  {
    groups[g].reserve(size);
    for (std::size_t r = 0; r < size; ++r)
    {
      groups[g].push_back(placement == "contiguous" ? gpus[g * size + r] : gpus[g + r * count]);
    }
  }
  return groups;
}

uint64_t
WorkloadStreamSeed(uint64_t seed, const std::string& name, uint64_t stream)
{
  // FNV-1a: a name hash that, unlike std::hash, is the same on every platform.
  uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : name)
  {
    h = (h ^ c) * 0x100000001B3ull;
  }
  return ns3::SplitMixSeed(seed, h, stream);
}

uint64_t
UniformBelow(uint64_t& state, uint64_t n)
{
  return static_cast<uint64_t>((static_cast<unsigned __int128>(ns3::SplitMix64(state)) * n) >> 64);
}

ns3::Time
MicrosecondsToTime(double us)
{
  return ns3::Time::FromDouble(us, ns3::Time::US);
}

} // namespace mrcsim

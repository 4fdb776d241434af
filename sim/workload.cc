#include "sim/workload.h"

#include "sim/collective-workload.h"
#include "sim/pattern-workload.h"
#include "sim/random-workload.h"

#include "models/engine/splitmix.h"
#include "topologies/json-reader.h"

#include "ns3/abort.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace mrcsim
{

namespace
{

/// Throws the SpecError for one key of one workload.
[[noreturn]] void
Fail(const WorkloadSpec& spec, const std::string& key, const std::string& problem)
{
  throw SpecError("workload '" + spec.name + "' (" + spec.type + "): " + key + ": " + problem);
}

/// The most messages a random workload may be expected to post (memory: a record each).
constexpr double kMaxRandomMessages = 5e7;

/// Checks what every workload needs: bytes, times, a set of distinct GPUs.
void
CheckCommon(const WorkloadSpec& spec, std::size_t minGpus)
{
  if (spec.bytes == 0)
  {
    Fail(spec, "bytes", "0; allowed: at least 1");
  }
  if (!(spec.startUs >= 0))
  {
    Fail(spec, "startUs", std::to_string(spec.startUs) + "; allowed: >= 0");
  }
  if (!(spec.computeUs >= 0))
  {
    Fail(spec, "computeUs", std::to_string(spec.computeUs) + "; allowed: >= 0");
  }
  std::vector<uint32_t> sorted = spec.gpus.gpus;
  std::sort(sorted.begin(), sorted.end());
  auto twice = std::adjacent_find(sorted.begin(), sorted.end());
  if (twice != sorted.end())
  {
    Fail(spec, "gpus", "GPU " + std::to_string(*twice) + " listed twice; allowed: distinct GPUs");
  }
  if (spec.gpus.gpus.size() < minGpus)
  {
    Fail(spec, "gpus", std::to_string(spec.gpus.gpus.size()) + " GPUs; allowed: at least " + std::to_string(minGpus));
  }
}

/// Groups of a collective or permutation, each of at least `minRanks`.
std::vector<std::vector<uint32_t>>
CheckedGroups(const WorkloadSpec& spec, uint32_t minRanks)
{
  const std::size_t n = spec.gpus.gpus.size();
  if (spec.placement != "contiguous" && spec.placement != "strided")
  {
    Fail(spec, "placement", "'" + spec.placement + "'; allowed: contiguous, strided");
  }
  if (spec.groupSize != 0 && (spec.groupSize > n || n % spec.groupSize != 0))
  {
    Fail(spec,
         "groupSize",
         std::to_string(spec.groupSize) + " does not divide the " + std::to_string(n) +
           " GPUs; allowed: 0 (one group) or a divisor of the GPU count");
  }
  const uint64_t size = spec.groupSize == 0 ? n : spec.groupSize;
  if (size < minRanks)
  {
    Fail(spec,
         spec.groupSize == 0 ? "gpus" : "groupSize",
         "groups of " + std::to_string(size) + " GPUs; allowed: at least " + std::to_string(minRanks));
  }
  return SplitGroups(spec.gpus.gpus, spec.groupSize, spec.placement);
}

void
RejectGroups(const WorkloadSpec& spec)
{
  if (spec.groupSize != 0)
  {
    Fail(
      spec, "groupSize", std::to_string(spec.groupSize) + "; allowed: 0 (groups apply to collectives and permutation)");
  }
}

std::unique_ptr<Workload>
MakeCollective(const WorkloadSpec& spec, uint64_t seed, const IdealModel& ideal)
{
  const bool pattern = spec.type == "permutation";
  auto groups = CheckedGroups(spec, pattern ? 2 : 1);
  if (spec.type == "hd_allreduce")
  {
    const std::size_t size = groups[0].size();
    if ((size & (size - 1)) != 0)
    {
      Fail(spec,
           spec.groupSize == 0 ? "gpus" : "groupSize",
           "groups of " + std::to_string(size) + " GPUs; allowed: a power of two for halving-doubling");
    }
  }
  if (spec.type == "all_to_all" && spec.mode != "all_at_once" && spec.mode != "pairwise")
  {
    Fail(spec, "mode", "'" + spec.mode + "'; allowed: all_at_once, pairwise");
  }
  std::vector<std::unique_ptr<CollectiveAlgorithm>> algorithms;
  for (std::size_t g = 0; g < groups.size(); ++g)
  {
    const auto ranks = static_cast<uint32_t>(groups[g].size());
    if (spec.type == "ring_allreduce")
    {
      algorithms.push_back(
        MakeRingAllReduce(ranks, spec.bytes, RingPipeline{ spec.pipelined, spec.channels, spec.chunkBytes, spec.slots }));
    }
    else if (spec.type == "hd_allreduce")
    {
      algorithms.push_back(MakeHalvingDoublingAllReduce(ranks, spec.bytes));
    }
    else if (spec.type == "all_to_all")
    {
      algorithms.push_back(MakeAllToAll(ranks, spec.bytes, spec.mode == "pairwise"));
    }
    else
    {
      algorithms.push_back(MakePermutation(ranks, spec.bytes, WorkloadStreamSeed(seed, spec.name, g)));
    }
  }
  return std::make_unique<CollectiveWorkload>(spec.name,
                                              std::move(groups),
                                              std::move(algorithms),
                                              spec.iterations,
                                              MicrosecondsToTime(spec.startUs),
                                              MicrosecondsToTime(spec.computeUs),
                                              !pattern,
                                              ideal);
}

std::unique_ptr<Workload>
MakeIncastWorkload(const WorkloadSpec& spec, const IdealModel& ideal)
{
  RejectGroups(spec);
  if (spec.senders == 0)
  {
    Fail(spec, "senders", "0; allowed: at least 1");
  }
  std::vector<uint32_t> group{ spec.receiver };
  for (uint32_t gpu : spec.gpus.gpus)
  {
    if (gpu != spec.receiver && group.size() <= spec.senders)
    {
      group.push_back(gpu);
    }
  }
  if (group.size() <= spec.senders)
  {
    Fail(spec,
         "senders",
         std::to_string(spec.senders) + "; allowed: at most the " + std::to_string(group.size() - 1) +
           " GPUs of 'gpus' other than the receiver");
  }
  std::vector<std::unique_ptr<CollectiveAlgorithm>> algorithms;
  algorithms.push_back(MakeIncast(spec.senders, spec.bytes));
  return std::make_unique<CollectiveWorkload>(spec.name,
                                              std::vector<std::vector<uint32_t>>{ std::move(group) },
                                              std::move(algorithms),
                                              spec.iterations,
                                              MicrosecondsToTime(spec.startUs),
                                              MicrosecondsToTime(spec.computeUs),
                                              false,
                                              ideal);
}

std::unique_ptr<Workload>
MakeRandomWorkload(const WorkloadSpec& spec, uint64_t seed, const IdealModel& ideal)
{
  RejectGroups(spec);
  if (!(spec.load >= 0))
  {
    Fail(spec, "load", std::to_string(spec.load) + "; allowed: >= 0 (a fraction of the NIC line rate)");
  }
  if (!(spec.durationUs >= 0))
  {
    Fail(spec, "durationUs", std::to_string(spec.durationUs) + "; allowed: >= 0");
  }
  // Every message keeps a record (tens of bytes) and its QPs' state: bound the count.
  const double expected = double(spec.gpus.gpus.size()) * spec.load * ideal.gpuBandwidthBps / 8 *
                          (spec.durationUs * 1e-6) / double(spec.bytes);
  if (expected > kMaxRandomMessages)
  {
    Fail(spec,
         "load",
         "about " + std::to_string(static_cast<uint64_t>(expected)) + " messages of " + std::to_string(spec.bytes) +
           " bytes over " + std::to_string(spec.durationUs) +
           " us; at most 5e7 per random workload (larger bytes, a lower load or a shorter duration_us)");
  }
  return std::make_unique<RandomWorkload>(spec.name,
                                          spec.gpus.gpus,
                                          spec.bytes,
                                          spec.load,
                                          MicrosecondsToTime(spec.startUs),
                                          MicrosecondsToTime(spec.durationUs),
                                          seed,
                                          ideal);
}

} // namespace

std::size_t
Workload::RecordMessage(uint32_t src, uint32_t dst, uint64_t bytes, double idealS)
{
  MessageRecord& record = m_messages.emplace_back();
  record.workload = m_name;
  record.src = src;
  record.dst = dst;
  record.bytes = bytes;
  record.posted = ns3::Simulator::Now();
  record.idealS = idealS;
  return m_messages.size() - 1;
}

std::unique_ptr<Workload>
MakeWorkload(const WorkloadSpec& spec, uint64_t seed, const IdealModel& ideal)
{
  // Not a spec error: the caller derives the model from the fabric.
  NS_ABORT_MSG_IF(!(ideal.gpuBandwidthBps > 0) || !(ideal.wireOverhead > 0),
                  "MakeWorkload: IdealModel needs a positive GPU bandwidth and wire overhead");
  const std::string& t = spec.type;
  if (t == "ring_allreduce" || t == "hd_allreduce" || t == "all_to_all" || t == "permutation")
  {
    CheckCommon(spec, t == "permutation" ? 2 : 1);
    return MakeCollective(spec, seed, ideal);
  }
  if (t == "incast")
  {
    CheckCommon(spec, 1);
    return MakeIncastWorkload(spec, ideal);
  }
  if (t == "random")
  {
    CheckCommon(spec, 2);
    return MakeRandomWorkload(spec, seed, ideal);
  }
  Fail(spec, "type", "'" + t + "'; allowed: ring_allreduce, hd_allreduce, all_to_all, permutation, incast, random");
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

// The workload types: for each, the keys it takes (the registry, WorkloadTypes()), the reader of
// those keys (Parse*, called by the scenario reader once the common keys are read) and the
// constructor of the running workload (Make*, called by MakeWorkload), which checks the spec
// again since specs built by code do not go through the reader.
#include "sim/workloads/workload-types.h"

#include "sim/workloads/collective-workload.h"
#include "sim/workloads/flow-workload.h"
#include "sim/workloads/pattern-workload.h"
#include "sim/workloads/random-workload.h"
#include "sim/scenario/scenario-spec-detail.h"
#include "sim/workloads/train-step.h"

#include "ns3/abort.h"

#include <algorithm>
#include <string>
#include <vector>

namespace mrcsim
{

namespace
{

using detail::kMaxExact;
using detail::kMaxIndex;
using detail::kMaxTimeUs;

constexpr int64_t kMaxIterations = 1000000;
/// Layers of a training step: about 16 times DeepSeek-V3's 61 (DeepSeek-AI, "DeepSeek-V3 Technical
/// Report", arXiv:2412.19437, 2024, Section 4.2); a bound on the schedule's size, not a model's.
constexpr int64_t kMaxLayers = 1000;
/// At least a millionth of the line rate: below it a GPU's arrivals are further apart than any
/// duration a packet-level run reaches, and the workload would silently post nothing.
constexpr double kMinLoad = 1e-6;
/// The most messages a random workload may be expected to post (memory: a record each).
constexpr double kMaxRandomMessages = 5e7;

// ---- readers (scenario files) -------------------------------------------------------------------

/// group_size of a collective: dividing the workload's GPUs, groups of at least 2.
void
ParseGroupSize(JsonReader& r, WorkloadSpec& w)
{
  const size_t n = w.gpus.gpus.size();
  if (r.Has("group_size"))
  {
    w.groupSize = static_cast<uint32_t>(r.Int("group_size", 2, kMaxIndex));
    if (n % w.groupSize != 0)
    {
      r.Fail("group_size",
             std::to_string(w.groupSize) + " does not divide the " + std::to_string(n) +
               " GPUs of this workload; use a divisor of " + std::to_string(n));
    }
  }
  const uint64_t group = w.groupSize ? w.groupSize : n;
  if (group < 2)
  {
    r.Fail("gpus", w.type + " needs at least 2 GPUs, got " + std::to_string(n));
  }
}

void
ParsePlacement(JsonReader& r, WorkloadSpec& w)
{
  w.placement = r.Choice("placement", { "contiguous", "strided" }, w.placement);
}

/// iterations and compute_us of the types that repeat.
void
ParseIterations(JsonReader& r, WorkloadSpec& w)
{
  w.iterations = static_cast<uint32_t>(r.Int("iterations", 1, kMaxIterations, 1));
  w.computeUs = r.Number("compute_us", 0, kMaxTimeUs, 0);
}

void
RequireTwoGpus(JsonReader& r, const WorkloadSpec& w)
{
  if (w.gpus.gpus.size() < 2)
  {
    r.Fail("gpus", w.type + " needs at least 2 GPUs, got " + std::to_string(w.gpus.gpus.size()));
  }
}

void
ParseRingAllReduce(JsonReader& r, WorkloadSpec& w, const Fabric&)
{
  ParseGroupSize(r, w);
  ParsePlacement(r, w);
  w.pipelined = r.Bool("pipelined", w.pipelined);
  for (const char* key : { "channels", "chunk_bytes", "slots" })
  {
    if (!w.pipelined && r.Has(key))
    {
      r.Fail(key,
             "set with \"pipelined\": false; a ring that is not pipelined has one channel and "
             "sends each chunk whole");
    }
  }
  w.channels = static_cast<uint32_t>(r.Int("channels", 1, 64, w.channels));
  w.chunkBytes = static_cast<uint64_t>(r.Int("chunk_bytes", 1, kMaxExact, static_cast<int64_t>(w.chunkBytes)));
  w.slots = static_cast<uint32_t>(r.Int("slots", 1, 64, w.slots));
  ParseIterations(r, w);
}

void
ParseHalvingDoubling(JsonReader& r, WorkloadSpec& w, const Fabric&)
{
  ParseGroupSize(r, w);
  // Halving-doubling pairs rank r with r xor 2^k at step k, which needs 2^k ranks.
  const uint64_t group = w.groupSize ? w.groupSize : w.gpus.gpus.size();
  if ((group & (group - 1)) != 0)
  {
    r.Fail(w.groupSize ? "group_size" : "gpus",
           "hd_allreduce needs a power-of-two group size, got " + std::to_string(group) +
             (w.groupSize ? "" : " (one group of all the workload's GPUs; set group_size)"));
  }
  ParsePlacement(r, w);
  ParseIterations(r, w);
}

void
ParseAllToAll(JsonReader& r, WorkloadSpec& w, const Fabric&)
{
  ParseGroupSize(r, w);
  ParsePlacement(r, w);
  w.mode = r.Choice("mode", { "all_at_once", "pairwise" }, w.mode);
  w.pxn = r.Bool("pxn", w.pxn);
  ParseIterations(r, w);
}

void
ParseTrainStep(JsonReader& r, WorkloadSpec& w, const Fabric&)
{
  w.tp = static_cast<uint32_t>(r.Int("tp", 1, kMaxIndex, 1));
  w.ep = static_cast<uint32_t>(r.Int("ep", 1, kMaxIndex, 1));
  w.dp = static_cast<uint32_t>(r.Int("dp", 1, kMaxIndex, 1));
  const uint64_t product = uint64_t(w.tp) * w.ep * w.dp;
  if (product != w.gpus.gpus.size())
  {
    r.Fail("dp",
           "tp x ep x dp = " + std::to_string(product) + ", but the workload has " +
             std::to_string(w.gpus.gpus.size()) + " GPUs; the product must be the GPU count");
  }
  w.layers = static_cast<uint32_t>(r.Int("layers", 1, kMaxLayers, 1));
  w.tpBytes = static_cast<uint64_t>(r.Int("tp_bytes", 0, kMaxExact, 0));
  w.a2aBytes = static_cast<uint64_t>(r.Int("a2a_bytes", 0, kMaxExact, 0));
  w.dpBytes = static_cast<uint64_t>(r.Int("dp_bytes", 0, kMaxExact, 0));
  if (w.tpBytes + w.a2aBytes + w.dpBytes == 0)
  {
    r.Fail("a2a_bytes", "tp_bytes, a2a_bytes and dp_bytes are all 0: the step would send nothing");
  }
  ParseIterations(r, w);
}

void
ParsePermutation(JsonReader& r, WorkloadSpec& w, const Fabric&)
{
  ParseIterations(r, w);
  RequireTwoGpus(r, w);
}

void
ParseIncast(JsonReader& r, WorkloadSpec& w, const Fabric& fabric)
{
  w.receiver = detail::GpuIndex(r, "receiver", fabric);
  size_t others = w.gpus.gpus.size() - std::count(w.gpus.gpus.begin(), w.gpus.gpus.end(), w.receiver);
  if (others == 0)
  {
    r.Fail("gpus", "incast needs GPUs other than the receiver (GPU " + std::to_string(w.receiver) + ")");
  }
  w.senders = static_cast<uint32_t>(r.Int("senders", 1, kMaxIndex));
  if (w.senders > others)
  {
    r.Fail("senders",
           "expected 1.." + std::to_string(others) + " (the GPUs of 'gpus' other than the receiver), got " +
             std::to_string(w.senders));
  }
}

/// The messages a random workload is expected to post: its GPUs x load x a GPU's NIC rate x
/// duration / bytes. Every message keeps a record (tens of bytes) and its QPs' state, so the
/// count is bounded (kMaxRandomMessages); "" if it is within the bound, else what to change.
std::string
RandomMessagesProblem(const WorkloadSpec& w, double gpuBandwidthBps)
{
  const double expected =
    double(w.gpus.gpus.size()) * w.load * gpuBandwidthBps / 8 * (w.durationUs * 1e-6) / double(w.bytes);
  if (expected <= kMaxRandomMessages)
  {
    return "";
  }
  return "about " + std::to_string(static_cast<uint64_t>(expected)) + " messages of " + std::to_string(w.bytes) +
         " bytes over " + std::to_string(w.durationUs) +
         " us; at most 5e7 per random workload (larger bytes, a lower load or a shorter duration_us)";
}

void
ParseRandom(JsonReader& r, WorkloadSpec& w, const Fabric& fabric)
{
  RequireTwoGpus(r, w);
  w.load = r.Number("load", kMinLoad, 1);
  w.durationUs = detail::PositiveTimeUs(r, "duration_us");
  // The same bound as the run's (MakeRandomWorkload), from the fabric's NIC rate (a GPU's links),
  // so that validate refuses what run would.
  const std::string problem = RandomMessagesProblem(w, GpuBandwidthBps(fabric));
  if (!problem.empty())
  {
    r.Fail("load", problem);
  }
}

/// A flow list's nodes must each have a GPU of the workload's "gpus".
std::string
FlowNodesProblem(const FlowList& list, std::size_t gpus)
{
  if (list.nodes <= gpus)
  {
    return "";
  }
  return list.file + ": " + std::to_string(list.nodes) + " nodes, but the workload has " + std::to_string(gpus) +
         " GPUs (node i is the i-th GPU of \"gpus\")";
}

void
ParseFlows(JsonReader& r, WorkloadSpec& w, const Fabric&)
{
  w.file = r.String("file");
  const std::string path = detail::BesideScenario(r.Origin(), w.file);
  w.format = r.String("format", FlowFormatOf(w.file));
  if (w.format != "htsim" && w.format != "csv" && w.format != "json")
  {
    r.Fail(r.Has("format") ? "format" : "file",
           (r.Has("format") ? "\"" + w.format + "\"" : "no format known for \"" + w.file + "\"") +
             "; allowed: htsim (.cm, .tm), csv or json (give \"format\" for another extension)");
  }
  try
  {
    w.flowList = std::make_shared<const FlowList>(ReadFlowList(path, w.format));
  }
  catch (const SpecError& e)
  {
    r.Fail("file", e.what());
  }
  const std::string problem = FlowNodesProblem(*w.flowList, w.gpus.gpus.size());
  if (!problem.empty())
  {
    r.Fail("file", problem);
  }
  w.file = path;
}

// ---- constructors (MakeWorkload) ----------------------------------------------------------------

/// Throws the SpecError for one key of one workload.
[[noreturn]] void
Fail(const WorkloadSpec& spec, const std::string& key, const std::string& problem)
{
  throw SpecError("workload '" + spec.name + "' (" + spec.type + "): " + key + ": " + problem);
}

/// Checks what every workload needs: bytes, times, a set of distinct GPUs.
void
CheckCommon(const WorkloadSpec& spec, std::size_t minGpus)
{
  if (spec.bytes == 0 && WorkloadTypes().Get(spec.type).Takes("bytes"))
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

/// The running workload of `spec`: `groups`, each running its algorithm of `algorithms`, with
/// the spec's iterations, start and compute gap; `collective`: their instances are collectives
/// (records, bus bandwidth) rather than a traffic pattern.
std::unique_ptr<Workload>
SpecWorkload(const WorkloadSpec& spec,
             std::vector<std::vector<uint32_t>> groups,
             std::vector<std::unique_ptr<CollectiveAlgorithm>> algorithms,
             bool collective,
             const IdealModel& ideal)
{
  return std::make_unique<CollectiveWorkload>(spec.name,
                                              std::move(groups),
                                              std::move(algorithms),
                                              spec.iterations,
                                              MicrosecondsToTime(spec.startUs),
                                              MicrosecondsToTime(spec.computeUs),
                                              collective,
                                              ideal);
}

/// The algorithm of group `group` (of `ranks` ranks) of a grouped workload.
using AlgorithmMaker = std::unique_ptr<CollectiveAlgorithm> (*)(const WorkloadSpec& spec,
                                                                uint32_t ranks,
                                                                uint64_t seed,
                                                                std::size_t group);

/// A workload of groups that each run `algorithm`; `collective`: their instances are
/// collectives (records, bus bandwidth) rather than a traffic pattern.
std::unique_ptr<Workload>
MakeGrouped(const WorkloadSpec& spec,
            std::vector<std::vector<uint32_t>> groups,
            AlgorithmMaker algorithm,
            uint64_t seed,
            bool collective,
            const IdealModel& ideal)
{
  std::vector<std::unique_ptr<CollectiveAlgorithm>> algorithms;
  for (std::size_t g = 0; g < groups.size(); ++g)
  {
    algorithms.push_back(algorithm(spec, static_cast<uint32_t>(groups[g].size()), seed, g));
  }
  return SpecWorkload(spec, std::move(groups), std::move(algorithms), collective, ideal);
}

/// A ring collective over each group: flat on a fabric without scale-up domains, else NCCL's
/// rings over the domains (DomainRingLayout).
std::unique_ptr<Workload>
MakeRingWorkload(const WorkloadSpec& spec, const IdealModel& ideal, RingCollective kind)
{
  std::vector<std::vector<uint32_t>> groups = CheckedGroups(spec, 1);
  const RingPipeline pipeline{ spec.pipelined, spec.channels, spec.chunkBytes, spec.slots };
  std::vector<std::unique_ptr<CollectiveAlgorithm>> algorithms;
  for (const std::vector<uint32_t>& group : groups)
  {
    algorithms.push_back(MakeRing(kind,
                                  static_cast<uint32_t>(group.size()),
                                  spec.bytes,
                                  pipeline,
                                  DomainRingLayout(group, ideal.scaleUp, spec.pipelined ? spec.channels : 1)));
  }
  return SpecWorkload(spec, std::move(groups), std::move(algorithms), true, ideal);
}

std::unique_ptr<Workload>
MakeRingAllReduceWorkload(const WorkloadSpec& spec, uint64_t, const IdealModel& ideal)
{
  return MakeRingWorkload(spec, ideal, RingCollective::AllReduce);
}

std::unique_ptr<Workload>
MakeRingAllGatherWorkload(const WorkloadSpec& spec, uint64_t, const IdealModel& ideal)
{
  return MakeRingWorkload(spec, ideal, RingCollective::AllGather);
}

std::unique_ptr<Workload>
MakeRingReduceScatterWorkload(const WorkloadSpec& spec, uint64_t, const IdealModel& ideal)
{
  return MakeRingWorkload(spec, ideal, RingCollective::ReduceScatter);
}

std::unique_ptr<Workload>
MakeHalvingDoublingWorkload(const WorkloadSpec& spec, uint64_t seed, const IdealModel& ideal)
{
  auto groups = CheckedGroups(spec, 1);
  const std::size_t size = groups[0].size();
  if ((size & (size - 1)) != 0)
  {
    Fail(spec,
         spec.groupSize == 0 ? "gpus" : "groupSize",
         "groups of " + std::to_string(size) + " GPUs; allowed: a power of two for halving-doubling");
  }
  auto hd = [](const WorkloadSpec& s, uint32_t ranks, uint64_t, std::size_t)
  { return MakeHalvingDoublingAllReduce(ranks, s.bytes); };
  return MakeGrouped(spec, std::move(groups), hd, seed, true, ideal);
}

std::unique_ptr<Workload>
MakeAllToAllWorkload(const WorkloadSpec& spec, uint64_t seed, const IdealModel& ideal)
{
  auto groups = CheckedGroups(spec, 1);
  if (spec.mode != "all_at_once" && spec.mode != "pairwise")
  {
    Fail(spec, "mode", "'" + spec.mode + "'; allowed: all_at_once, pairwise");
  }
  if (spec.pxn)
  {
    if (!ideal.scaleUp.Enabled())
    {
      Fail(spec, "pxn", "true on a fabric without scale-up domains; allowed: false");
    }
    std::vector<std::unique_ptr<CollectiveAlgorithm>> algorithms;
    for (const std::vector<uint32_t>& group : groups)
    {
      algorithms.push_back(MakeAllToAllPxn(
        static_cast<uint32_t>(group.size()), spec.bytes, spec.mode == "pairwise", group, ideal.scaleUp));
    }
    return SpecWorkload(spec, std::move(groups), std::move(algorithms), true, ideal);
  }
  auto a2a = [](const WorkloadSpec& s, uint32_t ranks, uint64_t, std::size_t)
  { return MakeAllToAll(ranks, s.bytes, s.mode == "pairwise"); };
  return MakeGrouped(spec, std::move(groups), a2a, seed, true, ideal);
}

std::unique_ptr<Workload>
MakeTrainStepWorkload(const WorkloadSpec& spec, uint64_t, const IdealModel& ideal)
{
  RejectGroups(spec);
  if (spec.tp == 0 || spec.ep == 0 || spec.dp == 0 ||
      uint64_t(spec.tp) * spec.ep * spec.dp != spec.gpus.gpus.size())
  {
    Fail(spec,
         "tp",
         std::to_string(spec.tp) + " x " + std::to_string(spec.ep) + " x " + std::to_string(spec.dp) +
           "; allowed: sizes of at least 1 whose product is the GPU count (" + std::to_string(spec.gpus.gpus.size()) +
           ")");
  }
  if (ideal.scaleUp.Enabled() && ideal.scaleUp.gpusPerDomain % spec.tp != 0)
  {
    Fail(spec, "tp", std::to_string(spec.tp) + "; allowed: a divisor of the scale-up domain's GPUs");
  }
  TrainStepShape shape;
  shape.tp = spec.tp;
  shape.ep = spec.ep;
  shape.dp = spec.dp;
  shape.layers = spec.layers;
  shape.tpBytes = spec.tpBytes;
  shape.a2aBytes = spec.a2aBytes;
  shape.dpBytes = spec.dpBytes;
  shape.compute = MicrosecondsToTime(spec.computeUs);
  std::vector<std::unique_ptr<CollectiveAlgorithm>> algorithms;
  algorithms.push_back(MakeTrainStep(shape, spec.gpus.gpus, ideal.scaleUp));
  if (algorithms[0]->Steps() == 0)
  {
    Fail(spec, "a2a_bytes", "the step has no collective (every group of one GPU, or every size 0)");
  }
  return SpecWorkload(
    spec, std::vector<std::vector<uint32_t>>{ spec.gpus.gpus }, std::move(algorithms), true, ideal);
}

std::unique_ptr<Workload>
MakePermutationWorkload(const WorkloadSpec& spec, uint64_t seed, const IdealModel& ideal)
{
  auto permutation = [](const WorkloadSpec& s, uint32_t ranks, uint64_t runSeed, std::size_t g)
  { return MakePermutation(ranks, s.bytes, WorkloadStreamSeed(runSeed, s.name, g)); };
  return MakeGrouped(spec, CheckedGroups(spec, 2), permutation, seed, false, ideal);
}

std::unique_ptr<Workload>
MakeIncastWorkload(const WorkloadSpec& spec, uint64_t, const IdealModel& ideal)
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
  auto incast = [](const WorkloadSpec& s, uint32_t, uint64_t, std::size_t) { return MakeIncast(s.senders, s.bytes); };
  return MakeGrouped(spec, { std::move(group) }, incast, 0, false, ideal);
}

std::unique_ptr<Workload>
MakeFlowsWorkload(const WorkloadSpec& spec, uint64_t, const IdealModel& ideal)
{
  std::shared_ptr<const FlowList> list = spec.flowList;
  if (!list)
  {
    if (spec.format != "htsim" && spec.format != "csv" && spec.format != "json")
    {
      Fail(spec, "format", "'" + spec.format + "'; allowed: htsim, csv, json");
    }
    list = std::make_shared<const FlowList>(ReadFlowList(spec.file, spec.format));
  }
  const std::string problem = FlowNodesProblem(*list, spec.gpus.gpus.size());
  if (!problem.empty())
  {
    Fail(spec, "file", problem);
  }
  return std::make_unique<FlowListWorkload>(spec.name, list, spec.gpus.gpus, MicrosecondsToTime(spec.startUs), ideal);
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
  const std::string problem = RandomMessagesProblem(spec, ideal.gpuBandwidthBps);
  if (!problem.empty())
  {
    Fail(spec, "load", problem);
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

TypeRegistry<WorkloadType>
BuildRegistry()
{
  constexpr KeyUse kRequired = KeyUse::Required;
  const std::vector<KeyRule> bytes{ { "bytes", kRequired } };
  const std::vector<KeyRule> groups{ { "group_size" }, { "placement" } };
  const std::vector<KeyRule> repeats{ { "iterations" }, { "compute_us" } };
  const std::vector<KeyRule> ring{ { "pipelined" }, { "channels" }, { "chunk_bytes" }, { "slots" } };
  auto join = [](std::vector<std::vector<KeyRule>> parts)
  {
    std::vector<KeyRule> keys;
    for (auto& p : parts)
      keys.insert(keys.end(), p.begin(), p.end());
    return keys;
  };
  return TypeRegistry<WorkloadType>(
    "workload",
    { { "type", kRequired }, { "name" }, { "gpus" }, { "start_us" } },
    // The order in which an entry is checked for keys of other types.
    { "bytes",
      "group_size",
      "placement",
      "mode",
      "pxn",
      "pipelined",
      "channels",
      "chunk_bytes",
      "slots",
      "iterations",
      "compute_us",
      "receiver",
      "senders",
      "load",
      "duration_us",
      "file",
      "format",
      "tp",
      "ep",
      "dp",
      "layers",
      "tp_bytes",
      "a2a_bytes",
      "dp_bytes" },
    {
      { { "ring_allreduce",
          "ring allreduce over each group, with NCCL's pipelining (channels, chunks, slots); on scale-up "
          "domains, NCCL's rings through them",
          join({ bytes, groups, ring, repeats }) },
        &ParseRingAllReduce,
        &MakeRingAllReduceWorkload,
        1 },
      { { "ring_allgather",
          "ring all-gather over each group (bytes: the gathered buffer), pipelined as ring_allreduce",
          join({ bytes, groups, ring, repeats }) },
        &ParseRingAllReduce,
        &MakeRingAllGatherWorkload,
        1 },
      { { "ring_reducescatter",
          "ring reduce-scatter over each group (bytes: the buffer scattered), pipelined as ring_allreduce",
          join({ bytes, groups, ring, repeats }) },
        &ParseRingAllReduce,
        &MakeRingReduceScatterWorkload,
        1 },
      { { "hd_allreduce", "halving-doubling allreduce over each (power-of-two) group", join({ bytes, groups, repeats }) },
        &ParseHalvingDoubling,
        &MakeHalvingDoublingWorkload,
        1 },
      { { "all_to_all",
          "all-to-all over each group, all at once or pairwise; on scale-up domains, directly or through PXN",
          join({ bytes, groups, { { "mode" }, { "pxn" } }, repeats }) },
        &ParseAllToAll,
        &MakeAllToAllWorkload,
        1 },
      { { "permutation", "each GPU sends to another, a new derangement each iteration", join({ bytes, repeats }) },
        &ParsePermutation,
        &MakePermutationWorkload,
        2 },
      { { "incast", "senders all send to one receiver", join({ bytes, { { "receiver", kRequired }, { "senders", kRequired } } }) },
        &ParseIncast,
        &MakeIncastWorkload,
        1 },
      { { "random",
          "background traffic: messages to random GPUs at a share of the line rate",
          join({ bytes, { { "load", kRequired }, { "duration_us", kRequired } } }) },
        &ParseRandom,
        &MakeRandomWorkload,
        2 },
      { { "flows",
          "flows from a file (an htsim connection matrix, a CSV or JSON flow list), node i on the i-th GPU of gpus",
          { { "file", kRequired }, { "format" } } },
        &ParseFlows,
        &MakeFlowsWorkload,
        2 },
      { { "train_step",
          "a training step: per layer a TP all-reduce and the EP all-to-alls, then the DP all-reduce, compute "
          "between them (tp x ep x dp GPUs)",
          join({ { { "tp" }, { "ep" }, { "dp" }, { "layers" }, { "tp_bytes" }, { "a2a_bytes" }, { "dp_bytes" } }, repeats }) },
        &ParseTrainStep,
        &MakeTrainStepWorkload,
        2 },
    });
}

TypeRegistry<WorkloadType>&
Registry()
{
  static TypeRegistry<WorkloadType> registry = BuildRegistry();
  return registry;
}

} // namespace

const TypeRegistry<WorkloadType>&
WorkloadTypes()
{
  return Registry();
}

void
RegisterWorkloadType(WorkloadType type)
{
  NS_ABORT_MSG_IF(!type.parse || !type.make, "workload type '" << type.name << "' needs both parse and make");
  Registry().Add(std::move(type));
}

std::unique_ptr<Workload>
MakeWorkload(const WorkloadSpec& spec, uint64_t seed, const IdealModel& ideal)
{
  // Not a spec error: the caller derives the model from the fabric.
  NS_ABORT_MSG_IF(!(ideal.gpuBandwidthBps > 0) || !(ideal.wireOverhead > 0),
                  "MakeWorkload: IdealModel needs a positive GPU bandwidth and wire overhead");
  const WorkloadType* type = WorkloadTypes().Find(spec.type);
  if (!type)
  {
    std::string allowed;
    for (const std::string& name : WorkloadTypes().Names())
    {
      allowed += (allowed.empty() ? "" : ", ") + name;
    }
    Fail(spec, "type", "'" + spec.type + "'; allowed: " + allowed);
  }
  CheckCommon(spec, type->minGpus);
  return type->make(spec, seed, ideal);
}

} // namespace mrcsim

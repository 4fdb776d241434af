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
#include "sim/workloads/workload-params.h"

#include "ns3/abort.h"

#include <algorithm>
#include <functional>
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
/// group_size (see above) and placement of a collective.
void
ParseGroups(JsonReader& r, const WorkloadSpec& w, Groups& g)
{
  const size_t n = w.gpus.gpus.size();
  if (r.Has("group_size"))
  {
    g.groupSize = static_cast<uint32_t>(r.Int("group_size", 2, kMaxIndex));
    if (n % g.groupSize != 0)
    {
      r.Fail("group_size",
             std::to_string(g.groupSize) + " does not divide the " + std::to_string(n) +
               " GPUs of this workload; use a divisor of " + std::to_string(n));
    }
  }
  const uint64_t group = g.groupSize ? g.groupSize : n;
  if (group < 2)
  {
    r.Fail("gpus", w.type + " needs at least 2 GPUs, got " + std::to_string(n));
  }
  g.placement = r.Choice("placement", { "contiguous", "strided" }, g.placement);
}

/// iterations and compute_us of the types that repeat.
void
ParseRepeats(JsonReader& r, Repeats& p)
{
  p.iterations = static_cast<uint32_t>(r.Int("iterations", 1, kMaxIterations, 1));
  p.computeUs = r.Number("compute_us", 0, kMaxTimeUs, 0);
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
  auto p = std::make_shared<RingParams>();
  ParseGroups(r, w, *p);
  p->pipelined = r.Bool("pipelined", p->pipelined);
  for (const char* key : { "channels", "chunk_bytes", "slots" })
  {
    if (!p->pipelined && r.Has(key))
    {
      r.Fail(key,
             "set with \"pipelined\": false; a ring that is not pipelined has one channel and "
             "sends each chunk whole");
    }
  }
  p->channels = static_cast<uint32_t>(r.Int("channels", 1, 64, p->channels));
  p->chunkBytes = static_cast<uint64_t>(r.Int("chunk_bytes", 1, kMaxExact, static_cast<int64_t>(p->chunkBytes)));
  p->slots = static_cast<uint32_t>(r.Int("slots", 1, 64, p->slots));
  ParseRepeats(r, *p);
  w.params = p;
}

void
ParseHalvingDoubling(JsonReader& r, WorkloadSpec& w, const Fabric&)
{
  auto p = std::make_shared<HalvingDoublingParams>();
  ParseGroups(r, w, *p);
  // Halving-doubling pairs rank r with r xor 2^k at step k, which needs 2^k ranks.
  const uint64_t group = p->groupSize ? p->groupSize : w.gpus.gpus.size();
  if ((group & (group - 1)) != 0)
  {
    r.Fail(p->groupSize ? "group_size" : "gpus",
           "hd_allreduce needs a power-of-two group size, got " + std::to_string(group) +
             (p->groupSize ? "" : " (one group of all the workload's GPUs; set group_size)"));
  }
  ParseRepeats(r, *p);
  w.params = p;
}

void
ParseAllToAll(JsonReader& r, WorkloadSpec& w, const Fabric&)
{
  auto p = std::make_shared<AllToAllParams>();
  ParseGroups(r, w, *p);
  p->mode = r.Choice("mode", { "all_at_once", "pairwise" }, p->mode);
  p->pxn = r.Bool("pxn", p->pxn);
  ParseRepeats(r, *p);
  w.params = p;
}

void
ParseTrainStep(JsonReader& r, WorkloadSpec& w, const Fabric&)
{
  auto p = std::make_shared<TrainStepParams>();
  p->tp = static_cast<uint32_t>(r.Int("tp", 1, kMaxIndex, 1));
  p->ep = static_cast<uint32_t>(r.Int("ep", 1, kMaxIndex, 1));
  p->dp = static_cast<uint32_t>(r.Int("dp", 1, kMaxIndex, 1));
  const uint64_t product = uint64_t(p->tp) * p->ep * p->dp;
  if (product != w.gpus.gpus.size())
  {
    r.Fail("dp",
           "tp x ep x dp = " + std::to_string(product) + ", but the workload has " +
             std::to_string(w.gpus.gpus.size()) + " GPUs; the product must be the GPU count");
  }
  p->layers = static_cast<uint32_t>(r.Int("layers", 1, kMaxLayers, 1));
  p->tpBytes = static_cast<uint64_t>(r.Int("tp_bytes", 0, kMaxExact, 0));
  p->a2aBytes = static_cast<uint64_t>(r.Int("a2a_bytes", 0, kMaxExact, 0));
  p->dpBytes = static_cast<uint64_t>(r.Int("dp_bytes", 0, kMaxExact, 0));
  if (p->tpBytes + p->a2aBytes + p->dpBytes == 0)
  {
    r.Fail("a2a_bytes", "tp_bytes, a2a_bytes and dp_bytes are all 0: the step would send nothing");
  }
  ParseRepeats(r, *p);
  w.params = p;
}

void
ParsePermutation(JsonReader& r, WorkloadSpec& w, const Fabric&)
{
  auto p = std::make_shared<PermutationParams>();
  ParseRepeats(r, *p);
  RequireTwoGpus(r, w);
  w.params = p;
}

void
ParseIncast(JsonReader& r, WorkloadSpec& w, const Fabric& fabric)
{
  auto p = std::make_shared<IncastParams>();
  p->receiver = detail::GpuIndex(r, "receiver", fabric);
  size_t others = w.gpus.gpus.size() - std::count(w.gpus.gpus.begin(), w.gpus.gpus.end(), p->receiver);
  if (others == 0)
  {
    r.Fail("gpus", "incast needs GPUs other than the receiver (GPU " + std::to_string(p->receiver) + ")");
  }
  p->senders = static_cast<uint32_t>(r.Int("senders", 1, kMaxIndex));
  if (p->senders > others)
  {
    r.Fail("senders",
           "expected 1.." + std::to_string(others) + " (the GPUs of 'gpus' other than the receiver), got " +
             std::to_string(p->senders));
  }
  w.params = p;
}

/// The messages a random workload is expected to post: its GPUs x load x a GPU's NIC rate x
/// duration / bytes. Every message keeps a record (tens of bytes) and its QPs' state, so the
/// count is bounded (kMaxRandomMessages); "" if it is within the bound, else what to change.
std::string
RandomMessagesProblem(const WorkloadSpec& w, const RandomParams& p, double gpuBandwidthBps)
{
  const double expected =
    double(w.gpus.gpus.size()) * p.load * gpuBandwidthBps / 8 * (p.durationUs * 1e-6) / double(w.bytes);
  if (expected <= kMaxRandomMessages)
  {
    return "";
  }
  return "about " + std::to_string(static_cast<uint64_t>(expected)) + " messages of " + std::to_string(w.bytes) +
         " bytes over " + std::to_string(p.durationUs) +
         " us; at most 5e7 per random workload (larger bytes, a lower load or a shorter duration_us)";
}

void
ParseRandom(JsonReader& r, WorkloadSpec& w, const Fabric& fabric)
{
  RequireTwoGpus(r, w);
  auto p = std::make_shared<RandomParams>();
  p->load = r.Number("load", kMinLoad, 1);
  p->durationUs = detail::PositiveTimeUs(r, "duration_us");
  // The same bound as the run's (MakeRandomWorkload), from the fabric's NIC rate (a GPU's links),
  // so that validate refuses what run would.
  const std::string problem = RandomMessagesProblem(w, *p, GpuBandwidthBps(fabric));
  if (!problem.empty())
  {
    r.Fail("load", problem);
  }
  w.params = p;
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
  auto p = std::make_shared<FlowsParams>();
  p->file = r.String("file");
  const std::string path = BesideDocument(r.Origin(), p->file);
  p->format = r.String("format", FlowFormatOf(p->file));
  if (p->format != "htsim" && p->format != "csv" && p->format != "json")
  {
    r.Fail(r.Has("format") ? "format" : "file",
           (r.Has("format") ? "\"" + p->format + "\"" : "no format known for \"" + p->file + "\"") +
             "; allowed: htsim (.cm, .tm), csv or json (give \"format\" for another extension)");
  }
  try
  {
    p->flowList = std::make_shared<const FlowList>(ReadFlowList(path, p->format));
  }
  catch (const SpecError& e)
  {
    r.Fail("file", e.what());
  }
  const std::string problem = FlowNodesProblem(*p->flowList, w.gpus.gpus.size());
  if (!problem.empty())
  {
    r.Fail("file", problem);
  }
  p->file = path;
  w.params = p;
}

// ---- constructors (MakeWorkload) ----------------------------------------------------------------

/// Throws the SpecError for one key of one workload.
[[noreturn]] void
Fail(const WorkloadSpec& spec, const std::string& key, const std::string& problem)
{
  throw SpecError("workload '" + spec.name + "' (" + spec.type + "): " + key + ": " + problem);
}

/// Checks what every workload needs: bytes, a start time, a set of distinct GPUs.
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

/// The settings of a type that repeats, checked.
const Repeats&
CheckedRepeats(const WorkloadSpec& spec, const Repeats& p)
{
  if (!(p.computeUs >= 0))
  {
    Fail(spec, "computeUs", std::to_string(p.computeUs) + "; allowed: >= 0");
  }
  return p;
}

/// Groups of a collective, each of at least `minRanks`.
std::vector<std::vector<uint32_t>>
CheckedGroups(const WorkloadSpec& spec, const Groups& g, uint32_t minRanks)
{
  const std::size_t n = spec.gpus.gpus.size();
  if (g.placement != "contiguous" && g.placement != "strided")
  {
    Fail(spec, "placement", "'" + g.placement + "'; allowed: contiguous, strided");
  }
  if (g.groupSize != 0 && (g.groupSize > n || n % g.groupSize != 0))
  {
    Fail(spec,
         "groupSize",
         std::to_string(g.groupSize) + " does not divide the " + std::to_string(n) +
           " GPUs; allowed: 0 (one group) or a divisor of the GPU count");
  }
  const uint64_t size = g.groupSize == 0 ? n : g.groupSize;
  if (size < minRanks)
  {
    Fail(spec,
         g.groupSize == 0 ? "gpus" : "groupSize",
         "groups of " + std::to_string(size) + " GPUs; allowed: at least " + std::to_string(minRanks));
  }
  return SplitGroups(spec.gpus.gpus, g.groupSize, g.placement);
}

/// The running workload of `spec`: `groups`, each running its algorithm of `algorithms`,
/// repeated as `repeats` says from the spec's start; `collective`: their instances are
/// collectives (records, bus bandwidth) rather than a traffic pattern.
std::unique_ptr<Workload>
SpecWorkload(const WorkloadSpec& spec,
             const Repeats& repeats,
             std::vector<std::vector<uint32_t>> groups,
             std::vector<std::unique_ptr<CollectiveAlgorithm>> algorithms,
             bool collective,
             const IdealModel& ideal)
{
  return std::make_unique<CollectiveWorkload>(spec.name,
                                              std::move(groups),
                                              std::move(algorithms),
                                              repeats.iterations,
                                              MicrosecondsToTime(spec.startUs),
                                              MicrosecondsToTime(repeats.computeUs),
                                              collective,
                                              ideal);
}

/// The algorithm of group `group` (of `ranks` ranks) of a grouped workload.
using AlgorithmMaker = std::function<std::unique_ptr<CollectiveAlgorithm>(uint32_t ranks, std::size_t group)>;

/// A workload of groups that each run `algorithm`; `collective`: their instances are
/// collectives (records, bus bandwidth) rather than a traffic pattern.
std::unique_ptr<Workload>
MakeGrouped(const WorkloadSpec& spec,
            const Repeats& repeats,
            std::vector<std::vector<uint32_t>> groups,
            const AlgorithmMaker& algorithm,
            bool collective,
            const IdealModel& ideal)
{
  std::vector<std::unique_ptr<CollectiveAlgorithm>> algorithms;
  for (std::size_t g = 0; g < groups.size(); ++g)
  {
    algorithms.push_back(algorithm(static_cast<uint32_t>(groups[g].size()), g));
  }
  return SpecWorkload(spec, repeats, std::move(groups), std::move(algorithms), collective, ideal);
}

/// A ring collective over each group: flat on a fabric without scale-up domains, else NCCL's
/// rings over the domains (DomainRingLayout).
std::unique_ptr<Workload>
MakeRingWorkload(const WorkloadSpec& spec, const IdealModel& ideal, RingCollective kind)
{
  const RingParams& p = ParamsOf<RingParams>(spec.params, spec.type);
  std::vector<std::vector<uint32_t>> groups = CheckedGroups(spec, p, 1);
  const RingPipeline pipeline{ p.pipelined, p.channels, p.chunkBytes, p.slots };
  std::vector<std::unique_ptr<CollectiveAlgorithm>> algorithms;
  for (const std::vector<uint32_t>& group : groups)
  {
    algorithms.push_back(MakeRing(kind,
                                  static_cast<uint32_t>(group.size()),
                                  spec.bytes,
                                  pipeline,
                                  DomainRingLayout(group, ideal.scaleUp, p.pipelined ? p.channels : 1)));
  }
  return SpecWorkload(spec, CheckedRepeats(spec, p), std::move(groups), std::move(algorithms), true, ideal);
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
MakeHalvingDoublingWorkload(const WorkloadSpec& spec, uint64_t, const IdealModel& ideal)
{
  const HalvingDoublingParams& p = ParamsOf<HalvingDoublingParams>(spec.params, spec.type);
  auto groups = CheckedGroups(spec, p, 1);
  const std::size_t size = groups[0].size();
  if ((size & (size - 1)) != 0)
  {
    Fail(spec,
         p.groupSize == 0 ? "gpus" : "groupSize",
         "groups of " + std::to_string(size) + " GPUs; allowed: a power of two for halving-doubling");
  }
  auto hd = [&spec](uint32_t ranks, std::size_t) { return MakeHalvingDoublingAllReduce(ranks, spec.bytes); };
  return MakeGrouped(spec, CheckedRepeats(spec, p), std::move(groups), hd, true, ideal);
}

std::unique_ptr<Workload>
MakeAllToAllWorkload(const WorkloadSpec& spec, uint64_t, const IdealModel& ideal)
{
  const AllToAllParams& p = ParamsOf<AllToAllParams>(spec.params, spec.type);
  auto groups = CheckedGroups(spec, p, 1);
  if (p.mode != "all_at_once" && p.mode != "pairwise")
  {
    Fail(spec, "mode", "'" + p.mode + "'; allowed: all_at_once, pairwise");
  }
  const bool pairwise = p.mode == "pairwise";
  if (p.pxn)
  {
    if (!ideal.scaleUp.Enabled())
    {
      Fail(spec, "pxn", "true on a fabric without scale-up domains; allowed: false");
    }
    std::vector<std::unique_ptr<CollectiveAlgorithm>> algorithms;
    for (const std::vector<uint32_t>& group : groups)
    {
      algorithms.push_back(
        MakeAllToAllPxn(static_cast<uint32_t>(group.size()), spec.bytes, pairwise, group, ideal.scaleUp));
    }
    return SpecWorkload(spec, CheckedRepeats(spec, p), std::move(groups), std::move(algorithms), true, ideal);
  }
  auto a2a = [&spec, pairwise](uint32_t ranks, std::size_t) { return MakeAllToAll(ranks, spec.bytes, pairwise); };
  return MakeGrouped(spec, CheckedRepeats(spec, p), std::move(groups), a2a, true, ideal);
}

std::unique_ptr<Workload>
MakeTrainStepWorkload(const WorkloadSpec& spec, uint64_t, const IdealModel& ideal)
{
  const TrainStepParams& p = ParamsOf<TrainStepParams>(spec.params, spec.type);
  if (p.tp == 0 || p.ep == 0 || p.dp == 0 || uint64_t(p.tp) * p.ep * p.dp != spec.gpus.gpus.size())
  {
    Fail(spec,
         "tp",
         std::to_string(p.tp) + " x " + std::to_string(p.ep) + " x " + std::to_string(p.dp) +
           "; allowed: sizes of at least 1 whose product is the GPU count (" + std::to_string(spec.gpus.gpus.size()) +
           ")");
  }
  if (ideal.scaleUp.Enabled() && ideal.scaleUp.gpusPerDomain % p.tp != 0)
  {
    Fail(spec, "tp", std::to_string(p.tp) + "; allowed: a divisor of the scale-up domain's GPUs");
  }
  const Repeats& repeats = CheckedRepeats(spec, p);
  TrainStepShape shape;
  shape.tp = p.tp;
  shape.ep = p.ep;
  shape.dp = p.dp;
  shape.layers = p.layers;
  shape.tpBytes = p.tpBytes;
  shape.a2aBytes = p.a2aBytes;
  shape.dpBytes = p.dpBytes;
  shape.compute = MicrosecondsToTime(repeats.computeUs);
  std::vector<std::unique_ptr<CollectiveAlgorithm>> algorithms;
  algorithms.push_back(MakeTrainStep(shape, spec.gpus.gpus, ideal.scaleUp));
  if (algorithms[0]->Steps() == 0)
  {
    Fail(spec, "a2a_bytes", "the step has no collective (every group of one GPU, or every size 0)");
  }
  return SpecWorkload(
    spec, repeats, std::vector<std::vector<uint32_t>>{ spec.gpus.gpus }, std::move(algorithms), true, ideal);
}

std::unique_ptr<Workload>
MakePermutationWorkload(const WorkloadSpec& spec, uint64_t seed, const IdealModel& ideal)
{
  const PermutationParams& p = ParamsOf<PermutationParams>(spec.params, spec.type);
  auto permutation = [&spec, seed](uint32_t ranks, std::size_t g)
  { return MakePermutation(ranks, spec.bytes, WorkloadStreamSeed(seed, spec.name, g)); };
  return MakeGrouped(spec, CheckedRepeats(spec, p), CheckedGroups(spec, Groups{}, 2), permutation, false, ideal);
}

std::unique_ptr<Workload>
MakeIncastWorkload(const WorkloadSpec& spec, uint64_t, const IdealModel& ideal)
{
  const IncastParams& p = ParamsOf<IncastParams>(spec.params, spec.type);
  if (p.senders == 0)
  {
    Fail(spec, "senders", "0; allowed: at least 1");
  }
  std::vector<uint32_t> group{ p.receiver };
  for (uint32_t gpu : spec.gpus.gpus)
  {
    if (gpu != p.receiver && group.size() <= p.senders)
    {
      group.push_back(gpu);
    }
  }
  if (group.size() <= p.senders)
  {
    Fail(spec,
         "senders",
         std::to_string(p.senders) + "; allowed: at most the " + std::to_string(group.size() - 1) +
           " GPUs of 'gpus' other than the receiver");
  }
  auto incast = [&spec, &p](uint32_t, std::size_t) { return MakeIncast(p.senders, spec.bytes); };
  return MakeGrouped(spec, Repeats{}, { std::move(group) }, incast, false, ideal);
}

std::unique_ptr<Workload>
MakeFlowsWorkload(const WorkloadSpec& spec, uint64_t, const IdealModel& ideal)
{
  const FlowsParams& p = ParamsOf<FlowsParams>(spec.params, spec.type);
  std::shared_ptr<const FlowList> list = p.flowList;
  if (!list)
  {
    if (p.format != "htsim" && p.format != "csv" && p.format != "json")
    {
      Fail(spec, "format", "'" + p.format + "'; allowed: htsim, csv, json");
    }
    list = std::make_shared<const FlowList>(ReadFlowList(p.file, p.format));
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
  const RandomParams& p = ParamsOf<RandomParams>(spec.params, spec.type);
  if (!(p.load >= 0))
  {
    Fail(spec, "load", std::to_string(p.load) + "; allowed: >= 0 (a fraction of the NIC line rate)");
  }
  if (!(p.durationUs >= 0))
  {
    Fail(spec, "durationUs", std::to_string(p.durationUs) + "; allowed: >= 0");
  }
  const std::string problem = RandomMessagesProblem(spec, p, ideal.gpuBandwidthBps);
  if (!problem.empty())
  {
    Fail(spec, "load", problem);
  }
  return std::make_unique<RandomWorkload>(spec.name,
                                          spec.gpus.gpus,
                                          spec.bytes,
                                          p.load,
                                          MicrosecondsToTime(spec.startUs),
                                          MicrosecondsToTime(p.durationUs),
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

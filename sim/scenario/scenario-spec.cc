// Reading scenario files: --set overrides are applied to the document first, then one strict pass
// checks keys, types and ranges, builds the fabric the topology names and checks every GPU,
// plane, switch and link reference against it, so that no run starts on a scenario that names
// something the fabric lacks. A sweep block is checked by applying each of its values to a copy of
// the document and reading that copy the same way. Workloads, failures and transports are read
// by their types' readers (sim/workloads/workload-types.h, sim/failures/failure-types.h,
// sim/network/transport-types.h).
#include "sim/scenario/scenario-spec.h"

#include "sim/scenario/attribute-check.h"
#include "sim/failures/failure-types.h"
#include "sim/scenario/scenario-spec-detail.h"
#include "sim/network/transport-types.h"
#include "sim/workloads/workload-params.h"
#include "sim/workloads/workload-types.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <sstream>

namespace mrcsim
{

using detail::Existing;
using detail::GpuIndex;
using detail::IndexValue;
using detail::kMaxExact;
using detail::kMaxIndex;
using detail::kMaxTimeUs;
using detail::ParseLinkSelector;
using detail::ParseSweep;
using detail::PositiveNumber;
using detail::Shown;

namespace
{

/// Names and labels end up in output file names and table columns: a name is a plain file name
/// (no ".", "..", hidden or option-like names), at most 100 characters.
void
CheckName(const JsonReader& r, const std::string& key, const std::string& name)
{
  bool ok =
    !name.empty() && name.size() <= 100 && (std::isalnum(static_cast<unsigned char>(name[0])) || name[0] == '_') &&
    std::all_of(name.begin(),
                name.end(),
                [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '.' || c == '-'; });
  if (!ok)
  {
    r.Fail(key,
           "\"" + name + "\" is not a valid name; use letters, digits, '_', '.' and '-', starting with a letter, "
           "digit or '_', at most 100 characters");
  }
}

const nlohmann::json&
List(JsonReader& r, const std::string& key, const std::string& what, bool nonEmpty)
{
  const nlohmann::json& v = r.Raw(key);
  if (!v.is_array())
  {
    r.Fail(key, "expected a list of " + what + ", got " + Shown(v));
  }
  if (nonEmpty && v.empty())
  {
    r.Fail(key, "expected at least one entry (a list of " + what + ")");
  }
  return v;
}

std::string
ItemPath(const JsonReader& r, const std::string& key, size_t i)
{
  return r.Path() + "/" + key + "/" + std::to_string(i);
}

FabricSpec
ParseTopology(JsonReader r)
{
  r.Expect({ "preset", "spec" });
  if (r.Has("preset") == r.Has("spec"))
  {
    throw SpecError(r.Origin() + ": at " + r.Path() +
                    ": expected exactly one of \"preset\" (a preset name) or \"spec\" (a fabric spec object)");
  }
  FabricSpec spec;
  if (r.Has("preset"))
  {
    std::string name = r.String("preset");
    try
    {
      spec = PresetSpec(name);
    }
    catch (const SpecError& e)
    {
      r.Fail("preset", e.what());
    }
  }
  else
  {
    JsonReader s = r.Object("spec");
    spec = ParseFabricSpec(s);
  }
  r.Finish();
  return spec;
}

/// References are checked against the built fabric rather than re-derived from the spec, so one
/// piece of code covers every topology kind, GraphML included.
Fabric
BuildScenarioFabric(const FabricSpec& spec, const std::string& origin)
{
  try
  {
    return BuildFabric(spec, origin + ": at /topology");
  }
  catch (const std::exception& e)
  {
    std::string message = e.what();
    throw SpecError(message.rfind(origin, 0) == 0 ? message : origin + ": at /topology: " + message);
  }
}

/// ns-3 attribute values are text; numbers are written so that integer attributes parse them
/// (no "64.0") and doubles keep every digit.
std::optional<std::string>
AttributeText(const nlohmann::json& v)
{
  if (v.is_boolean())
  {
    return v.get<bool>() ? "true" : "false";
  }
  if (v.is_number_integer())
  {
    return v.dump();
  }
  if (v.is_number_float())
  {
    double x = v.get<double>();
    if (std::isfinite(x) && std::floor(x) == x && std::fabs(x) < static_cast<double>(kMaxExact))
    {
      return std::to_string(static_cast<int64_t>(x));
    }
    return v.dump();
  }
  if (v.is_string())
  {
    return v.get<std::string>();
  }
  return std::nullopt;
}

/// Only the shape is checked here; the runner checks the names against ns-3's TypeId registry.
bool
LooksLikeAttributeName(const std::string& name)
{
  // ns3::Type::Attribute, with possibly nested namespaces (ns3::dot11s::PeerLink::MaxRetries).
  if (name.rfind("ns3::", 0) != 0)
  {
    return false;
  }
  size_t parts = 0;
  size_t start = 5;
  while (true)
  {
    size_t end = name.find("::", start);
    std::string part = name.substr(start, end == std::string::npos ? std::string::npos : end - start);
    bool ident = !part.empty() && !std::isdigit(static_cast<unsigned char>(part[0])) &&
                 std::all_of(part.begin(), part.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
    if (!ident)
    {
      return false;
    }
    ++parts;
    if (end == std::string::npos)
    {
      return parts >= 2;
    }
    start = end + 2;
  }
}

TransportSpec
ParseTransport(const nlohmann::json& v, const std::string& origin, const std::string& path, int planes)
{
  JsonReader r(v, origin, path);
  TransportSpec t;
  t.type = TransportTypes().ReadType(r);
  t.label = r.String("label", t.type);
  CheckName(r, "label", t.label);
  if (t.label == "summary.json")
  {
    // A transport's results are a directory named after its label, beside summary.json.
    r.Fail("label", "\"summary.json\" is the results directory's summary file; choose another label");
  }
  TransportTypes().Get(t.type).parse(r, t);
  if (r.Has("attributes"))
  {
    JsonReader a(r.Raw("attributes"), origin, path + "/attributes");
    for (const auto& [name, value] : r.Raw("attributes").items())
    {
      a.Skip(name);
      if (!LooksLikeAttributeName(name))
      {
        a.Fail(name,
               "\"" + name + "\" is not an ns-3 attribute name; attribute names look like " +
                 "\"ns3::MrcQueuePair::EvCount\" (ns3::Type::Attribute)");
      }
      std::optional<std::string> text = AttributeText(value);
      if (!text)
      {
        a.Fail(name, "expected a number, true/false or a string, got " + Shown(value));
      }
      if (std::optional<std::string> problem = CheckAttributeDefault(name, *text))
      {
        a.Fail(name, *problem);
      }
      t.attributes[name] = *text;
    }
    if (auto problem = CheckTransportAttributes(t.attributes, planes))
    {
      a.Fail(problem->first, problem->second);
    }
  }
  r.Finish();
  return t;
}

std::vector<TransportSpec>
ParseTransports(JsonReader& r, const Fabric& fabric)
{
  const nlohmann::json& v = r.Raw("transport");
  std::vector<TransportSpec> out;
  if (v.is_object())
  {
    out.push_back(ParseTransport(v, r.Origin(), r.Path() + "/transport", fabric.NumPlanes()));
    return out;
  }
  if (!v.is_array() || v.empty())
  {
    r.Fail("transport", "expected a transport object or a non-empty list of them, got " + Shown(v));
  }
  for (size_t i = 0; i < v.size(); ++i)
  {
    TransportSpec t = ParseTransport(v[i], r.Origin(), ItemPath(r, "transport", i), fabric.NumPlanes());
    for (size_t j = 0; j < out.size(); ++j)
    {
      if (out[j].label == t.label)
      {
        // Results are filed by label, so two transports with one label would overwrite each other.
        r.Fail("transport/" + std::to_string(i) + "/label",
               "label \"" + t.label + "\" is already used by /transport/" + std::to_string(j) +
                 "; give each transport a unique label");
      }
    }
    out.push_back(std::move(t));
  }
  return out;
}

GpuSet
ParseGpuSet(JsonReader& w, const Fabric& fabric)
{
  const size_t n = fabric.NumGpus();
  GpuSet set;
  if (!w.Has("gpus"))
  {
    w.Skip("gpus");
    for (uint32_t g = 0; g < n; ++g)
    {
      set.gpus.push_back(g);
    }
    return set;
  }
  const nlohmann::json& v = w.Raw("gpus");
  if (v.is_string() && v.get<std::string>() == "all")
  {
    for (uint32_t g = 0; g < n; ++g)
    {
      set.gpus.push_back(g);
    }
  }
  else if (v.is_array())
  {
    if (v.empty())
    {
      w.Fail("gpus", "expected at least one GPU");
    }
    std::vector<bool> seen(n, false);
    for (size_t i = 0; i < v.size(); ++i)
    {
      std::string key = "gpus/" + std::to_string(i);
      uint32_t g = IndexValue(w, key, v[i], n, "GPU", "GPUs");
      if (seen[g])
      {
        w.Fail(key, "GPU " + std::to_string(g) + " is listed twice");
      }
      seen[g] = true;
      set.gpus.push_back(g);
    }
  }
  else if (v.is_object())
  {
    JsonReader r(v, w.Origin(), w.Path() + "/gpus");
    r.Expect({ "first", "count", "stride" });
    uint64_t first = GpuIndex(r, "first", fabric);
    uint64_t count = static_cast<uint64_t>(r.Int("count", 1, kMaxIndex));
    uint64_t stride = static_cast<uint64_t>(r.Int("stride", 1, kMaxIndex, 1));
    uint64_t last = first + (count - 1) * stride;
    if (last >= n)
    {
      r.Fail("count",
             std::to_string(count) + " GPUs from GPU " + std::to_string(first) + " with stride " +
               std::to_string(stride) + " end at GPU " + std::to_string(last) + ", which does not exist; " +
               Existing(n, "GPUs", "the fabric"));
    }
    r.Finish();
    for (uint64_t k = 0; k < count; ++k)
    {
      set.gpus.push_back(static_cast<uint32_t>(first + k * stride));
    }
  }
  else
  {
    w.Fail("gpus", R"(expected "all", a list of GPU indices or {"first", "count", "stride"}, got )" + Shown(v));
  }
  return set;
}

WorkloadSpec
ParseWorkload(const nlohmann::json& v,
              const std::string& origin,
              const std::string& path,
              size_t index,
              const Fabric& fabric)
{
  JsonReader r(v, origin, path);
  WorkloadSpec w;
  w.type = WorkloadTypes().ReadType(r);
  w.name = r.String("name", w.type + "-" + std::to_string(index));
  CheckName(r, "name", w.name);
  w.gpus = ParseGpuSet(r, fabric);
  if (WorkloadTypes().Get(w.type).Takes("bytes"))
  {
    w.bytes = static_cast<uint64_t>(r.Int("bytes", 1, kMaxExact));
  }
  w.startUs = r.Number("start_us", 0, kMaxTimeUs, 0);
  WorkloadTypes().Get(w.type).parse(r, w, fabric);
  r.Finish();
  return w;
}

std::vector<WorkloadSpec>
ParseWorkloads(JsonReader& r, const Fabric& fabric)
{
  const nlohmann::json& v = List(r, "workloads", "workload objects", true);
  std::vector<WorkloadSpec> out;
  for (size_t i = 0; i < v.size(); ++i)
  {
    WorkloadSpec w = ParseWorkload(v[i], r.Origin(), ItemPath(r, "workloads", i), i, fabric);
    for (size_t j = 0; j < out.size(); ++j)
    {
      if (out[j].name == w.name)
      {
        r.Fail("workloads/" + std::to_string(i) + "/name",
               "name \"" + w.name + "\" is already used by /workloads/" + std::to_string(j) +
                 "; give each workload a unique name");
      }
    }
    out.push_back(std::move(w));
  }
  return out;
}

FailureSpec
ParseFailure(const nlohmann::json& v, const std::string& origin, const std::string& path, const Fabric& fabric)
{
  JsonReader r(v, origin, path);
  FailureSpec f;
  f.where = path;
  f.type = FailureTypes().ReadType(r);
  f.atUs = r.Number("at_us", 0, kMaxTimeUs);
  FailureTypes().Get(f.type).parse(r, f, fabric);
  r.Finish();
  return f;
}

StopSpec
ParseStop(JsonReader r)
{
  r.Expect({ "sim_time_us", "wall_time_s" });
  StopSpec s;
  s.simTimeUs = detail::PositiveTimeUs(r, "sim_time_us", StopSpec::kDefaultSimTimeUs);
  s.wallTimeS = PositiveNumber(r, "wall_time_s", kMaxTimeUs, StopSpec::kDefaultWallTimeS);
  r.Finish();
  return s;
}

OutputSpec
ParseOutputs(JsonReader r, const Fabric& fabric)
{
  r.Expect({ "sample_interval_us", "pcap", "ports" });
  OutputSpec o;
  if (r.Has("ports"))
  {
    const nlohmann::json& v = List(r, "ports", "link selectors", false);
    for (size_t i = 0; i < v.size(); ++i)
      o.portLinks.push_back(ParseLinkSelector(v[i], r.Origin(), ItemPath(r, "ports", i), fabric));
  }
  o.sampleIntervalUs = r.Number("sample_interval_us",
                                OutputSpec::kMinSampleIntervalUs,
                                OutputSpec::kMaxSampleIntervalUs,
                                o.sampleIntervalUs);
  if (r.Has("pcap"))
  {
    const nlohmann::json& v = List(r, "pcap", "link selectors", false);
    for (size_t i = 0; i < v.size(); ++i)
    {
      o.pcapLinks.push_back(ParseLinkSelector(v[i], r.Origin(), ItemPath(r, "pcap", i), fabric));
    }
  }
  r.Finish();
  return o;
}

} // namespace

std::string
detail::Existing(size_t count, const std::string& plural, const std::string& scope)
{
  if (count == 0)
  {
    return scope + " has no " + plural;
  }
  return scope + " has " + std::to_string(count) + " " + plural + " (0.." + std::to_string(count - 1) + ")";
}

double
detail::PositiveNumber(JsonReader& r, const std::string& key, double hi)
{
  const nlohmann::json& v = r.Raw(key);
  if (!v.is_number() || !(v.get<double>() > 0) || !(v.get<double>() <= hi))
  {
    r.Fail(key, "expected a number in (0, " + Fmt(hi) + "], got " + Shown(v));
  }
  return v.get<double>();
}

double
detail::PositiveNumber(JsonReader& r, const std::string& key, double hi, double fallback)
{
  r.Skip(key);
  return r.Has(key) ? PositiveNumber(r, key, hi) : fallback;
}

double
detail::PositiveTimeUs(JsonReader& r, const std::string& key)
{
  const nlohmann::json& v = r.Raw(key);
  if (!v.is_number() || !(v.get<double>() >= range::kTimeResolutionUs) || !(v.get<double>() <= kMaxTimeUs))
  {
    r.Fail(key,
           "expected a time in [" + Fmt(range::kTimeResolutionUs) + ", " + Fmt(kMaxTimeUs) +
             "] us (from the simulator's resolution, 1 ps, to about 11.6 days), got " + Shown(v));
  }
  return v.get<double>();
}

double
detail::PositiveTimeUs(JsonReader& r, const std::string& key, double fallback)
{
  r.Skip(key);
  return r.Has(key) ? PositiveTimeUs(r, key) : fallback;
}

uint32_t
detail::IndexValue(const JsonReader& r,
                   const std::string& key,
                   const nlohmann::json& v,
                   size_t count,
                   const std::string& noun,
                   const std::string& plural,
                   const std::string& scope)
{
  if (v.is_number_integer() && v.get<int64_t>() >= 0 && static_cast<uint64_t>(v.get<int64_t>()) < count)
  {
    return static_cast<uint32_t>(v.get<int64_t>());
  }
  std::string what = v.is_number_integer() ? noun + " " + v.dump() + " does not exist"
                                           : "expected a " + noun + " index, got " + Shown(v);
  r.Fail(key, what + "; " + Existing(count, plural, scope));
}

uint32_t
detail::GpuIndex(JsonReader& r, const std::string& key, const Fabric& fabric)
{
  return IndexValue(r, key, r.Raw(key), fabric.NumGpus(), "GPU", "GPUs");
}

int
detail::PlaneIndex(JsonReader& r, const std::string& key, const Fabric& fabric)
{
  return static_cast<int>(IndexValue(r, key, r.Raw(key), fabric.NumPlanes(), "plane", "planes"));
}

ScenarioSpec
ParseScenario(const nlohmann::json& document, const std::string& origin)
{
  return detail::ParseScenarioOn(document, origin, nullptr);
}

ScenarioSpec
detail::ParseScenarioOn(const nlohmann::json& document, const std::string& origin, const Fabric* built)
{
  JsonReader r(document, origin, "");
  r.Expect(
    { "name", "description", "seed", "topology", "transport", "workloads", "failures", "link_loss", "stop", "outputs",
      "sweep" });
  ScenarioSpec s;
  s.file = origin;
  s.document = document;
  s.name = r.String("name");
  CheckName(r, "name", s.name);
  s.description = r.String("description", "");
  s.seed = static_cast<uint64_t>(r.Int("seed", 0, kMaxExact, 1));
  s.topology = ParseTopology(r.Object("topology"));
  std::optional<Fabric> own;
  if (!built)
    own.emplace(BuildScenarioFabric(s.topology, origin));
  const Fabric& fabric = built ? *built : *own;
  s.transports = ParseTransports(r, fabric);
  s.workloads = ParseWorkloads(r, fabric);
  for (size_t i = 0; i < s.workloads.size(); ++i)
  {
    const WorkloadSpec& w = s.workloads[i];
    const ScaleUpSpec& up = s.topology.scaleUp;
    const uint32_t tp = w.type == "train_step" ? ParamsOf<TrainStepParams>(w.params, w.type).tp : 1;
    if (up.Enabled() && up.gpusPerDomain % tp != 0)
      throw SpecError(origin + ": at /workloads/" + std::to_string(i) + "/tp: " + std::to_string(tp) +
                      " does not divide the scale-up domain's " + std::to_string(up.gpusPerDomain) +
                      " GPUs; tensor parallelism stays inside a domain");
    if (w.type == "all_to_all" && ParamsOf<AllToAllParams>(w.params, w.type).pxn && !up.Enabled())
      throw SpecError(origin + ": at /workloads/" + std::to_string(i) +
                      "/pxn: true on a fabric without scale-up domains; allowed on a topology with \"scale_up\" "
                      "(e.g. the preset multiplane-64-hgx8)");
  }
  if (r.Has("failures"))
  {
    const nlohmann::json& v = List(r, "failures", "failure objects", false);
    for (size_t i = 0; i < v.size(); ++i)
    {
      s.failures.push_back(ParseFailure(v[i], origin, ItemPath(r, "failures", i), fabric));
    }
  }
  if (r.Has("link_loss"))
  {
    const nlohmann::json& v = List(r, "link_loss", "link-loss objects", false);
    std::set<std::string> classes;
    for (size_t i = 0; i < v.size(); ++i)
    {
      JsonReader e(v[i], origin, ItemPath(r, "link_loss", i));
      e.Expect({ "link_class", "rate" });
      LinkLossSpec l;
      l.linkClass = e.Choice("link_class", { "gpu-t0", "t0-t1", "all" });
      l.rate = e.Number("rate", 0, 1);
      if (l.rate >= 1)
      {
        e.Fail("rate", "a loss probability below 1 (every packet lost would stop every run), got 1");
      }
      if (!classes.insert(l.linkClass).second)
      {
        e.Fail("link_class", "\"" + l.linkClass + "\" is given twice; one entry per link class");
      }
      e.Finish();
      s.linkLoss.push_back(l);
    }
  }
  if (r.Has("stop"))
  {
    s.stop = ParseStop(r.Object("stop"));
  }
  if (r.Has("outputs"))
  {
    s.outputs = ParseOutputs(r.Object("outputs"), fabric);
  }
  // A workload that starts at or after the stop never runs: the run would only sample an idle
  // fabric until the stop.
  for (size_t i = 0; i < s.workloads.size(); ++i)
  {
    if (s.workloads[i].startUs >= s.stop.simTimeUs)
    {
      r.Fail("workloads/" + std::to_string(i) + "/start_us",
             "workload \"" + s.workloads[i].name + "\" starts at " + Fmt(s.workloads[i].startUs) +
               " us, not before the stop (stop.sim_time_us " + Fmt(s.stop.simTimeUs) +
               " us); start it earlier or raise stop.sim_time_us");
    }
  }
  // Last, so that an error in the scenario itself is reported as such, not as a bad swept value.
  if (r.Has("sweep") && !document.at("sweep").is_null())
  {
    s.sweep = ParseSweep(r.Object("sweep"), document, s.seed, fabric);
  }
  r.Skip("sweep");
  r.Finish();
  return s;
}

ScenarioSpec
ParseScenario(nlohmann::json document, const std::string& origin, const std::vector<std::string>& overrides)
{
  for (const std::string& o : overrides)
  {
    ApplyOverride(document, o);
  }
  try
  {
    return ParseScenario(document, origin);
  }
  catch (const SpecError& e)
  {
    if (overrides.empty())
    {
      throw;
    }
    // The bad value may come from the command line rather than the file; say so.
    std::string applied;
    for (const std::string& o : overrides)
    {
      applied += (applied.empty() ? "" : ", ") + o;
    }
    throw SpecError(std::string(e.what()) + " (after overrides: " + applied + ")");
  }
}

ScenarioSpec
ReadScenarioFile(const std::string& file, const std::vector<std::string>& overrides)
{
  return ParseScenario(ReadJsonFile(file), file, overrides);
}

} // namespace mrcsim

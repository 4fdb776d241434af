// Reading scenario files: --set overrides are applied to the document first, then one strict pass
// checks keys, types and ranges, builds the fabric the topology names and checks every GPU,
// plane, switch and link reference against it, so that no run starts on a scenario that names
// something the fabric lacks. A sweep block is checked by applying each of its values to a copy of
// the document and reading that copy the same way.
#include "sim/scenario-spec.h"

#include "sim/attribute-check.h"
#include "sim/scenario-spec-detail.h"

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
using detail::Fmt;
using detail::kSelectorForms;
using detail::kMaxExact;
using detail::ParseSweep;
using detail::Shown;

namespace
{

/// About 11.6 simulated days: far beyond any run, yet it catches a unit slip such as nanoseconds
/// written where microseconds are meant.
constexpr double kMaxTimeUs = 1e12;
constexpr double kMinRateFactor = 1e-6;
constexpr double kMinLoad = 1e-6;
constexpr int64_t kMaxIterations = 1000000;
constexpr int64_t kMaxFlaps = 1000000;
constexpr int64_t kMaxQps = 64;
constexpr int64_t kMaxIndex = std::numeric_limits<uint32_t>::max();

const std::vector<std::string> kTransportTypes{ "mrc", "rocev2" };
const std::vector<std::string> kWorkloadTypes{ "ring_allreduce", "hd_allreduce", "all_to_all",
                                               "permutation",    "incast",       "random" };
const std::vector<std::string> kCollectives{ "ring_allreduce", "hd_allreduce", "all_to_all" };
const std::vector<std::string> kFailureTypes{ "link_down", "link_up",    "link_flap",   "switch_down",
                                              "switch_up", "plane_down", "plane_up",    "port_down",
                                              "port_up",   "gray",       "random_links" };

/// A key that only some types of an entry accept; keys not listed are valid for every type.
struct TypedKey
{
  std::string key;
  std::vector<std::string> types;
};

const std::vector<std::string> kTransportCommon{ "type", "label", "attributes" };
const std::vector<TypedKey> kTransportKeys{ { "qps_per_connection", { "rocev2" } } };

const std::vector<std::string> kWorkloadCommon{ "type", "name", "gpus", "bytes", "start_us" };
const std::vector<TypedKey> kWorkloadKeys{
  { "group_size", kCollectives },
  { "placement", kCollectives },
  { "mode", { "all_to_all" } },
  { "pipelined", { "ring_allreduce" } },
  { "channels", { "ring_allreduce" } },
  { "chunk_bytes", { "ring_allreduce" } },
  { "slots", { "ring_allreduce" } },
  { "iterations", { "ring_allreduce", "hd_allreduce", "all_to_all", "permutation" } },
  { "compute_us", { "ring_allreduce", "hd_allreduce", "all_to_all", "permutation" } },
  { "receiver", { "incast" } },
  { "senders", { "incast" } },
  { "load", { "random" } },
  { "duration_us", { "random" } },
};

const std::vector<std::string> kFailureCommon{ "type", "at_us" };
const std::vector<TypedKey> kFailureKeys{
  { "link", { "link_down", "link_up", "link_flap", "gray" } },
  { "period_us", { "link_flap" } },
  { "count", { "link_flap" } },
  { "plane", { "switch_down", "switch_up", "plane_down", "plane_up", "port_down", "port_up" } },
  { "tier", { "switch_down", "switch_up" } },
  { "index", { "switch_down", "switch_up" } },
  { "gpu", { "port_down", "port_up" } },
  { "loss_rate", { "gray" } },
  { "rate_factor", { "gray" } },
  { "link_class", { "random_links" } },
  { "mtbf_us", { "random_links" } },
  { "mttr_us", { "random_links" } },
  { "until_us", { "random_links" } },
};

bool
Contains(const std::vector<std::string>& xs, const std::string& x)
{
  return std::find(xs.begin(), xs.end(), x) != xs.end();
}

std::vector<std::string>
KeysOf(const std::vector<std::string>& common, const std::vector<TypedKey>& typed)
{
  std::vector<std::string> keys = common;
  for (const TypedKey& k : typed)
  {
    keys.push_back(k.key);
  }
  return keys;
}

/// Reported as its own error rather than as an unknown key: the key is right, the entry's type
/// is what makes it meaningless, and that is what the author must change.
void
RejectKeysOfOtherTypes(const nlohmann::json& object,
                       const JsonReader& r,
                       const std::string& type,
                       const std::vector<TypedKey>& typed)
{
  for (const TypedKey& k : typed)
  {
    if (object.contains(k.key) && !Contains(k.types, type))
    {
      std::string types;
      for (size_t i = 0; i < k.types.size(); ++i)
      {
        types += (i ? ", " : "") + k.types[i];
      }
      r.Fail(k.key, "key '" + k.key + "' is only allowed for " + types + ", not for " + type);
    }
  }
}

/// JsonReader's ranges are closed; durations, intervals and rates must also exclude zero.
double
PositiveNumber(JsonReader& r, const std::string& key, double hi)
{
  const nlohmann::json& v = r.Raw(key);
  if (!v.is_number() || !(v.get<double>() > 0) || !(v.get<double>() <= hi))
  {
    r.Fail(key, "expected a number in (0, " + Fmt(hi) + "], got " + Shown(v));
  }
  return v.get<double>();
}

double
PositiveNumber(JsonReader& r, const std::string& key, double hi, double fallback)
{
  r.Skip(key);
  return r.Has(key) ? PositiveNumber(r, key, hi) : fallback;
}

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


/// An index into the `count` things `scope` has; `key` may be a path below the reader ("gpus/3").
uint32_t
IndexValue(const JsonReader& r,
           const std::string& key,
           const nlohmann::json& v,
           size_t count,
           const std::string& noun,
           const std::string& plural,
           const std::string& scope = "the fabric")
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
GpuIndex(JsonReader& r, const std::string& key, const Fabric& fabric)
{
  return IndexValue(r, key, r.Raw(key), fabric.NumGpus(), "GPU", "GPUs");
}

int
PlaneIndex(JsonReader& r, const std::string& key, const Fabric& fabric)
{
  return static_cast<int>(IndexValue(r, key, r.Raw(key), fabric.NumPlanes(), "plane", "planes"));
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
ParseTransport(const nlohmann::json& v, const std::string& origin, const std::string& path)
{
  JsonReader r(v, origin, path);
  r.Expect(KeysOf(kTransportCommon, kTransportKeys));
  TransportSpec t;
  t.type = r.Choice("type", kTransportTypes);
  RejectKeysOfOtherTypes(v, r, t.type, kTransportKeys);
  t.label = r.String("label", t.type);
  CheckName(r, "label", t.label);
  if (t.type == "rocev2")
  {
    t.qpsPerConnection = static_cast<uint32_t>(r.Int("qps_per_connection", 1, kMaxQps, 1));
  }
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
  }
  r.Finish();
  return t;
}

std::vector<TransportSpec>
ParseTransports(JsonReader& r)
{
  const nlohmann::json& v = r.Raw("transport");
  std::vector<TransportSpec> out;
  if (v.is_object())
  {
    out.push_back(ParseTransport(v, r.Origin(), r.Path() + "/transport"));
    return out;
  }
  if (!v.is_array() || v.empty())
  {
    r.Fail("transport", "expected a transport object or a non-empty list of them, got " + Shown(v));
  }
  for (size_t i = 0; i < v.size(); ++i)
  {
    TransportSpec t = ParseTransport(v[i], r.Origin(), ItemPath(r, "transport", i));
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
  r.Expect(KeysOf(kWorkloadCommon, kWorkloadKeys));
  WorkloadSpec w;
  w.type = r.Choice("type", kWorkloadTypes);
  RejectKeysOfOtherTypes(v, r, w.type, kWorkloadKeys);
  w.name = r.String("name", w.type + "-" + std::to_string(index));
  CheckName(r, "name", w.name);
  w.gpus = ParseGpuSet(r, fabric);
  const size_t n = w.gpus.gpus.size();
  w.bytes = static_cast<uint64_t>(r.Int("bytes", 1, kMaxExact));
  w.startUs = r.Number("start_us", 0, kMaxTimeUs, 0);

  if (Contains(kCollectives, w.type))
  {
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
    // Halving-doubling pairs rank r with r xor 2^k at step k, which needs 2^k ranks.
    if (w.type == "hd_allreduce" && (group & (group - 1)) != 0)
    {
      r.Fail(w.groupSize ? "group_size" : "gpus",
             "hd_allreduce needs a power-of-two group size, got " + std::to_string(group) +
               (w.groupSize ? "" : " (one group of all the workload's GPUs; set group_size)"));
    }
    w.placement = r.Choice("placement", { "contiguous", "strided" }, w.placement);
    if (w.type == "all_to_all")
    {
      w.mode = r.Choice("mode", { "all_at_once", "pairwise" }, w.mode);
    }
    if (w.type == "ring_allreduce")
    {
      w.pipelined = r.Bool("pipelined", w.pipelined);
      for (const char* key : { "channels", "chunk_bytes", "slots" })
      {
        if (!w.pipelined && r.Has(key))
        {
          r.Fail(key, "set with \"pipelined\": false; a ring that is not pipelined has one channel and "
                      "sends each chunk whole");
        }
      }
      w.channels = static_cast<uint32_t>(r.Int("channels", 1, 64, w.channels));
      w.chunkBytes = static_cast<uint64_t>(r.Int("chunk_bytes", 1, kMaxExact, static_cast<int64_t>(w.chunkBytes)));
      w.slots = static_cast<uint32_t>(r.Int("slots", 1, 64, w.slots));
    }
  }
  if (Contains(kCollectives, w.type) || w.type == "permutation")
  {
    w.iterations = static_cast<uint32_t>(r.Int("iterations", 1, kMaxIterations, 1));
    w.computeUs = r.Number("compute_us", 0, kMaxTimeUs, 0);
  }
  if ((w.type == "permutation" || w.type == "random") && n < 2)
  {
    r.Fail("gpus", w.type + " needs at least 2 GPUs, got " + std::to_string(n));
  }
  if (w.type == "incast")
  {
    w.receiver = GpuIndex(r, "receiver", fabric);
    size_t others = n - std::count(w.gpus.gpus.begin(), w.gpus.gpus.end(), w.receiver);
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
  if (w.type == "random")
  {
    // At least a millionth of the line rate: below it a GPU's arrivals are further apart than
    // any duration a packet-level run reaches, and the workload would silently post nothing.
    w.load = r.Number("load", kMinLoad, 1);
    w.durationUs = PositiveNumber(r, "duration_us", kMaxTimeUs);
  }
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

LinkSelector
ParseLinkSelector(const nlohmann::json& v, const std::string& origin, const std::string& path, const Fabric& fabric)
{
  JsonReader r(v, origin, path);
  r.Expect({ "id", "gpu", "plane", "t0", "t1", "up_port" });
  std::set<std::string> keys;
  for (const auto& item : v.items())
  {
    keys.insert(item.key());
  }
  static const std::vector<std::set<std::string>> forms{
    { "id" }, { "gpu", "plane" }, { "plane", "t0", "t1" }, { "plane", "t0", "up_port" }
  };
  if (std::find(forms.begin(), forms.end(), keys) == forms.end())
  {
    std::string got;
    for (const std::string& k : keys)
    {
      got += (got.empty() ? "\"" : ", \"") + k + "\"";
    }
    throw SpecError(origin + ": at " + path + ": a link is named by exactly one of the forms " + kSelectorForms +
                    "; got {" + got + "}");
  }
  auto read = [&r](const std::string& key) -> std::optional<uint32_t>
  {
    if (!r.Has(key))
    {
      return std::nullopt;
    }
    return static_cast<uint32_t>(r.Int(key, 0, kMaxIndex));
  };
  LinkSelector s;
  s.where = path;
  s.id = read("id");
  s.gpu = read("gpu");
  if (r.Has("plane"))
  {
    s.plane = static_cast<int>(r.Int("plane", 0, std::numeric_limits<int16_t>::max()));
  }
  s.t0 = read("t0");
  s.t1 = read("t1");
  s.upPort = read("up_port");
  r.Finish();
  ResolveLink(fabric, s, origin);
  return s;
}

FailureSpec
ParseFailure(const nlohmann::json& v, const std::string& origin, const std::string& path, const Fabric& fabric)
{
  JsonReader r(v, origin, path);
  r.Expect(KeysOf(kFailureCommon, kFailureKeys));
  FailureSpec f;
  f.where = path;
  f.type = r.Choice("type", kFailureTypes);
  RejectKeysOfOtherTypes(v, r, f.type, kFailureKeys);
  f.atUs = r.Number("at_us", 0, kMaxTimeUs);
  const std::string& t = f.type;
  if (t == "link_down" || t == "link_up" || t == "link_flap" || t == "gray")
  {
    f.link = ParseLinkSelector(r.Raw("link"), origin, path + "/link", fabric);
  }
  if (t == "link_flap")
  {
    f.periodUs = PositiveNumber(r, "period_us", kMaxTimeUs);
    f.count = static_cast<uint32_t>(r.Int("count", 1, kMaxFlaps));
  }
  if (t == "switch_down" || t == "switch_up")
  {
    f.plane = PlaneIndex(r, "plane", fabric);
    f.tier = static_cast<int>(IndexValue(r, "tier", r.Raw("tier"), fabric.NumTiers(), "tier", "tiers"));
    f.index = IndexValue(r,
                         "index",
                         r.Raw("index"),
                         fabric.Switches(f.plane, f.tier).size(),
                         "switch",
                         "switches",
                         "tier " + std::to_string(f.tier) + " of plane " + std::to_string(f.plane));
  }
  if (t == "plane_down" || t == "plane_up")
  {
    f.plane = PlaneIndex(r, "plane", fabric);
  }
  if (t == "port_down" || t == "port_up")
  {
    // A NIC port is its GPU's link into the plane; storing it as a selector lets the runner
    // treat it like any other named link.
    f.link.gpu = GpuIndex(r, "gpu", fabric);
    f.link.plane = PlaneIndex(r, "plane", fabric);
    f.link.where = path;
    ResolveLink(fabric, f.link, origin);
  }
  if (t == "gray")
  {
    if (!r.Has("loss_rate") && !r.Has("rate_factor"))
    {
      throw SpecError(origin + ": at " + path +
                      ": a gray failure needs \"loss_rate\" [0, 1], \"rate_factor\" (0, 1] or both");
    }
    f.lossRate = r.Number("loss_rate", 0, 1, 0);
    // A link keeps at least a millionth of its rate: below that a frame's wire time would
    // overflow the simulator's clock (and a rate of 0 is a link_down).
    f.rateFactor = r.Number("rate_factor", kMinRateFactor, 1, 1);
  }
  if (t == "random_links")
  {
    f.linkClass = r.Choice("link_class", { "gpu-t0", "t0-t1" });
    f.mtbfUs = PositiveNumber(r, "mtbf_us", kMaxTimeUs);
    f.mttrUs = PositiveNumber(r, "mttr_us", kMaxTimeUs);
    f.untilUs = PositiveNumber(r, "until_us", kMaxTimeUs);
    if (f.untilUs <= f.atUs)
    {
      r.Fail("until_us", "must be after at_us (" + Fmt(f.atUs) + "), got " + Fmt(f.untilUs));
    }
  }
  r.Finish();
  return f;
}

StopSpec
ParseStop(JsonReader r)
{
  r.Expect({ "sim_time_us", "wall_time_s" });
  StopSpec s;
  s.simTimeUs = PositiveNumber(r, "sim_time_us", kMaxTimeUs, StopSpec::kDefaultSimTimeUs);
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
  s.transports = ParseTransports(r);
  s.workloads = ParseWorkloads(r, fabric);
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

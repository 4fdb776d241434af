// The "sweep" block of a scenario: override paths with lists of values, and seeds; read and
// checked here (ParseSweep), and expanded into its points (ExpandSweep).
#include "sim/scenario/scenario-sweep.h"

#include "sim/scenario/scenario-spec-detail.h"

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace mrcsim
{

namespace detail
{

std::string
Fmt(double x)
{
  std::ostringstream out;
  out << x;
  return out.str();
}

std::string
Shown(const nlohmann::json& v)
{
  std::string s = v.dump();
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

namespace
{

/// Checks one swept value: applied alone to the scenario (without its sweep), the scenario must
/// still read. Combinations are checked when their points run.
void
CheckSweepValue(const JsonReader& r,
                const std::string& key,
                const nlohmann::json& base,
                const std::string& path,
                const nlohmann::json& value,
                const Fabric& fabric)
{
  nlohmann::json document = base;
  try
  {
    ApplyOverride(document, path + "=" + value.dump());
    // A value outside the topology leaves the fabric as it is: no rebuild per value (a 131k
    // fabric takes seconds to build).
    const bool topology = path == "topology" || path.rfind("topology.", 0) == 0;
    ParseScenarioOn(document, r.Origin(), topology ? nullptr : &fabric);
  }
  catch (const SpecError& e)
  {
    // The inner message names the same file; the outer one names it once.
    std::string message = e.what();
    if (message.rfind(r.Origin() + ": ", 0) == 0)
    {
      message = message.substr(r.Origin().size() + 2);
    }
    r.Fail(key, "the value " + Shown(value) + " does not apply: " + message);
  }
}

std::vector<SweepParameter>
ParseSweepParameters(JsonReader& r, const nlohmann::json& document, const Fabric& fabric)
{
  const nlohmann::json& v = r.Raw("parameters");
  if (!v.is_object() || v.empty())
  {
    r.Fail(
      "parameters",
      R"(expected an object of override paths and their values, e.g. {"workloads.0.bytes": [65536, 1048576]}, got )" +
        Shown(v));
  }
  nlohmann::json base = document;
  base.erase("sweep");
  std::vector<SweepParameter> out;
  for (const auto& [path, values] : v.items())
  {
    const std::string key = "parameters/" + path;
    if (path.empty() || path.find('=') != std::string::npos)
    {
      r.Fail(key, "\"" + path + "\" is not an override path; paths are keys and list indices joined by '.'");
    }
    if (path == "seed")
    {
      r.Fail(key, R"(the seed is swept by "seeds" (a list, or {"count": N}), not as a parameter)");
    }
    if (path == "sweep" || path.rfind("sweep.", 0) == 0)
    {
      r.Fail(key, "a sweep cannot change the sweep block");
    }
    if (!values.is_array() || values.empty())
    {
      r.Fail(key, "expected a non-empty list of values, got " + Shown(values));
    }
    for (const SweepParameter& other : out)
    {
      const std::string& a = other.path.size() < path.size() ? other.path : path;
      const std::string& b = other.path.size() < path.size() ? path : other.path;
      if (b.rfind(a + ".", 0) == 0)
      {
        r.Fail(key, "overlaps the parameter \"" + other.path + "\" (one sets a part of the other); sweep one of them");
      }
    }
    for (size_t i = 0; i < values.size(); ++i)
    {
      for (size_t j = 0; j < i; ++j)
      {
        if (values[i] == values[j])
        {
          r.Fail(key + "/" + std::to_string(i),
                 "the value " + Shown(values[i]) + " is listed twice (also at index " + std::to_string(j) + ")");
        }
      }
      CheckSweepValue(r, key + "/" + std::to_string(i), base, path, values[i], fabric);
    }
    out.push_back({ path, values.get<std::vector<nlohmann::json>>() });
  }
  return out;
}

std::vector<uint64_t>
ParseSweepSeeds(JsonReader& r, uint64_t seed)
{
  const nlohmann::json& v = r.Raw("seeds");
  std::vector<uint64_t> seeds;
  if (v.is_array())
  {
    if (v.empty())
    {
      r.Fail("seeds", "expected at least one seed");
    }
    for (size_t i = 0; i < v.size(); ++i)
    {
      const std::string key = "seeds/" + std::to_string(i);
      if (!v[i].is_number_integer() || v[i].get<int64_t>() < 0 || v[i].get<int64_t>() > kMaxExact)
      {
        r.Fail(key, "expected a whole number in [0, " + std::to_string(kMaxExact) + "], got " + Shown(v[i]));
      }
      const uint64_t s = static_cast<uint64_t>(v[i].get<int64_t>());
      if (std::find(seeds.begin(), seeds.end(), s) != seeds.end())
      {
        r.Fail(key, "seed " + std::to_string(s) + " is listed twice");
      }
      seeds.push_back(s);
    }
    return seeds;
  }
  if (!v.is_object())
  {
    r.Fail("seeds",
           R"(expected a list of seeds or {"count": N} (the scenario's seed and the N-1 after it), got )" + Shown(v));
  }
  JsonReader c(v, r.Origin(), r.Path() + "/seeds");
  c.Expect({ "count" });
  const uint64_t count = static_cast<uint64_t>(c.Int("count", 1, kMaxSweepPoints));
  c.Finish();
  if (seed + count - 1 > static_cast<uint64_t>(kMaxExact))
  {
    c.Fail("count",
           std::to_string(count) + " seeds from the scenario's seed " + std::to_string(seed) + " pass " +
             std::to_string(kMaxExact) + "; list the seeds instead");
  }
  for (uint64_t k = 0; k < count; ++k)
  {
    seeds.push_back(seed + k);
  }
  return seeds;
}

} // namespace

SweepSpec
ParseSweep(JsonReader r, const nlohmann::json& document, uint64_t seed, const Fabric& fabric)
{
  r.Expect({ "parameters", "seeds" });
  if (!r.Has("parameters") && !r.Has("seeds"))
  {
    throw SpecError(r.Origin() + ": at " + r.Path() +
                    R"(: a sweep needs "parameters" (override paths and their values), "seeds" or both)");
  }
  SweepSpec sweep;
  if (r.Has("parameters"))
  {
    sweep.parameters = ParseSweepParameters(r, document, fabric);
  }
  sweep.seeds = r.Has("seeds") ? ParseSweepSeeds(r, seed) : std::vector<uint64_t>{ seed };
  r.Finish();
  if (sweep.Points() > kMaxSweepPoints)
  {
    std::string sizes;
    double points = double(sweep.seeds.size());
    for (const SweepParameter& p : sweep.parameters)
    {
      sizes += (sizes.empty() ? "" : " x ") + std::to_string(p.values.size());
      points *= double(p.values.size());
    }
    sizes += (sizes.empty() ? "" : " values x ") + std::to_string(sweep.seeds.size()) + " seeds";
    throw SpecError(r.Origin() + ": at " + r.Path() + ": " + Fmt(points) + " points (" + sizes + ") is more than the " +
                    std::to_string(kMaxSweepPoints) + " a sweep may have; sweep fewer values or split the sweep");
  }
  return sweep;
}

} // namespace detail

uint64_t
SweepSpec::Points() const
{
  // Saturates rather than overflows, so that a huge product is reported as too many points.
  uint64_t points = seeds.size();
  for (const SweepParameter& p : parameters)
  {
    points = points > detail::kMaxSweepPoints ? points : points * p.values.size();
  }
  return points;
}

std::vector<std::string>
SweepParameterOrder(const std::string& text)
{
  const nlohmann::ordered_json document = nlohmann::ordered_json::parse(text, nullptr, false);
  std::vector<std::string> order;
  if (!document.is_object() || !document.contains("sweep") || !document["sweep"].is_object() ||
      !document["sweep"].contains("parameters") || !document["sweep"]["parameters"].is_object())
  {
    return order;
  }
  for (const auto& item : document["sweep"]["parameters"].items())
  {
    order.push_back(item.key());
  }
  return order;
}

std::vector<SweepPoint>
ExpandSweep(const ScenarioSpec& spec, const std::vector<std::string>& order)
{
  if (!spec.sweep)
  {
    throw SpecError(spec.file +
                    R"(: has no sweep block; add "sweep": {"parameters": {PATH: [VALUES]}, "seeds": [...]} )"
                    "(see scenarios/sweep-ev-count.json)");
  }
  // The parameters in the given order, the others after them by path (ParseSweep's order).
  std::vector<const SweepParameter*> parameters;
  for (const SweepParameter& p : spec.sweep->parameters)
  {
    parameters.push_back(&p);
  }
  const auto rank = [&order](const SweepParameter* p)
  { return size_t(std::find(order.begin(), order.end(), p->path) - order.begin()); };
  std::stable_sort(parameters.begin(),
                   parameters.end(),
                   [&rank](const SweepParameter* a, const SweepParameter* b) { return rank(a) < rank(b); });

  std::vector<SweepPoint> points;
  points.reserve(spec.sweep->Points());
  std::vector<size_t> at(parameters.size(), 0); // the value index of each parameter, an odometer
  while (true)
  {
    for (uint64_t seed : spec.sweep->seeds)
    {
      SweepPoint point;
      point.index = points.size();
      point.seed = seed;
      point.document = spec.document;
      ApplyOverride(point.document, "sweep=null");
      ApplyOverride(point.document, "seed=" + std::to_string(seed));
      for (size_t k = 0; k < parameters.size(); ++k)
      {
        const nlohmann::json& value = parameters[k]->values[at[k]];
        point.values.emplace_back(parameters[k]->path, value);
        ApplyOverride(point.document, parameters[k]->path + "=" + value.dump());
      }
      points.push_back(std::move(point));
    }
    // The last parameter turns fastest; when the first rolls over, every combination is done.
    size_t k = parameters.size();
    while (k > 0 && ++at[k - 1] == parameters[k - 1]->values.size())
    {
      at[--k] = 0;
    }
    if (k == 0)
    {
      return points;
    }
  }
}

} // namespace mrcsim

#include "topologies/graphml-io.h"

#include "topologies/graphml-scan.h"
#include "topologies/json-reader.h"

#include <boost/graph/graphml.hpp>
#include <boost/property_map/function_property_map.hpp>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <dlfcn.h>

namespace mrcsim
{

namespace
{

/// Attribute values as written: read_graphml's own conversion (boost::lexical_cast into the
/// declared type) stops at the type's range, not the fabric's, and names no element.
struct RawNode
{
  std::optional<std::string> role;
  std::optional<std::string> tier;
  std::optional<std::string> plane;
};

struct RawEdge
{
  size_t source = 0;
  size_t target = 0;
  std::optional<std::string> rateBps;
  std::optional<std::string> delayNs;
  std::optional<std::string> link; ///< link id: fixes link (hence port) order; file order when absent
};

/// What read_graphml reports, kept as text: vertices and edges in creation order and the
/// attributes a fabric uses (others are ignored, as editors add their own).
class RawGraph : public boost::mutate_graph
{
public:
  bool is_directed() const override { return false; }

  boost::any do_add_vertex() override
  {
    nodes.emplace_back();
    return boost::any(nodes.size() - 1);
  }

  std::pair<boost::any, bool> do_add_edge(boost::any source, boost::any target) override
  {
    RawEdge e;
    e.source = boost::any_cast<size_t>(source);
    e.target = boost::any_cast<size_t>(target);
    edges.push_back(std::move(e));
    return { boost::any(edges.size() - 1), true };
  }

  void set_graph_property(const std::string&, const std::string&, const std::string&) override {}

  void set_vertex_property(const std::string& name,
                           boost::any vertex,
                           const std::string& value,
                           const std::string&) override
  {
    RawNode& n = nodes[boost::any_cast<size_t>(vertex)];
    if (auto* slot = name == "role" ? &n.role : name == "tier" ? &n.tier : name == "plane" ? &n.plane : nullptr)
    {
      *slot = value;
    }
  }

  void set_edge_property(const std::string& name,
                         boost::any edge,
                         const std::string& value,
                         const std::string&) override
  {
    RawEdge& e = edges[boost::any_cast<size_t>(edge)];
    if (auto* slot = name == "rate_bps"   ? &e.rateBps
                     : name == "delay_ns" ? &e.delayNs
                     : name == "link"     ? &e.link
                                          : nullptr)
    {
      *slot = value;
    }
  }

  std::vector<RawNode> nodes;
  std::vector<RawEdge> edges;
};

/// A whole number in [lo, hi] written as optional '-' and decimal digits, nothing else.
bool
ParseWhole(const std::string& text, int64_t lo, int64_t hi, int64_t& out)
{
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && out >= lo && out <= hi;
}

/// Reads one attribute: `where` names the file and element.
class AttributeReader
{
public:
  explicit AttributeReader(std::string where) : m_where(std::move(where)) {}

  [[noreturn]] void Fail(const std::string& attribute, const std::string& message) const
  {
    throw SpecError(m_where + ": attribute " + attribute + ": " + message);
  }

  /// A whole number in [lo, hi]; `fallback` if absent and one is allowed.
  int64_t Whole(const std::string& attribute,
                const std::optional<std::string>& value,
                int64_t lo,
                int64_t hi,
                const std::string& need,
                std::optional<int64_t> fallback = std::nullopt) const
  {
    const std::string range = "a whole number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    if (!value)
    {
      if (fallback)
      {
        return *fallback;
      }
      Fail(attribute, "missing; " + need + " " + range);
    }
    int64_t x = 0;
    if (!ParseWhole(*value, lo, hi, x))
    {
      Fail(attribute, "expected " + range + ", got " + Quoted(*value));
    }
    return x;
  }

private:
  std::string m_where;
};

/// \brief Boost's GraphML parser, from the module that links it (graphml-read-module.cc),
/// loaded at the first call: from MRCSIM_GRAPHML_MODULE in the environment if set, else where
/// the build put it, else next to this code's binary or in ../lib from it (a moved build).
int
ParseGraphml(std::istream& in, boost::mutate_graph& graph, std::string& error)
{
  using Parse = int (*)(std::istream*, boost::mutate_graph*, std::string*);
  static const Parse parse = []
  {
    std::vector<std::string> candidates;
    if (const char* env = std::getenv("MRCSIM_GRAPHML_MODULE"))
    {
      candidates.emplace_back(env);
    }
    else
    {
      candidates.emplace_back(MRCSIM_GRAPHML_MODULE);
      Dl_info self{};
      if (dladdr(reinterpret_cast<void*>(&ParseGraphml), &self) && self.dli_fname)
      {
        std::string dir = self.dli_fname;
        dir = dir.find('/') == std::string::npos ? "." : dir.substr(0, dir.rfind('/'));
        const std::string name = MRCSIM_GRAPHML_MODULE_NAME;
        candidates.push_back(dir + "/" + name);
        candidates.push_back(dir + "/../lib/" + name);
      }
    }
    std::string tried;
    for (const std::string& path : candidates)
    {
      if (void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL))
      {
        if (auto fn = reinterpret_cast<Parse>(dlsym(module, "mrcsim_read_graphml")))
        {
          return fn;
        }
        tried += "\n  " + path + ": " + dlerror();
        dlclose(module);
      }
      else
      {
        tried += "\n  " + std::string(dlerror());
      }
    }
    throw std::runtime_error("cannot load the GraphML reader module (set MRCSIM_GRAPHML_MODULE to its path):" + tried);
  }();
  return parse(&in, &graph, &error);
}

} // namespace

void
WriteFabricGraphml(const Fabric& fabric, std::ostream& out)
{
  const FabricGraph& g = fabric.Graph();
  boost::dynamic_properties dp;
  auto role = boost::make_function_property_map<VertexId, std::string>(
    [&g](VertexId v) { return std::string(g[v].role == NodeRole::Gpu ? "gpu" : "switch"); });
  auto tier = boost::make_function_property_map<VertexId, int>([&g](VertexId v) { return int(g[v].tier); });
  auto plane = boost::make_function_property_map<VertexId, int>([&g](VertexId v) { return int(g[v].plane); });
  auto rate =
    boost::make_function_property_map<EdgeId, long>([&g](EdgeId e) { return static_cast<long>(g[e].rateBps); });
  auto delay =
    boost::make_function_property_map<EdgeId, long>([&g](EdgeId e) { return static_cast<long>(g[e].delayNs); });
  dp.property("role", role);
  dp.property("tier", tier);
  dp.property("plane", plane);
  auto id = boost::make_function_property_map<EdgeId, long>([&g](EdgeId e) { return static_cast<long>(g[e].id); });
  dp.property("rate_bps", rate);
  dp.property("delay_ns", delay);
  dp.property("link", id);
  boost::write_graphml(out, g, boost::get(boost::vertex_index, g), dp, true);
}

void
WriteFabricGraphml(const Fabric& fabric, const std::string& file)
{
  std::ofstream out(file);
  if (!out)
  {
    throw SpecError(file + ": cannot open for writing");
  }
  WriteFabricGraphml(fabric, out);
}

namespace
{

Fabric
ReadFabricGraphmlText(const std::string& text, const std::string& origin)
{
  // Depth first: Boost's parser would overflow the stack on deep XML.
  const GraphmlOutline outline = ScanGraphml(text, origin);
  RawGraph raw;
  std::string error;
  {
    std::istringstream in(text);
    if (ParseGraphml(in, raw, error) != 0)
    {
      throw SpecError(origin + ": not readable as GraphML: " + error);
    }
  }
  // The outline names what Boost created, in the same order; should they ever disagree, name
  // elements by position rather than by a wrong id.
  const bool named = outline.nodes.size() == raw.nodes.size() && outline.edges.size() == raw.edges.size();
  auto nodeName = [&](size_t v) { return named ? "node " + Quoted(outline.nodes[v]) : "node #" + std::to_string(v); };
  auto edgeName = [&](size_t e) { return named ? GraphmlEdgeName(outline.edges[e], e) : "edge #" + std::to_string(e); };
  if (raw.edges.size() > kMaxLinks)
  {
    throw SpecError(origin + ": " + std::to_string(raw.edges.size()) + " edges; at most " + std::to_string(kMaxLinks));
  }

  Fabric f(origin);
  for (size_t v = 0; v < raw.nodes.size(); ++v)
  {
    const RawNode& n = raw.nodes[v];
    AttributeReader r(origin + ": " + nodeName(v));
    if (n.role == "gpu")
    {
      // The writer puts -1; any other tier or plane on a GPU is a mistake, not something to drop.
      for (const auto& [attribute, value] : { std::pair{ "tier", &n.tier }, std::pair{ "plane", &n.plane } })
      {
        if (*value && **value != "-1")
        {
          r.Fail(attribute, "a GPU has none; expected -1 or no value, got " + Quoted(**value));
        }
      }
      f.AddGpu();
    }
    else if (n.role == "switch")
    {
      const int64_t tier = r.Whole("tier", n.tier, 0, kMaxTiers - 1, "a switch needs");
      const int64_t plane = r.Whole("plane", n.plane, 0, kMaxPlanes - 1, "a switch needs");
      try
      {
        f.AddSwitch(static_cast<int>(plane), static_cast<int>(tier));
      }
      catch (const std::invalid_argument& e)
      {
        throw SpecError(origin + ": " + nodeName(v) + ": " + e.what());
      }
    }
    else
    {
      r.Fail("role",
             n.role ? "expected \"gpu\" or \"switch\", got " + Quoted(*n.role)
                    : "missing; expected \"gpu\" or \"switch\"");
    }
  }

  struct Link
  {
    size_t edge;
    int64_t id; ///< -1 when absent: such links come first, in file order
    uint64_t rateBps;
    uint32_t delayNs;
  };
  std::vector<Link> links;
  for (size_t e = 0; e < raw.edges.size(); ++e)
  {
    const RawEdge& l = raw.edges[e];
    AttributeReader r(origin + ": " + edgeName(e));
    const int64_t rate =
      r.Whole("rate_bps", l.rateBps, int64_t(kMinLinkRateBps), int64_t(kMaxLinkRateBps), "an edge needs");
    const int64_t delay = r.Whole("delay_ns", l.delayNs, 0, kMaxLinkDelayNs, "an edge needs");
    const int64_t id = r.Whole("link", l.link, 0, UINT32_MAX, "", -1);
    links.push_back({ e, id, static_cast<uint64_t>(rate), static_cast<uint32_t>(delay) });
  }
  // Link ids restore link order (files written by other tools may list edges in any order).
  std::stable_sort(links.begin(), links.end(), [](const Link& a, const Link& b) { return a.id < b.id; });
  for (const Link& l : links)
  {
    try
    {
      f.AddLink(raw.edges[l.edge].source, raw.edges[l.edge].target, l.rateBps, l.delayNs);
    }
    catch (const std::exception& e)
    {
      throw SpecError(origin + ": " + edgeName(l.edge) + ": " + e.what());
    }
  }
  try
  {
    f.Validate();
  }
  catch (const std::exception& e)
  {
    throw SpecError(origin + ": " + e.what());
  }
  return f;
}

} // namespace

Fabric
ReadFabricGraphml(std::istream& in, const std::string& origin)
{
  return ReadFabricGraphmlText(ReadInputStream(in, origin, "GraphML", kMaxGraphmlBytes), origin);
}

Fabric
ReadFabricGraphml(const std::string& file)
{
  return ReadFabricGraphmlText(ReadInputFile(file, "GraphML", kMaxGraphmlBytes), file);
}

} // namespace mrcsim

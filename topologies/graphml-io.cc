#include "topologies/graphml-io.h"

#include "topologies/json-reader.h"

#include <boost/graph/graphml.hpp>
#include <boost/property_map/function_property_map.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <vector>

#include <dlfcn.h>

namespace mrcsim
{

namespace
{

struct RawNode
{
  std::string role;
  int tier = -1;
  int plane = -1;
};

struct RawLink
{
  long rateBps = 0;
  long delayNs = -1;
  long id = -1; ///< link id: fixes link (hence port) order; file order when absent
};

using RawGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, RawNode, RawLink>;

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

Fabric
ReadFabricGraphml(std::istream& in, const std::string& origin)
{
  RawGraph raw;
  boost::dynamic_properties dp(boost::ignore_other_properties);
  dp.property("role", boost::get(&RawNode::role, raw));
  dp.property("tier", boost::get(&RawNode::tier, raw));
  dp.property("plane", boost::get(&RawNode::plane, raw));
  dp.property("rate_bps", boost::get(&RawLink::rateBps, raw));
  dp.property("delay_ns", boost::get(&RawLink::delayNs, raw));
  dp.property("link", boost::get(&RawLink::id, raw));
  boost::mutate_graph_impl<RawGraph> graph(raw, dp);
  std::string error;
  if (ParseGraphml(in, graph, error) != 0)
  {
    throw SpecError(origin + ": not readable as GraphML: " + error);
  }

  Fabric f(origin);
  for (size_t v = 0; v < boost::num_vertices(raw); ++v)
  {
    const RawNode& n = raw[v];
    auto where = origin + ": node " + std::to_string(v) + ": ";
    if (n.role == "gpu")
    {
      f.AddGpu();
    }
    else if (n.role == "switch")
    {
      if (n.tier < 0 || n.plane < 0)
      {
        throw SpecError(where + "a switch needs attributes tier >= 0 and plane >= 0 (got tier " +
                        std::to_string(n.tier) + ", plane " + std::to_string(n.plane) + ")");
      }
      f.AddSwitch(n.plane, n.tier);
    }
    else
    {
      throw SpecError(where + "attribute role must be \"gpu\" or \"switch\", got \"" + n.role + "\"");
    }
  }
  // Link ids restore link order (files written by other tools may list edges in any order).
  std::vector<RawGraph::edge_descriptor> order;
  for (auto [it, end] = boost::edges(raw); it != end; ++it)
  {
    order.push_back(*it);
  }
  std::stable_sort(order.begin(), order.end(), [&raw](auto a, auto b) { return raw[a].id < raw[b].id; });
  for (size_t i = 0; i < order.size(); ++i)
  {
    const RawLink& l = raw[order[i]];
    auto it = &order[i];
    if (l.rateBps <= 0 || l.delayNs < 0)
    {
      throw SpecError(origin + ": edge " + std::to_string(i) + ": needs rate_bps > 0 and delay_ns >= 0 (got " +
                      std::to_string(l.rateBps) + ", " + std::to_string(l.delayNs) + ")");
    }
    try
    {
      f.AddLink(boost::source(*it, raw),
                boost::target(*it, raw),
                static_cast<uint64_t>(l.rateBps),
                static_cast<uint32_t>(l.delayNs));
    }
    catch (const std::exception& e)
    {
      throw SpecError(origin + ": edge " + std::to_string(i) + ": " + e.what());
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

Fabric
ReadFabricGraphml(const std::string& file)
{
  std::ifstream in(file);
  if (!in)
  {
    throw SpecError(file + ": cannot open GraphML file");
  }
  return ReadFabricGraphml(in, file);
}

} // namespace mrcsim

// A pre-scan of GraphML text before Boost parses it. Boost's reader (property_tree over
// rapidxml) recurses once per element level, both parsing and freeing, so deep XML overflows the
// stack: the scan refuses it first. Boost also hides the node and edge ids from the graph it
// fills; the scan collects them in the order Boost creates the vertices and edges, so errors can
// name the element a user wrote.
#ifndef MRCSIM_TOPOLOGIES_GRAPHML_SCAN_H
#define MRCSIM_TOPOLOGIES_GRAPHML_SCAN_H

#include <cstdint>
#include <string>
#include <vector>

namespace mrcsim
{

/// Deepest element nesting accepted in GraphML. A fabric needs 4 levels (graphml, graph, node,
/// data) and editors such as yEd add a few more inside <data>.
constexpr int kMaxXmlDepth = 64;
/// Largest GraphML input read (1 GiB), 2.5 times the 131,072-GPU preset's 400 MB export: a
/// device such as /dev/zero given as the file is refused instead of filling memory.
constexpr uint64_t kMaxGraphmlBytes = uint64_t(1) << 30;

/// \brief The nodes and edges of a document's first <graph>, in file order, which is the order
/// in which boost::read_graphml creates vertices and edges once every edge joins declared nodes.
struct GraphmlOutline
{
  struct Edge
  {
    std::string id; ///< "" if the edge has none
    std::string source;
    std::string target;
  };
  std::vector<std::string> nodes; ///< node ids
  std::vector<Edge> edges;
};

/// \brief A value from the file as messages show it: in double quotes, JSON-escaped, invalid
/// UTF-8 replaced and anything past 60 bytes cut ("..." after the quote).
std::string Quoted(const std::string& value);

/// \brief How messages name an edge: `edge "ID"`, or `edge #INDEX ("SOURCE" -- "TARGET")` (file
/// order, from 0) when it has no id.
std::string GraphmlEdgeName(const GraphmlOutline::Edge& edge, size_t index);

/// \brief Scans GraphML text: refuses elements nested deeper than kMaxXmlDepth, a node id
/// declared twice, an edge to an undeclared node and a <graph> directly inside the first graph
/// (which Boost would read in a different order); throws SpecError naming `origin` and the byte
/// or element. A malformed tag is refused too (its depth could not be counted); other
/// text that is not well-formed XML is left for Boost to report.
GraphmlOutline ScanGraphml(const std::string& text, const std::string& origin);

} // namespace mrcsim

#endif

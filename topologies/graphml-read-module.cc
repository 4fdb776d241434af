// The one part of GraphML import that needs Boost's compiled graph library: its parser
// (boost::read_graphml). It is a module of its own, loaded when a GraphML file is read
// (graphml-io.cc), so that runs which read none do not load that library, nor Boost.Regex and
// ICU behind it (2 MiB resident).
#include <boost/graph/graphml.hpp>

#include <exception>
#include <istream>
#include <string>

/// \brief Parses GraphML from `in` into `graph`. Returns 0, or 1 with the parser's message in
/// `error`.
extern "C" __attribute__((visibility("default"))) int
mrcsim_read_graphml(std::istream* in, boost::mutate_graph* graph, std::string* error)
{
  try
  {
    boost::read_graphml(*in, *graph, 0);
    return 0;
  }
  catch (const std::exception& e)
  {
    *error = e.what();
    return 1;
  }
}

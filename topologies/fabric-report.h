// What `mrcsim topo --json` reports on a built fabric: its figures, the spec it came from, its
// routing (ECMP groups, table size, reachability with some links down) and optionally a routing
// check. Shared by the CLI and the Python module; printing stays with the CLI.
#ifndef MRCSIM_TOPOLOGIES_FABRIC_REPORT_H
#define MRCSIM_TOPOLOGIES_FABRIC_REPORT_H

#include "topologies/fabric-figures.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <vector>

namespace mrcsim
{

/// \brief What to compute besides the figures.
struct FabricReportOptions
{
  bool groups = true;                ///< build ECMP groups (the figures need only distances)
  bool check = false;                ///< validate routing (exhaustive on small fabrics, else 100k walks)
  std::vector<uint32_t> failedLinks; ///< link ids marked down before routing
};

/// \brief The report of one fabric.
struct FabricReport
{
  FabricFigures figures;
  /// FiguresToJson(figures) plus "spec", "routing" and, when asked, "check".
  nlohmann::json json;
  bool checkOk = true; ///< false only when a requested check failed
};

/// \brief Routes `fabric` (built from `spec`) with `options.failedLinks` down and reports on it.
/// Throws std::invalid_argument on a link id beyond the fabric.
FabricReport ReportFabric(const Fabric& fabric, const FabricSpec& spec, const FabricReportOptions& options);

} // namespace mrcsim

#endif

#include "topologies/fabric-report.h"

#include "topologies/routing-check.h"

#include <stdexcept>
#include <string>

namespace mrcsim
{

FabricReport
ReportFabric(const Fabric& fabric, const FabricSpec& spec, const FabricReportOptions& options)
{
  FabricRouting routing(fabric, options.groups);
  for (uint32_t link : options.failedLinks)
  {
    if (link >= fabric.NumLinks())
    {
      throw std::invalid_argument("link " + std::to_string(link) + " does not exist; expected a link id in [0, " +
                                  std::to_string(fabric.NumLinks() - 1) + "]");
    }
    routing.SetLinkUp(link, false);
  }
  routing.Update();

  FabricReport report;
  report.figures = ComputeFigures(fabric, routing, spec.kind, spec.power);
  ReachabilityReport reach = routing.Reachability();
  report.json = FiguresToJson(report.figures);
  report.json["spec"] = FabricSpecToJson(spec);
  report.json["routing"] = { { "ecmp_groups", routing.NumGroups() },
                             { "table_bytes", routing.MemoryBytes() },
                             { "failed_links", options.failedLinks.size() },
                             { "unreachable_pairs_per_plane", reach.unreachablePerPlane },
                             { "detached_gpus_per_plane", reach.detachedPerPlane },
                             { "unreachable_pairs_all_planes", reach.unreachableInAllPlanes } };
  if (options.check)
  {
    RoutingCheckResult check = CheckRouting(routing, 100000, 1);
    report.json["check"] = { { "ok", check.Ok() },
                             { "paths_walked", check.pathsWalked },
                             { "error", check.firstError } };
    report.checkOk = check.Ok();
  }
  return report;
}

} // namespace mrcsim

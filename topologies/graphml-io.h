// GraphML import and export of fabrics, so people can bring their own. Nodes carry `role`
// ("gpu" or "switch"), `tier` and `plane`; edges carry `rate_bps` and `delay_ns`. Edge order is
// link order, which fixes port numbering: export then import gives the same fabric.
#ifndef MRCSIM_TOPOLOGIES_GRAPHML_IO_H
#define MRCSIM_TOPOLOGIES_GRAPHML_IO_H

#include "topologies/fabric.h"

#include <iosfwd>
#include <string>

namespace mrcsim
{

/// \brief Writes a fabric as GraphML.
void WriteFabricGraphml(const Fabric& fabric, std::ostream& out);
void WriteFabricGraphml(const Fabric& fabric, const std::string& file);

/// \brief Reads a fabric from GraphML; throws SpecError naming the file, the element (by id)
/// and the attribute. Every attribute is range-checked as written, never truncated: tier in
/// [0, kMaxTiers), plane in [0, kMaxPlanes) (-1 or absent on GPUs), rate_bps in [kMinLinkRateBps,
/// kMaxLinkRateBps], delay_ns in [0, kMaxLinkDelayNs], link in [0, 2^32). Deep XML, node ids
/// declared twice, edges to undeclared nodes and fabrics without a GPU are refused
/// (graphml-scan.h).
Fabric ReadFabricGraphml(std::istream& in, const std::string& origin);
Fabric ReadFabricGraphml(const std::string& file);

} // namespace mrcsim

#endif

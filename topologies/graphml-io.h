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

/// \brief Reads a fabric from GraphML; throws SpecError naming the file and the bad element.
Fabric ReadFabricGraphml(std::istream& in, const std::string& origin);
Fabric ReadFabricGraphml(const std::string& file);

} // namespace mrcsim

#endif

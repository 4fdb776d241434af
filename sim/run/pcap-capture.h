// Packet captures of a scenario run (`outputs.pcap`): both ends of every selected link write a pcap
// file (models/fabric/fabric-pcap-writer.h: the frames' wire bytes, nanosecond timestamps) into the run's
// output directory, pcap/<node>-port<k>.pcap, e.g. pcap/gpu0-port0.pcap, pcap/p0.t0.0-port16.pcap.
// Leaves out captures of parallel runs: frames become ns-3 Packets to be written, which only one
// thread may do.
#ifndef MRCSIM_SIM_RUN_PCAP_CAPTURE_H
#define MRCSIM_SIM_RUN_PCAP_CAPTURE_H

#include "sim/scenario/scenario-spec.h"

#include "models/fabric/fabric-network.h"

#include <string>
#include <vector>

namespace mrcsim
{

/// \brief The file name of the capture of port `port` of vertex `v` (relative to the output
/// directory).
std::string PcapFileName(const Fabric& fabric, VertexId v, uint16_t port);

/// \brief Turns on the captures `spec.outputs.pcap` asks for, in `outDir`/pcap/ (created).
/// Returns the files, in the order of the selectors (a port named twice is captured once).
/// Throws SpecError, naming the scenario file and /outputs/pcap, if there is no output directory
/// or the run is split into more than one partition. Call it after the network is built and
/// partitioned and before the simulation runs.
std::vector<std::string> EnablePcapCaptures(const ScenarioSpec& spec,
                                            const Fabric& fabric,
                                            ns3::FabricNetwork& net,
                                            const std::string& outDir);

} // namespace mrcsim

#endif

// Declarative descriptions of fabrics (multiplane two-tier, fat tree, rail-optimised fat tree,
// GraphML file) and the power model used for estimates. Parsing is strict: unknown keys and
// impossible combinations are errors naming the key and what is allowed.
#ifndef MRCSIM_TOPOLOGIES_FABRIC_SPEC_H
#define MRCSIM_TOPOLOGIES_FABRIC_SPEC_H

#include "topologies/fabric.h"
#include "topologies/json-reader.h"
#include "topologies/scale-up-spec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mrcsim
{

/// \brief One-way propagation delays of the two classes of link (docs/MODEL.md, "Links"), by cable
/// length at 4.9 ns/m of single-mode fibre (CommScope, "Latency in optical fibers", 2017): 5 m of
/// copper or active optical cable between a NIC and its leaf in the same rack (Meta cables servers
/// to their rack switch with copper: Gangidi et al., "RDMA over Ethernet for Distributed AI
/// Training at Meta Scale", SIGCOMM 2024), 25 ns; 100 m of fibre between rows, 490 ns.
struct LinkDelays
{
  uint32_t gpuNs = 25;     ///< GPU (NIC port) to tier-0 switch
  uint32_t fabricNs = 490; ///< between switches, every tier
};

/// \brief P independent two-tier Clos planes; each GPU's NIC has one port in every plane.
struct MultiplaneSpec
{
  int planes = 8;
  double portRateGbps = 100; ///< every link (NIC port, T0 up and down ports)
  uint32_t gpus = 0;
  uint32_t t0DownPorts = 0; ///< GPU-facing ports per T0
  uint32_t t0UpPorts = 0;   ///< T1-facing ports per T0 (spread evenly over the T1s)
  uint32_t t0PerPlane = 0;  ///< 0: ceil(gpus / t0DownPorts)
  uint32_t t1PerPlane = 0;
  uint32_t switchPorts = 0; ///< switch radix; 0: not checked
  LinkDelays delays;
  std::vector<int> nicPortPlanes; ///< plane of NIC port i; empty: port i -> plane i
};

/// \brief A single-plane k-ary fat tree of 2-4 tiers built from the switch radix, optionally
/// rail-optimised (servers of G GPUs; GPU i of each server on a rail-i leaf).
struct FatTreeSpec
{
  int tiers = 3;
  uint32_t radix = 64;
  double portRateGbps = 800;
  uint32_t gpus = 0;
  LinkDelays delays;
  uint32_t gpusPerServer = 0; ///< > 0: rail-optimised
};

/// \brief Power estimate parameters (assumptions, not measurements; override per study).
struct PowerModel
{
  double switchWatts = 750;      ///< per switch without optics (51.2 Tb/s class system)
  double portWattsPer100G = 2.0; ///< per link end, optics and SerDes, per 100 Gb/s of port rate
};

/// \brief Any fabric the generator can build.
struct FabricSpec
{
  std::string name = "fabric";
  std::string kind; ///< "multiplane", "fat_tree", "rail_optimized", "graphml"
  MultiplaneSpec multiplane;
  FatTreeSpec fatTree;
  std::string graphmlFile;
  PowerModel power;
  ScaleUpSpec scaleUp; ///< "scale_up": GPUs grouped in scale-up domains (none by default)
};

/// \brief The kinds a spec may name.
const std::vector<std::string>& FabricKinds();

/// \brief Reads a spec from a JSON object; `reader` names the file and path in errors.
FabricSpec ParseFabricSpec(JsonReader& reader);
/// \brief Reads a spec from a JSON file.
FabricSpec ReadFabricSpecFile(const std::string& file);
/// \brief Writes a spec as JSON (inverse of ParseFabricSpec).
nlohmann::json FabricSpecToJson(const FabricSpec& spec);

/// \brief Checks a spec, whether parsed or built in code: every field in the range
/// ParseFabricSpec allows, and a fabric the code can name and hold (at most kMaxSwitchesPerSlot
/// switches per tier of a plane, kMaxLinks links). Throws SpecError naming the field and what
/// is allowed.
void CheckFabricSpec(const FabricSpec& spec, const std::string& origin);

/// \brief Checks a spec's scale-up domains against a fabric of `gpus` GPUs (CheckFabricSpec does
/// it where the spec gives the count; a GraphML fabric is checked once built). Throws SpecError.
void CheckScaleUp(const ScaleUpSpec& scaleUp, uint64_t gpus, const std::string& where);

/// \brief Builds the fabric a spec describes (after CheckFabricSpec).
Fabric BuildFabric(const FabricSpec& spec, const std::string& origin = "<spec>");

/// \brief Generators, one per kind (see multiplane-generator.cc, fat-tree-generator.cc).
Fabric BuildMultiplane(const MultiplaneSpec& spec, const std::string& name);
Fabric BuildFatTree(const FatTreeSpec& spec, const std::string& name);

/// \brief Largest GPU count a fat tree of `tiers` tiers and radix k holds: k * (k/2)^(tiers-1).
uint64_t FatTreeMaxGpus(int tiers, uint32_t radix);

/// \brief Switches per tier and links BuildFatTree makes for a spec, computed without building
/// it (CheckFabricSpec bounds them). The spec's tiers, radix and servers must be in range.
struct FatTreeShape
{
  std::vector<uint64_t> switchesPerTier;
  uint64_t links = 0;
};
FatTreeShape FatTreeShapeOf(const FatTreeSpec& spec);

/// \brief A named spec shipped with the tool.
struct Preset
{
  std::string name;
  std::string description;
  FabricSpec spec;
};

const std::vector<Preset>& Presets();
/// \brief A preset by name; throws SpecError listing the names if unknown.
FabricSpec PresetSpec(const std::string& name);

} // namespace mrcsim

#endif

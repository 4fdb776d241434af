// The transport registry: each transport (mrc, rocev2) with the keys it takes beyond type, label
// and attributes, the reader of those keys, the fabric policy it sets before a run and how it
// connects two GPUs. A new transport is one entry here (and its functions in
// transport-types.cc); this is the only place in sim/ that names a transport's QP class.
#ifndef MRCSIM_SIM_NETWORK_TRANSPORT_TYPES_H
#define MRCSIM_SIM_NETWORK_TRANSPORT_TYPES_H

#include "sim/references/ideal-model.h"
#include "sim/scenario/scenario-spec.h"
#include "sim/scenario/type-registry.h"

#include "models/fabric/fabric-network.h"
#include "models/rdma/rdma-queue-pair.h"

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace mrcsim
{

/// \brief The two QPs of one connection: the lower GPU's first.
using QpPair = std::pair<ns3::Ptr<ns3::RdmaQueuePair>, ns3::Ptr<ns3::RdmaQueuePair>>;

/// \brief Connects GPUs a < b: the QP pairs carrying their messages (several: a message is split
/// evenly over them).
using Connector = std::function<std::vector<QpPair>(uint32_t a, uint32_t b)>;

/// \brief What a transport's fabric policy is set on.
struct FabricPolicyContext
{
  ns3::FabricNetwork& net;
  /// Attribute names (without the type) the scenario set itself: the policy leaves those alone.
  const std::set<std::string>& userSet;
  const IdealModel& ideal;
};

/// \brief One transport.
struct TransportType : TypeKeys
{
  /// \brief Reads the transport's own keys into `t` (type and label are read); throws SpecError
  /// through `r`.
  void (*parse)(JsonReader& r, TransportSpec& t) = nullptr;
  /// \brief Sets the fabric's port policy for this transport (before any QP exists).
  void (*configureFabric)(const FabricPolicyContext& fabric) = nullptr;
  /// \brief What connects a run's GPUs (Connector), made once per run when its first connection
  /// is asked for, after the run's attribute defaults are set: it may build there what every
  /// connection copies (a QP prototype, MrcQueuePair::CreatePrototype).
  Connector (*connector)(ns3::FabricNetwork& net, const TransportSpec& t) = nullptr;
};

/// \brief The transports, in the order messages list them.
const TypeRegistry<TransportType>& TransportTypes();

/// \brief Adds a transport defined outside the library (docs/EXTENDING.md, "A transport"): from
/// then on scenarios may name it and runs connect GPUs with it. Call before reading scenarios.
/// Aborts if the name is taken or `parse`, `configureFabric` or `connector` is missing.
void RegisterTransportType(TransportType type);

} // namespace mrcsim

#endif

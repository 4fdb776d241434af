// The ports of a model test's fabric as the scenario runner sets them for RoCEv2: PFC on, and
// switches that mark as the default DCQCN profile's source says (its Kmax lies above the ports'
// 1 MiB data limit), at 100 Gb/s.
#ifndef MRCSIM_TESTS_MODELS_ROCE_FABRIC_H
#define MRCSIM_TESTS_MODELS_ROCE_FABRIC_H

#include "models/fabric/fabric-network.h"
#include "models/roce/dcqcn-rate-control.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/uinteger.h"

namespace mrcsim::test
{

inline void
RoceFabric(ns3::FabricNetwork& net)
{
  for (auto cfg : { net.GetFabricPortConfig(), net.GetLastHopPortConfig(), net.GetNicPortConfig() })
    cfg->SetAttribute("PfcEnabled", ns3::BooleanValue(true));
  const auto ecn =
    ns3::DcqcnRateControl::EcnThresholdsOf(ns3::DcqcnRateControl::DefaultProfile(), ns3::DataRate("100Gb/s"));
  for (auto cfg : { net.GetFabricPortConfig(), net.GetLastHopPortConfig() })
  {
    cfg->SetAttribute("EcnKmin", ns3::UintegerValue(ecn.kminBytes));
    cfg->SetAttribute("EcnKmax", ns3::UintegerValue(ecn.kmaxBytes));
    cfg->SetAttribute("EcnPmax", ns3::DoubleValue(ecn.pmax));
  }
}

} // namespace mrcsim::test

#endif

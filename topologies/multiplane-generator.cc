// Multiplane two-tier generator: P planes, each an independent T0/T1 Clos; GPU g's NIC port i
// goes to T0 floor(g / t0DownPorts) of plane nicPortPlanes[i]. T0 up-port u goes to T1 u mod T1s,
// so U / T1s parallel links join each T0-T1 pair.
#include "topologies/fabric-spec.h"

#include <cmath>

namespace mrcsim
{

Fabric
BuildMultiplane(const MultiplaneSpec& m, const std::string& name)
{
  Fabric f(name);
  const uint64_t rate = static_cast<uint64_t>(std::llround(m.portRateGbps * 1e9));
  const uint32_t t0Count = m.t0PerPlane ? m.t0PerPlane : (m.gpus + m.t0DownPorts - 1) / m.t0DownPorts;

  std::vector<std::vector<VertexId>> t0(m.planes);
  std::vector<std::vector<VertexId>> t1(m.planes);
  for (int p = 0; p < m.planes; ++p)
  {
    for (uint32_t i = 0; i < t0Count; ++i)
      t0[p].push_back(f.AddSwitch(p, 0));
    for (uint32_t j = 0; j < m.t1PerPlane; ++j)
      t1[p].push_back(f.AddSwitch(p, 1));
  }
  for (uint32_t g = 0; g < m.gpus; ++g)
  {
    VertexId gpu = f.AddGpu();
    for (int port = 0; port < m.planes; ++port)
    {
      int plane = m.nicPortPlanes.empty() ? port : m.nicPortPlanes[port];
      f.AddLink(gpu, t0[plane][g / m.t0DownPorts], rate, m.delays.gpuNs);
    }
  }
  for (int p = 0; p < m.planes; ++p)
  {
    for (uint32_t i = 0; i < t0Count; ++i)
    {
      for (uint32_t u = 0; u < m.t0UpPorts; ++u)
        f.AddLink(t0[p][i], t1[p][u % m.t1PerPlane], rate, m.delays.fabricNs);
    }
  }
  return f;
}

} // namespace mrcsim

#include "models/fabric/pfc-accountant.h"

#include "models/fabric/fabric-port.h"

#include "ns3/log.h"
#include "ns3/node.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricPfcAccountant");

void
FabricPfcAccountant::AddPort(FabricPort* port)
{
  m_ports.push_back(port);
  m_bytes.emplace_back();
  m_headroom.push_back(0);
}

void
FabricPfcAccountant::Clear()
{
  m_ports.clear();
  m_bytes.clear();
  m_headroom.clear();
}

bool
FabricPfcAccountant::Admits(FabricPort& in, uint8_t cls, uint32_t bytes)
{
  const uint16_t i = static_cast<uint16_t>(in.GetIfIndex());
  if (m_headroom[i] == 0)
  {
    m_headroom[i] = in.PfcHeadroom();
  }
  return m_bytes[i][cls] + bytes <= in.QueueConfig()->PfcXoff() + m_headroom[i];
}

void
FabricPfcAccountant::Charge(FabricPort& in, uint8_t cls, uint32_t bytes)
{
  uint32_t& queued = m_bytes[in.GetIfIndex()][cls];
  queued += bytes;
  if (queued > in.QueueConfig()->PfcXoff() && !in.IsPausingUpstream(cls))
  {
    NS_LOG_LOGIC("port " << in.GetIfIndex() << " class " << int(cls) << ": " << queued << " bytes > XOFF, PAUSE");
    in.PauseUpstream(cls, true);
  }
}

void
FabricPfcAccountant::Release(uint16_t in, uint8_t cls, uint32_t bytes)
{
  uint32_t& queued = m_bytes[in][cls];
  queued -= bytes;
  FabricPort& port = *m_ports[in];
  if (port.IsPausingUpstream(cls) && queued <= port.QueueConfig()->PfcXon())
  {
    NS_LOG_LOGIC("port " << in << " class " << int(cls) << ": " << queued << " bytes <= XON, RESUME");
    port.PauseUpstream(cls, false);
  }
}

} // namespace ns3

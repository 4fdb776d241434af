#include "sim/workloads/flow-workload.h"

#include "ns3/abort.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace mrcsim
{

FlowListWorkload::FlowListWorkload(std::string name,
                                   std::shared_ptr<const FlowList> flows,
                                   std::vector<uint32_t> gpus,
                                   ns3::Time start,
                                   const IdealModel& ideal)
  : Workload(std::move(name))
  , m_flows(std::move(flows))
  , m_gpus(std::move(gpus))
  , m_start(start)
  , m_ideal(ideal)
  , m_dependents(m_flows->flows.size())
  , m_waiting(m_flows->flows.size())
{
  NS_ABORT_MSG_IF(m_flows->nodes > m_gpus.size(),
                  "FlowListWorkload " << m_name << ": " << m_flows->nodes << " nodes on " << m_gpus.size() << " GPUs");
  for (uint32_t i = 0; i < m_flows->flows.size(); ++i)
  {
    const FlowEntry& f = m_flows->flows[i];
    m_waiting[i] = f.need;
    for (uint32_t d : f.after)
    {
      m_dependents[d].push_back(i);
    }
    m_bytesTotal += f.bytes;
  }
}

void
FlowListWorkload::Start(MessageService& service)
{
  NS_ABORT_MSG_IF(m_service != nullptr, "FlowListWorkload " << m_name << ": started twice");
  m_service = &service;
  for (uint32_t i = 0; i < m_flows->flows.size(); ++i)
  {
    if (m_waiting[i] == 0)
    {
      Ready(i);
    }
  }
}

void
FlowListWorkload::Ready(uint32_t f)
{
  const ns3::Time at = m_start + MicrosecondsToTime(m_flows->flows[f].startUs);
  const ns3::Time now = ns3::Simulator::Now();
  if (at > now)
  {
    ns3::Simulator::Schedule(at - now, &FlowListWorkload::Post, this, f);
  }
  else
  {
    Post(f);
  }
}

void
FlowListWorkload::Post(uint32_t f)
{
  const FlowEntry& flow = m_flows->flows[f];
  const uint32_t src = m_gpus[flow.src];
  const uint32_t dst = m_gpus[flow.dst];
  const std::size_t message = RecordMessage(src, dst, flow.bytes, m_ideal.MessageTime(src, dst, flow.bytes));
  m_bytesPosted += flow.bytes;
  m_service->Send(src, dst, flow.bytes, [this, f, message] { OnDone(f, message); });
}

void
FlowListWorkload::OnDone(uint32_t f, std::size_t message)
{
  m_messages[message].done = ns3::Simulator::Now();
  ++m_done;
  for (uint32_t d : m_dependents[f])
  {
    // A oneshot trigger needs one of several completions: the later ones find it already at 0.
    if (m_waiting[d] > 0 && --m_waiting[d] == 0)
    {
      Ready(d);
    }
  }
}

} // namespace mrcsim

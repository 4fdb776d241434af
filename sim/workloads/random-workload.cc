#include "sim/workloads/random-workload.h"

#include "models/engine/splitmix.h"

#include "ns3/abort.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>

namespace mrcsim
{

RandomWorkload::RandomWorkload(std::string name,
                               std::vector<uint32_t> gpus,
                               uint64_t bytes,
                               double load,
                               ns3::Time start,
                               ns3::Time duration,
                               uint64_t seed,
                               const IdealModel& ideal)
  : Workload(std::move(name))
  , m_gpus(std::move(gpus))
  , m_next(m_gpus.size())
  , m_bytes(bytes)
  , m_meanGapS(load > 0 ? double(bytes) * 8 / (load * ideal.gpuBandwidthBps) : 0)
  , m_start(start)
  , m_end(start + duration)
  , m_ideal(ideal)
  , m_expectedBytes(static_cast<uint64_t>(
      std::llround(double(m_gpus.size()) * load * ideal.gpuBandwidthBps / 8 * duration.GetSeconds())))
{
  NS_ABORT_MSG_IF(m_gpus.size() < 2, "RandomWorkload " << m_name << ": needs at least two GPUs");
  NS_ABORT_MSG_IF(bytes == 0 || load < 0 || ideal.gpuBandwidthBps <= 0,
                  "RandomWorkload " << m_name << ": bytes " << bytes << ", load " << load << ", rate "
                                    << ideal.gpuBandwidthBps);
  m_streams.reserve(m_gpus.size());
  for (uint32_t gpu : m_gpus)
  {
    m_streams.push_back(WorkloadStreamSeed(seed, m_name, gpu));
  }
}

void
RandomWorkload::Start(MessageService& service)
{
  NS_ABORT_MSG_IF(m_service != nullptr, "RandomWorkload " << m_name << ": started twice");
  m_service = &service;
  const ns3::Time now = ns3::Simulator::Now();
  // An event at the end, so that Done() turns true even if nothing else happens then, and so
  // that a run stopped on "all work done" cannot end before the duration.
  ns3::Simulator::Schedule(std::max(m_end - now, ns3::Time(0)),
                           [this]
                           {
                             m_durationOver = true;
                             m_service->Progressed();
                           });
  if (m_meanGapS <= 0)
  {
    return;
  }
  for (uint32_t i = 0; i < m_gpus.size(); ++i)
  {
    // A Poisson process observed from `start`: the first arrival is one exponential gap later.
    m_next[i] = std::max(m_start, now);
    ScheduleNext(i);
  }
}

void
RandomWorkload::ScheduleNext(uint32_t i)
{
  // Inverse CDF; 1 - u lies in (0, 1], so the logarithm is finite.
  const double u = ns3::SplitMixUniform(m_streams[i]);
  // The gap in seconds first: at a tiny load it exceeds what a Time holds.
  const double gapS = -m_meanGapS * std::log1p(-u);
  if (gapS >= (m_end - m_next[i]).GetSeconds())
  {
    return; // past the end of the duration
  }
  m_next[i] += ns3::Seconds(gapS);
  if (m_next[i] < m_end)
  {
    ns3::Simulator::Schedule(m_next[i] - ns3::Simulator::Now(), &RandomWorkload::Arrive, this, i);
  }
}

void
RandomWorkload::Arrive(uint32_t i)
{
  const uint64_t k = UniformBelow(m_streams[i], m_gpus.size() - 1);
  const uint32_t src = m_gpus[i];
  const uint32_t dst = m_gpus[k >= i ? k + 1 : k];
  const std::size_t message = RecordMessage(src, dst, m_bytes, m_ideal.MessageTime(src, dst, m_bytes));
  m_bytesPosted += m_bytes;
  ++m_outstanding;
  m_service->Send(src, dst, m_bytes, [this, message] { OnMessageDone(message); });
  ScheduleNext(i);
}

void
RandomWorkload::OnMessageDone(std::size_t message)
{
  m_messages[message].done = ns3::Simulator::Now();
  --m_outstanding;
}

} // namespace mrcsim

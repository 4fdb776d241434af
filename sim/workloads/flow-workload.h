// The "flows" workload: a flow list from a file (sim/workloads/flow-list.h) replayed as messages. Node i
// of the file is the i-th GPU of the workload's "gpus" (default: every GPU). A flow is posted at
// the workload's start_us plus its own start, or, if it waits for others, when the last of the
// completions it needs arrives (and not before its own start). No collective records; every flow
// is a message, with its ideal time on an idle fabric.
#ifndef MRCSIM_SIM_WORKLOADS_FLOW_WORKLOAD_H
#define MRCSIM_SIM_WORKLOADS_FLOW_WORKLOAD_H

#include "sim/workloads/flow-list.h"
#include "sim/workloads/workload.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mrcsim
{

class FlowListWorkload : public Workload
{
public:
  FlowListWorkload(std::string name,
                   std::shared_ptr<const FlowList> flows,
                   std::vector<uint32_t> gpus,
                   ns3::Time start,
                   const IdealModel& ideal);

  void Start(MessageService& service) override;
  bool Done() const override { return m_done == m_flows->flows.size(); }
  uint64_t BytesPosted() const override { return m_bytesPosted; }
  uint64_t BytesTotal() const override { return m_bytesTotal; }

private:
  /// Flow `f`'s completions are all in: posts it now, or at its own start if that is later.
  void Ready(uint32_t f);
  void Post(uint32_t f);
  void OnDone(uint32_t f, std::size_t message);

  std::shared_ptr<const FlowList> m_flows;
  std::vector<uint32_t> m_gpus;
  ns3::Time m_start;
  IdealModel m_ideal;
  std::vector<std::vector<uint32_t>> m_dependents; ///< flows waiting on each flow
  std::vector<uint32_t> m_waiting;                 ///< completions each flow still needs
  MessageService* m_service = nullptr;
  uint64_t m_bytesPosted = 0;
  uint64_t m_bytesTotal = 0;
  std::size_t m_done = 0;
};

} // namespace mrcsim

#endif

#include "models/rdma/rdma-queue-pair.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include "models/rdma/rdma-nic.h"
#include "models/wire/psn.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaQueuePair");

NS_OBJECT_ENSURE_REGISTERED(RdmaQueuePair);

TypeId
RdmaQueuePair::GetTypeId()
{
  static TypeId tid =
    TypeId("ns3::RdmaQueuePair")
      .SetParent<ObjectBase>()
      .AddTraceSource("SendComplete",
                      "A posted message was fully acknowledged: (qpn, msgId, bytes, posted).",
                      MakeBundleTraceAccessor(&RdmaQueuePair::TraceBundle, &Traces::sendComplete),
                      "ns3::RdmaQueuePair::CompletionTracedCallback")
      .AddTraceSource("RecvComplete",
                      "A message was fully placed at the receiver: (qpn, msgId, bytes, first arrival).",
                      MakeBundleTraceAccessor(&RdmaQueuePair::TraceBundle, &Traces::recvComplete),
                      "ns3::RdmaQueuePair::CompletionTracedCallback")
      .AddTraceSource("Error",
                      "The QP failed: (qpn, cause).",
                      MakeBundleTraceAccessor(&RdmaQueuePair::TraceBundle, &Traces::error),
                      "ns3::RdmaQueuePair::ErrorTracedCallback");
  return tid;
}

RdmaQueuePair::RdmaQueuePair() = default;

RdmaQueuePair::RdmaQueuePair(const RdmaQueuePair& prototype)
  : LightObject<RdmaQueuePair>(prototype),
    m_hotLineMask(prototype.m_hotLineMask)
{
  NS_ABORT_MSG_IF(prototype.m_nic, "RdmaQueuePair: only a QP bound to no NIC is copied");
}

void
RdmaQueuePair::DoDispose()
{
  m_nic = nullptr;
}

void
RdmaQueuePair::Bind(RdmaNic* nic, uint32_t qpn, uint32_t remoteGpu, uint32_t remoteQpn)
{
  NS_ABORT_MSG_IF(m_isPrototype, "RdmaQueuePair: a prototype is copied, never connected");
  m_nic = nic;
  m_qpn = qpn;
  m_remoteGpu = remoteGpu;
  m_remoteQpn = remoteQpn;
}

void
RdmaQueuePair::Fail(const std::string& cause)
{
  NS_LOG_WARN("QP " << m_qpn << " enters the error state: " << cause);
  if (m_error)
  {
    return;
  }
  m_error = true;
  if (m_traces)
    m_traces->error(m_qpn, cause);
  if (m_listener)
    m_listener->Failed(*this, cause);
}

FabricPacketSpec
RdmaQueuePair::ControlSpec(uint8_t opcode, int plane, uint16_t entropy) const
{
  FabricPacketSpec spec;
  spec.srcGpu = m_nic->GetGpu();
  spec.dstGpu = m_remoteGpu;
  spec.plane = plane;
  spec.entropy = entropy;
  spec.dscp = m_nic->ControlDscp();
  spec.ecn = Ipv6UsidHeader::NotEct;
  spec.opcode = opcode;
  spec.destQp = m_remoteQpn;
  return spec;
}

FabricPacketSpec
RdmaQueuePair::DataSpec(int plane, uint16_t entropy, uint64_t seq, bool first, bool last) const
{
  FabricPacketSpec spec;
  spec.srcGpu = m_nic->GetGpu();
  spec.dstGpu = m_remoteGpu;
  spec.plane = plane;
  spec.entropy = entropy;
  spec.dscp = m_nic->DataDscp();
  spec.ecn = Ipv6UsidHeader::Ect0;
  spec.destQp = m_remoteQpn;
  spec.psn = static_cast<uint32_t>(seq & kPsnMask);
  spec.opcode = first && last ? RoceBthHeader::kRcWriteOnly
                : first       ? RoceBthHeader::kRcWriteFirst
                : last        ? RoceBthHeader::kRcWriteLast
                              : RoceBthHeader::kRcWriteMiddle;
  spec.ackRequest = last;
  return spec;
}

uint32_t
RdmaQueuePair::NodeId() const
{
  return m_nic->GetNodeId();
}

} // namespace ns3

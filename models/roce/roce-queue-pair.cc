// A RoCEv2 RC queue pair as a thin shell over its halves (roce-queue-pair.h): the attributes
// and trace sources, and routing frames to the requester (roce-requester.cc) and the responder
// (roce-responder.cc).
#include "models/roce/roce-queue-pair.h"

#include "models/wire/udp-entropy.h"
#include "models/rdma/rdma-nic.h"
#include "models/wire/roce-bth-header.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cstddef>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceQueuePair");

NS_OBJECT_ENSURE_REGISTERED(RoceQueuePair);

TypeId
RoceQueuePair::GetTypeId()
{
  static TypeId tid =
    TypeId("ns3::RoceQueuePair")
      .SetParent<RdmaQueuePair>()
      .AddConstructor<RoceQueuePair>()
      .AddAttribute("Port",
                    "NIC port (hence plane) the QP is pinned to.",
                    UintegerValue(0),
                    MakeUintegerAccessor(&RoceQueuePair::m_port),
                    MakeUintegerChecker<uint16_t>())
      .AddAttribute("Entropy",
                    "UDP source port: the ECMP entropy fixing the QP's path.",
                    UintegerValue(EvEntropy::kBase),
                    MakeUintegerAccessor(&RoceQueuePair::m_entropy),
                    MakeUintegerChecker<uint16_t>())
      .AddAttribute("AckInterval",
                    "The receiver acknowledges every N in-order packets (and every ACK request).",
                    UintegerValue(16),
                    MakeSharedConfigAccessor<UintegerValue>(&RoceQueuePair::m_config, &Config::ackInterval),
                    MakeUintegerChecker<uint32_t>(1))
      .AddAttribute("AckDelay",
                    "Longest time the receiver holds a coalesced ACK: in-order packets not yet "
                    "acknowledged are acknowledged at most this long after the first of them arrived. "
                    "IB's Local CA ACK Delay (4.096 us x 2^n) bounds it; here n = 0.",
                    TimeValue(NanoSeconds(4096)),
                    MakeSharedConfigAccessor<TimeValue>(&RoceQueuePair::m_config, &Config::ackDelay),
                    MakeTimeChecker(Time(0)))
      .AddAttribute("RetransmitTimeout",
                    "Initial retransmission timeout; IB local ACK timeout 4.096 us x 2^t, here t = 8.",
                    TimeValue(NanoSeconds(4096 * 256)),
                    MakeSharedConfigAccessor<TimeValue>(&RoceQueuePair::m_config, &Config::rtoBase),
                    MakeTimeChecker(MicroSeconds(1)))
      .AddAttribute("RetryLimit",
                    "Timeouts in a row before the QP fails (IB retry_cnt, at most 7 in hardware).",
                    UintegerValue(7),
                    MakeSharedConfigAccessor<UintegerValue>(&RoceQueuePair::m_config, &Config::retryLimit),
                    MakeUintegerChecker<uint32_t>(0, 1000))
      .AddAttribute("CnpInterval",
                    "The receiver sends at most one CNP per interval (DCQCN NP). Negative: that of the "
                    "DcqcnRateControl profile (Paper: 50 us, Zhu et al.; ConnectX: min_time_between_cnps 4 us; "
                    "Tuned: 1 us).",
                    TimeValue(NanoSeconds(-1)),
                    MakeSharedConfigAccessor<TimeValue>(&RoceQueuePair::m_config, &Config::cnpInterval),
                    MakeTimeChecker(NanoSeconds(-1)))
      .AddAttribute("Dcqcn",
                    "Rate-control the sender with DCQCN (ns3::DcqcnRateControl defaults).",
                    BooleanValue(true),
                    MakeSharedConfigAccessor<BooleanValue>(&RoceQueuePair::m_config, &Config::dcqcnEnabled),
                    MakeBooleanChecker())
      .AddTraceSource("Stall",
                      "Progress resumed after timeouts: (qpn, time without progress).",
                      MakeBundleTraceAccessor(&RoceQueuePair::RoceTraceBundle, &RoceTraces::stall),
                      "ns3::RoceQueuePair::StallTracedCallback")
      .AddTraceSource("Rewind",
                      "Go-back-N: (qpn, PSN resent from, packets to resend, timeout or NAK).",
                      MakeBundleTraceAccessor(&RoceQueuePair::RoceTraceBundle, &RoceTraces::rewind),
                      "ns3::RoceQueuePair::RewindTracedCallback");
  return tid;
}

Time
RoceQueuePair::CnpInterval() const
{
  // The NP follows the RP profile the run chose: resolved in the prototype (CreatePrototype),
  // which its copies share, or here for a QP made on its own.
  const Time interval = m_config->cnpInterval;
  return interval.IsNegative() ? DcqcnRateControl::NpCnpInterval(DcqcnRateControl::DefaultProfile()) : interval;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
void
RoceQueuePair::CheckLayout()
{
  constexpr std::size_t kLine = 64;
  static_assert(offsetof(RoceQueuePair, m_requester) + sizeof(RoceRequester) <= 3 * kLine,
                "the requester's state must end within line 2 (HotLineMask)");
  static_assert(sizeof(RoceQueuePair) <= 288, "a QP is in tcmalloc's 288-byte class: 8.5 M of them make a large run");
}
#pragma GCC diagnostic pop

RoceQueuePair::RoceQueuePair()
{
  m_hotLineMask = 0b111; // the base class's line and the requester's state after it, to line 2
}

RoceQueuePair::RoceQueuePair(const RoceQueuePair& prototype)
  : RdmaQueuePair(prototype),
    m_port(prototype.m_port),
    m_entropy(prototype.m_entropy),
    m_config(prototype.m_config)
{
}

Ptr<RoceQueuePair>
RoceQueuePair::CreatePrototype()
{
  Ptr<RoceQueuePair> p = CreateLight<RoceQueuePair>();
  p->m_isPrototype = true;
  Config& config = p->m_config.Mutable();
  config.dcqcnPrototype = CreateLight<DcqcnRateControl>();
  if (config.cnpInterval.IsNegative())
    config.cnpInterval = DcqcnRateControl::NpCnpInterval(DcqcnRateControl::DefaultProfile());
  return p;
}

Ptr<RoceQueuePair>
RoceQueuePair::Copy(uint16_t port, uint16_t entropy) const
{
  NS_ABORT_MSG_UNLESS(m_isPrototype, "RoceQueuePair::Copy: only a prototype (CreatePrototype) is copied");
  Ptr<RoceQueuePair> qp(new RoceQueuePair(*this), false);
  qp->m_port = port;
  qp->m_entropy = entropy;
  return qp;
}

void
RoceQueuePair::CheckRateControl(DataRate lineRate) const
{
  if (m_config->dcqcnPrototype)
    m_config->dcqcnPrototype->CheckLineRate(lineRate);
  else
    CreateLight<DcqcnRateControl>()->CheckLineRate(lineRate);
}

Ptr<DcqcnRateControl>
RoceQueuePair::NewRateControl() const
{
  // Copied as it is, without a reference to it: QPs on the partitions' threads copy it at once.
  return m_config->dcqcnPrototype ? m_config->dcqcnPrototype->Copy() : CreateLight<DcqcnRateControl>();
}

void
RoceQueuePair::DoDispose()
{
  m_requester.Dispose();
  m_responder.Dispose();
  RdmaQueuePair::DoDispose();
}

int
RoceQueuePair::Plane() const
{
  return m_nic->PlaneOfPort(m_port);
}

uint64_t
RoceQueuePair::PostWrite(uint64_t bytes)
{
  NS_ABORT_MSG_IF(bytes == 0, "RoceQueuePair::PostWrite: empty message");
  return m_requester.PostWrite(bytes);
}

FramePtr
RoceQueuePair::NextPacket(uint16_t port, Time* retryAt)
{
  if (m_error || port != m_port)
  {
    return FramePtr();
  }
  return m_requester.NextPacket(retryAt);
}

void
RoceQueuePair::Receive(const RdmaRxInfo& info)
{
  const uint8_t op = info.frame.opcode;
  if (op == RoceBthHeader::kRcAck)
  {
    m_requester.HandleAck(info);
  }
  else if (op == RoceBthHeader::kCnp)
  {
    NS_LOG_LOGIC("QP " << m_qpn << ": CNP received");
    ReceiveCnp();
  }
  else if (RoceBthHeader::IsRdmaWrite(op))
  {
    m_responder.HandleData(info);
  }
}

} // namespace ns3

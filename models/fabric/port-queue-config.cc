#include "models/fabric/port-queue-config.h"

#include <cmath>

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PortQueueConfig");

NS_OBJECT_ENSURE_REGISTERED(PortQueueConfig);

TypeId
PortQueueConfig::GetTypeId()
{
  // Defaults, in bytes at the 100G reference rate (ReferenceRate; other rates scale them): ECN
  // Kmin/Kmax 10/40 KB and trimming above 50 KB are our choice for a plane of 1 us links. MRC runs
  // of the scenario runner replace the ECN and trim thresholds by 0.2/0.8 BDP and 1 BDP (1.5 on
  // the last hop) of the fabric's own round trip (docs/MODEL.md). PFC XOFF leaves room for one
  // BDP of headroom in 1 MB per class (not scaled).
  static TypeId tid =
    TypeId("ns3::PortQueueConfig")
      .SetParent<Object>()
      .AddConstructor<PortQueueConfig>()
      .AddAttribute("NumClasses",
                    "Traffic classes per port (class 0 is control).",
                    UintegerValue(2),
                    MakeUintegerAccessor(&PortQueueConfig::m_numClasses),
                    MakeUintegerChecker<uint8_t>(2, kMaxClasses))
      .AddAttribute("ControlLimit",
                    "Byte limit of the control class (drop-tail).",
                    UintegerValue(1 << 20),
                    MakeUintegerAccessor(&PortQueueConfig::m_controlLimit),
                    MakeUintegerChecker<uint32_t>(1))
      .AddAttribute("DataLimit",
                    "Byte limit of each data class (drop-tail).",
                    UintegerValue(1 << 20),
                    MakeUintegerAccessor(&PortQueueConfig::m_dataLimit),
                    MakeUintegerChecker<uint32_t>(1))
      .AddAttribute("EcnEnabled",
                    "Mark ECN-capable packets (RED on the class's bytes at enqueue).",
                    BooleanValue(true),
                    MakeBooleanAccessor(&PortQueueConfig::m_ecnEnabled),
                    MakeBooleanChecker())
      .AddAttribute("EcnMarkPoint",
                    "Enqueue: RED on the class's bytes when a packet joins the queue. Dequeue: RED on the bytes "
                    "it leaves behind when it starts on the wire, so that the mark reports the queue as it is "
                    "when the packet leaves, not as it was a queueing delay earlier.",
                    EnumValue(ENQUEUE),
                    MakeEnumAccessor(&PortQueueConfig::m_ecnPoint),
                    MakeEnumChecker(ENQUEUE, "Enqueue", DEQUEUE, "Dequeue"))
      .AddAttribute("ReferenceRate",
                    "Port rate EcnKmin, EcnKmax and TrimThreshold are given for; a port of another rate "
                    "scales them by its rate / ReferenceRate. 0 turns scaling off.",
                    DataRateValue(DataRate("100Gbps")),
                    MakeDataRateAccessor(&PortQueueConfig::m_referenceRate),
                    MakeDataRateChecker())
      .AddAttribute("EcnKmin",
                    "Bytes below which no packet is marked.",
                    UintegerValue(10000),
                    MakeUintegerAccessor(&PortQueueConfig::m_ecnKmin),
                    MakeUintegerChecker<uint32_t>())
      .AddAttribute("EcnKmax",
                    "Bytes above which every packet is marked.",
                    UintegerValue(40000),
                    MakeUintegerAccessor(&PortQueueConfig::m_ecnKmax),
                    MakeUintegerChecker<uint32_t>())
      .AddAttribute("EcnPmax",
                    "Marking probability at Kmax.",
                    DoubleValue(0.2),
                    MakeDoubleAccessor(&PortQueueConfig::m_ecnPmax),
                    MakeDoubleChecker<double>(0, 1))
      .AddAttribute("TrimEnabled",
                    "Trim data packets arriving above TrimThreshold instead of queueing them.",
                    BooleanValue(false),
                    MakeBooleanAccessor(&PortQueueConfig::m_trimEnabled),
                    MakeBooleanChecker())
      .AddAttribute("TrimThreshold",
                    "Data-class bytes above which arriving packets are trimmed.",
                    UintegerValue(50000),
                    MakeUintegerAccessor(&PortQueueConfig::m_trimThreshold),
                    MakeUintegerChecker<uint32_t>())
      .AddAttribute("TrimmedSize",
                    "Bytes a trimmed packet keeps (its headers).",
                    UintegerValue(64),
                    MakeUintegerAccessor(&PortQueueConfig::m_trimmedSize),
                    MakeUintegerChecker<uint32_t>(40, 9000))
      .AddAttribute("TrimmedDscp",
                    "DSCP written into trimmed packets (they travel in the control class).",
                    UintegerValue(46),
                    MakeUintegerAccessor(&PortQueueConfig::m_trimmedDscp),
                    MakeUintegerChecker<uint8_t>(0, 63))
      .AddAttribute("ControlDscp",
                    "DSCP of control traffic (ACK, NACK, CNP, probes).",
                    UintegerValue(48),
                    MakeUintegerAccessor(&PortQueueConfig::m_controlDscp),
                    MakeUintegerChecker<uint8_t>(0, 63))
      .AddAttribute("PfcEnabled",
                    "Lossless data classes: pause the upstream port above PfcXoff.",
                    BooleanValue(false),
                    MakeBooleanAccessor(&PortQueueConfig::m_pfcEnabled),
                    MakeBooleanChecker())
      .AddAttribute("PfcXoff",
                    "Ingress bytes of a class above which a PAUSE is sent upstream.",
                    UintegerValue(200000),
                    MakeUintegerAccessor(&PortQueueConfig::m_pfcXoff),
                    MakeUintegerChecker<uint32_t>())
      .AddAttribute("PfcXon",
                    "Ingress bytes of a class below which a RESUME is sent upstream.",
                    UintegerValue(150000),
                    MakeUintegerAccessor(&PortQueueConfig::m_pfcXon),
                    MakeUintegerChecker<uint32_t>())
      .AddAttribute("PfcHeadroom",
                    "Bytes accepted above PfcXoff while the PAUSE takes effect; 0 derives them per port "
                    "(PfcHeadroomOf): what the upstream port can still send after the ingress buffer "
                    "crossed XOFF.",
                    UintegerValue(0),
                    MakeUintegerAccessor(&PortQueueConfig::m_pfcHeadroom),
                    MakeUintegerChecker<uint32_t>())
      .AddAttribute("PfcPauseQuanta",
                    "Pause time a PAUSE frame asks for, in quanta of 512 bit times at the link's rate (IEEE "
                    "802.1Qbb; 65,535, the largest, as switches send: 335 us at 100G, 42 us at 800G). The "
                    "paused port resumes when it expires or at an XON (quanta 0); a port still above XON "
                    "sends the PAUSE again when half of it has run.",
                    UintegerValue(0xFFFF),
                    MakeUintegerAccessor(&PortQueueConfig::m_pfcPauseQuanta),
                    MakeUintegerChecker<uint16_t>(1, 0xFFFF))
      .AddAttribute("PfcResponseTime",
                    "Derived headroom: the upstream port's worst time from a PAUSE's arrival to stopping, "
                    "interface delay included. Default: IEEE 802.3's upper bounds for 100GbE, "
                    "D-Intf 122,880 plus D-Resp 201,728 bit times (3.2461 us, rounded up to 3,247 ns); "
                    "they are no larger in time at higher rates (400GbE: D-Resp 463,360 bit times, 1.16 us).",
                    TimeValue(NanoSeconds(3247)),
                    MakeTimeAccessor(&PortQueueConfig::m_pfcResponseTime),
                    MakeTimeChecker(Time(0)))
      .AddAttribute("PfcMaxFrame",
                    "Derived headroom: the largest frame of a lossless class on the wire, bytes (a 4,096-byte "
                    "payload with IPv6, UDP, BTH, RETH, Ethernet header, FCS, preamble and gap: 4,210).",
                    UintegerValue(4210),
                    MakeUintegerAccessor(&PortQueueConfig::m_pfcMaxFrame),
                    MakeUintegerChecker<uint32_t>(64, 16384))
      .AddAttribute("FramingBytes",
                    "Wire bytes per frame beyond the packet: 18 = Ethernet header + FCS (preamble and "
                    "inter-frame gap, 20 more, are not counted unless added here).",
                    UintegerValue(18),
                    MakeUintegerAccessor(&PortQueueConfig::m_framingBytes),
                    MakeUintegerChecker<uint32_t>(0, 1000));
  return tid;
}

PortQueueConfig::PortQueueConfig() = default;

uint64_t
PortQueueConfig::PfcHeadroomOf(uint64_t rateBps, Time cableDelay) const
{
  if (m_pfcHeadroom > 0)
  {
    return m_pfcHeadroom;
  }
  // The standard headroom (IEEE 802.1Qbb, as vendors size it): once the buffer crosses XOFF,
  // the upstream port may finish the frame it is sending, the PAUSE waits behind a frame here,
  // then crosses the cable, the upstream port takes its response time to stop, and what it sent
  // meanwhile is still on the cable: two frames, one PAUSE (64 bytes + 20 of preamble and gap),
  // the response time and the cable's round trip at the port's rate.
  const double bytesPerSecond = double(rateBps) / 8;
  const double inFlight = (2 * cableDelay.GetSeconds() + m_pfcResponseTime.GetSeconds()) * bytesPerSecond;
  return 2 * uint64_t(m_pfcMaxFrame) + 84 + static_cast<uint64_t>(std::ceil(inFlight));
}

double
PortQueueConfig::MarkProbability(uint32_t bytes) const
{
  if (bytes <= m_ecnKmin)
  {
    return 0;
  }
  if (bytes >= m_ecnKmax)
  {
    return 1;
  }
  return m_ecnPmax * double(bytes - m_ecnKmin) / double(m_ecnKmax - m_ecnKmin);
}

} // namespace ns3

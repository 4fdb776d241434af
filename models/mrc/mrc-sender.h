// The sending half of an MRC queue pair, less its loss detection: posted messages, the TX ring
// (one 6-byte record per packet outstanding), the congestion window and its even split over the
// usable NIC ports, spraying (each packet on the EV the EV table picks), building data packets
// (every one with its RETH), and the SACKs and trim NACKs that come back. What a SACK reveals of
// losses (RACK), the timers and the send times are the loss detector's (MrcLossDetector); EV
// health is the EV table's (MrcEvTable). Leaves out MRC's credit-based flow control.
#ifndef MRCSIM_MODELS_MRC_SENDER_H
#define MRCSIM_MODELS_MRC_SENDER_H

#include "models/engine/ring-queue.h"
#include "models/fabric/fabric-frame.h"
#include "models/mrc/mrc-congestion-control.h"
#include "models/mrc/mrc-ev.h"
#include "models/rdma/rdma-queue-pair.h"
#include "models/wire/ipv6-usid-header.h"
#include "models/wire/roce-bth-header.h"
#include "models/wire/roce-reth-header.h"
#include "models/wire/roce-udp-header.h"

#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/type-id.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace ns3
{

class MrcQueuePair;

/// The sender's state of one packet outstanding: 6 bytes, 2-byte aligned (packed), as a large
/// run keeps millions of them in a ring. Its size on the wire is not kept: MrcSender::PacketBytes
/// derives it from its message, as BuildData does. What only a packet declared lost needs is the
/// loss detector's (MrcLossDetector::Again). The time of its latest send is kept by the loss
/// detector, as the time steps after its base (MrcLossDetector::SentAt).
struct __attribute__((packed, aligned(2))) MrcTxState
{
  MrcTxState() : ev(0), acked(false), lost(false) {}
  uint32_t sentAfterBase = 0; ///< see MrcLossDetector::SentAt
  uint16_t ev : 14;           ///< a QP has at most 16384 EVs (MrcEvTable::SetUp)
  uint16_t acked : 1;
  uint16_t lost : 1; ///< declared lost (MrcLossDetector::DeclareLost), waiting in its resend set
};

static_assert(sizeof(MrcTxState) == 6 && alignof(MrcTxState) == 2, "MRC send state: keep it small");

/// \brief The sending half of an MRC queue pair (see the file comment). A member of its
/// MrcQueuePair, through which it reaches the NIC, the EV table and the loss detector.
class MrcSender
{
public:
  /// \brief The headers of every data packet, as BuildData writes them: IPv6 (the uSID
  /// carrier), UDP, BTH and RETH.
  static constexpr uint32_t kDataHeaderBytes =
    Ipv6UsidHeader::kSize + RoceUdpHeader::kSize + RoceBthHeader::kSize + RoceRethHeader::kSize;

  MrcSender() = default;
  MrcSender(const MrcSender&) = delete;
  MrcSender& operator=(const MrcSender&) = delete;

  /// \brief Takes `cc` as the window controller.
  void SetCongestionControl(Ptr<MrcCongestionControl> cc) { m_cc = cc; }
  /// \brief Sizes the per-port state for a NIC of `ports` ports.
  void SetUpPorts(uint16_t ports) { m_portInflight = std::make_unique<uint32_t[]>(ports); }
  void SetBaseRtt(Time baseRtt) { m_baseRtt = baseRtt; }
  /// \brief Drops the window controller.
  void Dispose() { m_cc = nullptr; }

  /// \brief Queues an RDMA Write of `bytes` (after the QP's set-up); returns its message id.
  uint64_t PostWrite(uint64_t bytes);
  /// \brief The next data packet for NIC port `port` (a resend first), or null; when a pacing
  /// congestion control holds it back, `*retryAt` (if not null) is when it may go.
  FramePtr NextPacket(uint16_t port, Time* retryAt);
  void HandleSack(const RdmaRxInfo& info);
  void HandleNack(const RdmaRxInfo& info);

  /// \brief Whether messages are posted and not all acknowledged.
  bool HasMessages() const { return !m_messages.empty(); }
  /// \brief Whether nothing posted is left to send for the first time.
  bool AllSent() const { return m_sndNxt == m_totalSeq; }
  /// \brief The TX ring: [Base(), SndNxt()), all below Base() acknowledged.
  uint64_t Base() const { return m_base; }
  uint64_t SndNxt() const { return m_sndNxt; }
  bool Tracked(uint64_t seq) const { return seq >= m_base && seq < m_sndNxt; }
  MrcTxState& Tx(uint64_t seq) { return m_tx[static_cast<uint32_t>(seq - m_base)]; }
  const MrcTxState& Tx(uint64_t seq) const { return m_tx[static_cast<uint32_t>(seq - m_base)]; }
  /// \brief Takes packet `seq` out of the bytes in flight (MrcLossDetector::DeclareLost only).
  void TakeOutOfFlight(uint64_t seq);
  MrcCongestionControl& CongestionControl() const { return *m_cc; }
  Ptr<MrcCongestionControl> GetCongestionControl() const { return m_cc; }
  Time GetBaseRtt() const { return m_baseRtt; }
  uint64_t InFlightBytes() const { return m_inflight; }
  uint64_t PacketsSent() const { return m_packetsSent; }

private:
  /// \brief The QP this part is a member of, found from where the part sits in it (no
  /// reference kept: 8 bytes a part, millions of QPs). Defined in mrc-queue-pair.h.
  inline MrcQueuePair& Qp() const;
  /// A message being sent (32 bytes): its id is its place after the front's (m_nextMessageId
  /// less the ring's size), and it has fewer than 2^32 packets (PostWrite checks).
  struct Message
  {
    uint64_t firstSeq;
    Time posted;
    uint64_t bytes;
    uint32_t packets;
    uint32_t acked = 0;
  };

  FramePtr BuildData(const Message& m, uint64_t seq, uint16_t ev, int plane, bool ackRequest);
  void Ack(uint64_t seq, uint64_t& newlyAcked);
  /// \brief Payload bytes of data packet `seq` of message `m` (an MTU, less for the last).
  uint32_t PayloadOf(const Message& m, uint64_t seq) const;
  /// \brief Bytes on the wire of data packet `seq` of message `m`.
  uint32_t PacketBytes(const Message& m, uint64_t seq) const;
  uint32_t PacketBytes(uint64_t seq) { return PacketBytes(MessageOf(seq), seq); }
  /// \brief Adds (or takes away) a packet's bytes in flight, in all and on NIC port `nicPort`.
  void AddInflight(uint16_t nicPort, uint32_t bytes, bool add);
  /// \brief The NIC port of a packet's latest send (its EV's).
  inline uint16_t TxPort(const MrcTxState& t) const; // in mrc-queue-pair.h
  /// \brief This port's share of the window.
  uint64_t PortShare() const;
  Message& MessageOf(uint64_t seq);

  // What NextPacket reads first (the QP keeps it in its hot lines).
  Ptr<MrcCongestionControl> m_cc;
  uint64_t m_inflight = 0;
  /// By NIC port (NumPorts of them): at most a window, far below 4 GiB (AddInflight checks).
  std::unique_ptr<uint32_t[]> m_portInflight;
  uint64_t m_totalSeq = 0;
  uint64_t m_base = 0;        ///< lowest tracked (all below acknowledged)
  uint64_t m_sndNxt = 0;      ///< next new sequence number
  RingQueue<MrcTxState> m_tx; ///< [m_base, m_sndNxt)
  RingQueue<Message> m_messages;
  uint64_t m_packetsSent = 0;

  // colder (resends and NACKs are counted by the loss detector: MrcLossDetector::Counts)
  Time m_baseRtt;
  uint64_t m_nextMessageId = 0;
};

} // namespace ns3

#endif

// The frame the fabric carries: the header fields of one packet, parsed, in 48 or 64 bytes from a
// pool.
//
// A data packet crosses ~4 links and ~3 switches, and a large run has a million in flight. As an
// ns3::Packet each costs ~210 bytes in three allocations (Packet, Buffer, tag list) and every
// switch hop removes and re-adds its IPv6 header; the run is bound by those cache misses. A
// FabricFrame holds what the headers say (IPv6 + UDP + BTH + one inner header) as plain fields,
// owned by exactly one place at a time (a FramePtr: a queue, a wire, a handler), recycled through
// a free list. Payload bytes are not stored: every payload the models send is zero-filled.
//
// Most frames (data, RoCE ACK/NAK and CNP, MRC NACK) take 48 bytes: 40 of header fields and 8 of
// inner header. A SACK, a probe, a PFC frame and a data frame with a send time need more inner
// fields: they take 64 (a "big" frame). A frame's size is chosen when it is made and never
// read past (FramePtr::Make, MakeFrame, SetSendTime).
//
// The wire format is still the header classes': ToPacket() writes a frame as the exact bytes the
// header classes produce (pcap, traces, tests), FromPacket() reads such bytes back. Both are off
// the fast path (only when a trace is connected, pcap is on, or a test injects a packet).
//
// Leaves out: IPv6 extension headers (the SRH) and non-UDP next headers, sources other than a
// GPU address, RETH virtual addresses of 2^32 and above (the models send the offset in the
// message there, below 4 GiB as the DMA length is), and payload contents.
#ifndef MRCSIM_MODELS_FABRIC_FRAME_H
#define MRCSIM_MODELS_FABRIC_FRAME_H

#include "models/fabric/fabric-packet.h"
#include "models/wire/ipv6-usid-header.h"
#include "models/wire/mrc-nack-header.h"
#include "models/wire/mrc-probe-header.h"
#include "models/wire/mrc-sack-header.h"
#include "models/wire/pfc-pause-header.h"
#include "models/wire/roce-aeth-header.h"
#include "models/wire/roce-cnp-header.h"
#include "models/wire/roce-reth-header.h"

#include "ns3/nstime.h"
#include "ns3/packet.h"

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace ns3
{

/// \brief Header fields of one frame (see the file comment).
struct alignas(16) FabricFrame
{
  static constexpr uint32_t kSmallBytes = 48; ///< bytes of a frame that is not big
  static constexpr uint32_t kBigBytes = 64;   ///< bytes of a big frame (all of the struct)

  /// \brief What follows the BTH (or, for a MAC control frame, the frame's only header).
  enum Inner : uint8_t
  {
    None,  ///< nothing (payload only)
    Reth,  ///< RDMA Extended Transport Header, then payload
    Aeth,  ///< RoCEv2 ACK/NAK
    Cnp,   ///< RoCEv2 congestion notification (16 reserved bytes)
    Sack,  ///< MRC selective ACK
    Nack,  ///< MRC NACK
    Probe, ///< MRC probe request or response
    Pfc,   ///< a PFC PAUSE frame (EtherType 0x8808; no IPv6, UDP or BTH)
  };

  // 40 bytes of header fields, then 8 of inner header (24 in a big frame). The pool makes every
  // field zero (FabricFrame has no constructor of its own: it is made in place, 48 bytes only
  // when it is not big). Fields narrower than a byte boundary share words.
  // IPv6
  Ipv6UsidHeader::AddressBytes dst; ///< destination address (GPU address or uSID carrier)
  uint32_t srcGpu;                  ///< source address: GpuAddress(srcGpu, srcPlane)
  uint32_t flowLabel : 20;
  uint32_t hopLimit : 8;   ///< IPv6 hop limit (MakeFrame and FromPacket set it)
  uint32_t ackRequest : 1; ///< BTH AckReq
  uint32_t ecnEcho : 1;    ///< SACK: ECN echo (kept here so the SACK fields fit in 24 bytes)
  uint32_t timed : 1;      ///< carries a send time (SendTime; a big frame)
  uint32_t big : 1;        ///< 64 bytes (see the file comment)
  // BTH
  uint32_t destQp : 24;
  uint32_t opcode : 8;
  uint32_t psn : 24;
  // IPv6
  uint32_t srcPlane : 8;
  uint16_t ipPayloadLength; ///< IPv6 payload length (smaller than the content once trimmed)
  // UDP (destination port 4791)
  uint16_t srcPort;
  // what follows the headers
  uint16_t payloadBytes; ///< zero-filled payload after the inner header, as sent
  uint8_t trafficClass;  ///< DSCP (6) | ECN (2)
  Inner inner;

  struct RethFields
  {
    uint32_t virtualAddress; ///< below 2^32 (see the file comment)
    uint32_t dmaLength;
    /// Data frames (RETH or no inner header) in a big frame: when the NIC sent it, in Time
    /// steps, if `timed` (RdmaNic::EnableLatencyTracing). Travels as a SendTimeTag in ToPacket.
    int64_t sendTime;
  };
  struct SackFields
  {
    uint64_t bitmap;
    uint32_t cumulativeAckPsn;
    uint32_t ackedPsn;
    uint32_t timestampEcho;
    uint16_t baseOffset;
    uint16_t echoedEv;
  };
  struct NackFields
  {
    uint32_t psn;
    uint16_t echoedEv;
    uint8_t reason;
  };
  struct ProbeFields
  {
    uint64_t sendTimestamp;
    uint32_t sequence;
    uint16_t ev;
    uint8_t type;
  };
  struct AethFields
  {
    uint32_t msn;
    uint8_t syndrome;
  };
  struct PfcFields
  {
    uint16_t classEnableVector;
    uint16_t quanta[8];
  };
  union
  {
    RethFields reth;
    SackFields sack;
    NackFields nack;
    ProbeFields probe;
    AethFields aeth;
    PfcFields pfc;
  } u;

  uint8_t Dscp() const { return trafficClass >> 2; }
  Ipv6UsidHeader::Ecn Ecn() const { return static_cast<Ipv6UsidHeader::Ecn>(trafficClass & 3); }
  void SetDscp(uint8_t dscp) { trafficClass = static_cast<uint8_t>((dscp << 2) | (trafficClass & 3)); }
  void SetEcn(Ipv6UsidHeader::Ecn ecn) { trafficClass = static_cast<uint8_t>((trafficClass & ~3u) | ecn); }
  bool IsPfc() const { return inner == Pfc; }
  /// \brief The send time of a timed data frame (see RethFields::sendTime).
  int64_t SendTime() const { return timed ? u.reth.sendTime : 0; }
  /// \brief Marks a big data frame (RETH or no inner header) with its send time (see also
  /// ns3::SetSendTime, which makes a frame big first).
  void SetSendTime(int64_t timeStep);
  /// \brief EtherType: 0x8808 (MAC control) for PFC frames, 0x86DD (IPv6) otherwise.
  uint16_t Protocol() const { return IsPfc() ? 0x8808 : 0x86DD; }
  /// \brief Bytes of the frame on the wire, Ethernet framing excluded (as ns3::Packet::GetSize).
  uint32_t Size() const { return IsPfc() ? PfcPauseHeader::kSize : Ipv6UsidHeader::kSize + ipPayloadLength; }
  /// \brief Bytes of the inner header (0 for None).
  uint32_t InnerBytes() const;
  /// \brief Payload bytes that arrived (fewer than payloadBytes once trimmed).
  uint32_t PayloadReceived() const;
  /// \brief uSID carrier helpers on dst (see Ipv6UsidHeader).
  uint32_t Locator() const;
  uint16_t ActiveUsid() const { return static_cast<uint16_t>((dst[4] << 8) | dst[5]); }
  void ShiftUsid();
};

/// \brief Owner of one pooled FabricFrame (move-only; returns it to the pool when destroyed).
///
/// 4 bytes: the frame's slot in one reserved address range (the frame arena), not a pointer.
/// Every queue and wire of the fabric holds FramePtrs, a million or more in a large run.
class FramePtr
{
public:
  FramePtr() = default;
  FramePtr(std::nullptr_t) {}
  ~FramePtr() { Reset(); }
  FramePtr(FramePtr&& o) noexcept : m_slot(o.m_slot) { o.m_slot = 0; }
  FramePtr& operator=(FramePtr&& o) noexcept
  {
    if (this != &o)
    {
      Reset();
      m_slot = o.m_slot;
      o.m_slot = 0;
    }
    return *this;
  }
  FramePtr(const FramePtr&) = delete;
  FramePtr& operator=(const FramePtr&) = delete;

  /// \brief A new frame with all fields zero: 48 bytes, or 64 if `big` (see the file comment).
  static FramePtr Make(bool big = false);

  FabricFrame* operator->() const { return Get(); }
  FabricFrame& operator*() const { return *Get(); }
  FabricFrame* Get() const { return m_slot ? reinterpret_cast<FabricFrame*>(s_arena + m_slot) : nullptr; }
  explicit operator bool() const { return m_slot != 0; }
  void Reset()
  {
    if (m_slot)
    {
      Give(m_slot);
      m_slot = 0;
    }
  }

  /// \brief Frames allocated from the pools and not yet returned (for tests and leak checks;
  /// not while a parallel run is on).
  static uint64_t Live();
  /// \brief The calling thread takes frames from pool `index` from now on (pool 0 by default).
  /// A parallel run gives each partition's thread a pool of its own.
  static void UsePool(std::size_t index);
  /// \brief Moves free frames from pools with more than a slab above the average to the others
  /// (when no thread takes or returns frames: a parallel run calls it at its window ends).
  static void BalancePools();
  /// \brief Free frames in each pool (for tests).
  static std::vector<int64_t> FreePerPool();

private:
  static void Give(uint32_t slot);
  /// 16 bytes of the arena: frames are 3 or 4 of them.
  struct alignas(16) Unit
  {
    unsigned char bytes[16];
  };
  /// The arena: slot i's frame starts at s_arena + i (slot 0 is never used: it is the null
  /// FramePtr).
  static Unit* s_arena;
  uint32_t m_slot = 0;
};

static_assert(sizeof(FramePtr) == 4, "FramePtr is a 4-byte slot number");

static_assert(sizeof(FabricFrame) == FabricFrame::kBigBytes, "FabricFrame: 64 bytes when big");
static_assert(offsetof(FabricFrame, u) + sizeof(FabricFrame::RethFields::virtualAddress) +
                  sizeof(FabricFrame::RethFields::dmaLength) ==
                FabricFrame::kSmallBytes,
              "FabricFrame: a RETH ends where a small frame does");

/// \brief A frame with IPv6, UDP and BTH as `spec` says, and a RETH if spec.reth; big if `big`.
FramePtr MakeFrame(const FabricPacketSpec& spec, bool big = false);

/// \brief Marks a data frame with its send time (FabricFrame::SetSendTime), first moving it to a
/// big frame if it is not one.
void SetSendTime(FramePtr& frame, int64_t timeStep);

/// \brief Whether a frame with inner header H must be big.
template<typename Header>
constexpr bool
NeedsBigFrame()
{
  return std::is_same<Header, MrcSackHeader>::value || std::is_same<Header, MrcProbeHeader>::value ||
         std::is_same<Header, PfcPauseHeader>::value;
}

/// \brief Puts `h` after the frame's BTH (or, for PFC, makes the frame a PAUSE frame); sizes
/// are the caller's (MakeFrame, or set ipPayloadLength).
void WriteInner(FabricFrame& frame, const RoceRethHeader& h);
void WriteInner(FabricFrame& frame, const RoceAethHeader& h);
void WriteInner(FabricFrame& frame, const RoceCnpHeader& h);
void WriteInner(FabricFrame& frame, const MrcSackHeader& h);
void WriteInner(FabricFrame& frame, const MrcNackHeader& h);
void WriteInner(FabricFrame& frame, const MrcProbeHeader& h);
void WriteInner(FabricFrame& frame, const PfcPauseHeader& h);
/// \brief The frame's inner header as its header class (the frame must hold that kind).
void ReadInner(const FabricFrame& frame, RoceRethHeader& h);
void ReadInner(const FabricFrame& frame, RoceAethHeader& h);
void ReadInner(const FabricFrame& frame, MrcSackHeader& h);
void ReadInner(const FabricFrame& frame, MrcNackHeader& h);
void ReadInner(const FabricFrame& frame, MrcProbeHeader& h);
void ReadInner(const FabricFrame& frame, PfcPauseHeader& h);

/// \brief A control frame: `spec`'s IPv6, UDP and BTH, then `inner`, no payload.
template<typename Header>
FramePtr
MakeControlFrame(FabricPacketSpec spec, const Header& inner)
{
  spec.reth = false;
  spec.payloadBytes = 0;
  FramePtr f = MakeFrame(spec, NeedsBigFrame<Header>());
  WriteInner(*f, inner);
  f->ipPayloadLength = static_cast<uint16_t>(f->ipPayloadLength + f->InnerBytes());
  return f;
}

/// \brief The frame's exact bytes as the header classes write them (zero payload, trimmed
/// frames cut to their size), with a SendTimeTag when the frame carries a send time.
Ptr<Packet> ToPacket(const FabricFrame& frame);

/// \brief Reads a packet of the header classes back into a frame. Aborts, naming what it met,
/// on what a frame cannot hold (an SRH, a non-UDP next header, a non-GPU source).
FramePtr FromPacket(Ptr<const Packet> packet, uint16_t protocol);

} // namespace ns3

#endif

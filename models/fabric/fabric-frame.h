// The frame the fabric carries: the header fields of one packet, parsed, in 48 or 64 bytes from a
// pool.
//
// A data packet crosses ~4 links and ~3 switches, and a large run has a million in flight. As an
// ns3::Packet each costs ~210 bytes in three allocations (Packet, Buffer, tag list) and every
// switch hop removes and re-adds its IPv6 header; the run is bound by those cache misses. A
// FabricFrame holds what the headers say as plain fields, owned by exactly one place at a time (a
// FramePtr: a queue, a wire, a handler), recycled through a free list. Payload bytes are not
// stored: every payload the models send is zero-filled.
//
// The fabric knows the fixed headers every frame has (IPv6, UDP, BTH: 40 bytes of fields) and its
// own MAC control frame (PFC). What follows the BTH (a RETH, an AETH, a SACK...) is the
// transport's: an opaque inner area whose meaning a codec registered by the transport gives
// (FrameInnerCodec, FrameInnerOf). Most frames take 48 bytes: 8 of inner fields. An inner header
// with more fields (a SACK, a probe, a PFC frame) needs a 64-byte "big" frame, 24 bytes of inner
// fields. A frame's size is chosen when it is made and never read past (FramePtr::Make,
// MakeFrame, SetSendTime).
//
// Simulation-only data is not in any header: a data frame may carry the time the NIC sent it
// (`timed`, SendTime) in a big frame, after its inner fields.
//
// The wire format is the header classes': ToPacket() writes a frame as the exact bytes the header
// classes produce (pcap, traces, tests), FromPacket() reads such bytes back, the inner header
// through the codec registered for the BTH opcode. Both are off the fast path (only when a trace
// is connected, pcap is on, or a test injects a packet).
//
// Leaves out: IPv6 extension headers (the SRH) and non-UDP next headers, sources other than a
// GPU address, and payload contents.
#ifndef MRCSIM_MODELS_FABRIC_FRAME_H
#define MRCSIM_MODELS_FABRIC_FRAME_H

#include "models/fabric/fabric-packet.h"
#include "models/wire/ipv6-usid-header.h"
#include "models/wire/pfc-pause-header.h"

#include "ns3/nstime.h"
#include "ns3/packet.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace ns3
{

struct FabricFrame;

/// \brief How one kind of inner header (what follows the BTH) travels in a frame: registered
/// once by the transport that owns the header (FrameInners::Register), named in the frame by
/// the kind number Register returns.
struct FrameInnerCodec
{
  const char* name;   ///< for messages
  uint32_t wireBytes; ///< bytes of the header on the wire
  bool big;           ///< its fields need a big frame (more than 8 bytes)
  /// ToPacket: puts the header, as its class writes it, in front of `packet`.
  void (*addTo)(const FabricFrame& frame, Packet& packet);
  /// FromPacket: takes the header from the front of `packet` into the frame.
  void (*removeFrom)(FabricFrame& frame, Packet& packet);
};

/// \brief The registered inner-header codecs, by kind (0: none; 1: the fabric's PFC frame).
class FrameInners
{
public:
  static constexpr uint8_t kNone = 0; ///< nothing after the BTH but payload
  static constexpr uint8_t kPfc = 1;  ///< a PFC PAUSE frame (EtherType 0x8808; no IPv6, UDP or BTH)

  /// \brief Registers a codec and returns its kind (at load time, from a static initialiser).
  static uint8_t Register(const FrameInnerCodec& codec);
  /// \brief FromPacket reads the header of kind `kind` after a BTH with `opcode` (only when the
  /// packet has room for it, if `whenRoom`; otherwise a packet too short is an error).
  static void BindOpcode(uint8_t opcode, uint8_t kind, bool whenRoom = false);
  /// \brief The codec of `kind` (aborts on a kind nothing registered).
  static const FrameInnerCodec& Get(uint8_t kind);
  /// \brief The kind FromPacket reads after `opcode` with `bytesAfterBth` left, or kNone.
  static uint8_t KindAfter(uint8_t opcode, uint32_t bytesAfterBth);
  static uint32_t WireBytes(uint8_t kind) { return s_wireBytes[kind]; }
  static bool IsBig(uint8_t kind) { return s_big[kind]; }

private:
  friend struct FabricFrameCodecs;
  static void Put(uint8_t kind, const FrameInnerCodec& codec);
  // Zero-initialised before any static initialiser runs, so registration order does not matter.
  static FrameInnerCodec s_codecs[256];
  static uint8_t s_wireBytes[256];
  static bool s_big[256];
  static uint8_t s_opcodeKind[256];
  static bool s_opcodeWhenRoom[256];
  static uint32_t s_registered;
};

/// \brief Header fields of one frame (see the file comment).
struct alignas(16) FabricFrame
{
  static constexpr uint32_t kSmallBytes = 48;     ///< bytes of a frame that is not big
  static constexpr uint32_t kBigBytes = 64;       ///< bytes of a big frame (all of the struct)
  static constexpr uint32_t kInnerOffset = 40;    ///< where the inner area starts
  static constexpr uint32_t kSmallInnerBytes = 8; ///< inner bytes of a small frame
  static constexpr uint32_t kInnerBytes = 24;     ///< inner bytes of a big frame

  // 40 bytes of header fields, then 8 of inner fields (24 in a big frame). The pool makes every
  // field zero (FabricFrame has no constructor of its own: it is made in place, 48 bytes only
  // when it is not big). Fields narrower than a byte boundary share words.
  // IPv6
  Ipv6UsidHeader::AddressBytes dst; ///< destination address (GPU address or uSID carrier)
  uint32_t srcGpu;                  ///< source address: GpuAddress(srcGpu, srcPlane)
  uint32_t flowLabel : 20;
  uint32_t hopLimit : 8;   ///< IPv6 hop limit (MakeFrame and FromPacket set it)
  uint32_t ackRequest : 1; ///< BTH AckReq
  uint32_t innerFlag : 1;  ///< one bit the inner header's codec may use (a SACK's ECN echo)
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
  uint8_t inner;         ///< kind of the inner header (FrameInners)
  /// The inner header's fields, as its codec lays them out (InnerFields); in a timed frame the
  /// send time follows the first 8 bytes.
  alignas(8) unsigned char innerArea[kInnerBytes];

  /// \brief The inner area as the codec's field struct (8 bytes at most unless the frame is big).
  template<typename Fields>
  Fields& InnerFields()
  {
    CheckFields<Fields>();
    return *std::launder(reinterpret_cast<Fields*>(innerArea));
  }
  template<typename Fields>
  const Fields& InnerFields() const
  {
    CheckFields<Fields>();
    return *std::launder(reinterpret_cast<const Fields*>(innerArea));
  }

  uint8_t Dscp() const { return trafficClass >> 2; }
  Ipv6UsidHeader::Ecn Ecn() const { return static_cast<Ipv6UsidHeader::Ecn>(trafficClass & 3); }
  void SetDscp(uint8_t dscp) { trafficClass = static_cast<uint8_t>((dscp << 2) | (trafficClass & 3)); }
  void SetEcn(Ipv6UsidHeader::Ecn ecn) { trafficClass = static_cast<uint8_t>((trafficClass & ~3u) | ecn); }
  bool IsPfc() const { return inner == FrameInners::kPfc; }
  /// \brief When the NIC sent a timed frame, in Time steps (RdmaNic::EnableLatencyTracing);
  /// travels as a SendTimeTag in ToPacket. 0 if the frame is not timed.
  int64_t SendTime() const
  {
    int64_t t = 0;
    if (timed)
      std::memcpy(&t, innerArea + kSmallInnerBytes, sizeof t);
    return t;
  }
  /// \brief Marks a big frame whose inner header fits a small frame with its send time (see
  /// also ns3::SetSendTime, which makes a frame big first).
  void SetSendTime(int64_t timeStep);
  /// \brief EtherType: 0x8808 (MAC control) for PFC frames, 0x86DD (IPv6) otherwise.
  uint16_t Protocol() const { return IsPfc() ? 0x8808 : 0x86DD; }
  /// \brief Bytes of the frame on the wire, Ethernet framing excluded (as ns3::Packet::GetSize).
  uint32_t Size() const { return IsPfc() ? PfcPauseHeader::kSize : Ipv6UsidHeader::kSize + ipPayloadLength; }
  /// \brief Bytes of the inner header on the wire (0 for none).
  uint32_t InnerBytes() const { return FrameInners::WireBytes(inner); }
  /// \brief Payload bytes that arrived (fewer than payloadBytes once trimmed).
  uint32_t PayloadReceived() const;
  /// \brief uSID carrier helpers on dst (see Ipv6UsidHeader).
  uint32_t Locator() const;
  uint16_t ActiveUsid() const { return static_cast<uint16_t>((dst[4] << 8) | dst[5]); }
  void ShiftUsid();

private:
  template<typename Fields>
  static constexpr void CheckFields()
  {
    static_assert(sizeof(Fields) <= kInnerBytes, "inner fields: at most the 24 bytes of a big frame");
    static_assert(alignof(Fields) <= 8, "inner fields: 8-byte alignment at most");
    static_assert(std::is_trivially_copyable<Fields>::value, "inner fields: plain data");
  }
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
static_assert(offsetof(FabricFrame, innerArea) == FabricFrame::kInnerOffset &&
                FabricFrame::kInnerOffset + FabricFrame::kSmallInnerBytes == FabricFrame::kSmallBytes,
              "FabricFrame: 40 bytes of fixed headers, then the inner area");

/// \brief A frame with IPv6, UDP and BTH as `spec` says, then spec.payloadBytes of payload and no
/// inner header (AddInner puts one); big if `big`.
FramePtr MakeFrame(const FabricPacketSpec& spec, bool big = false);

/// \brief Marks a data frame with its send time (FabricFrame::SetSendTime), first moving it to a
/// big frame if it is not one.
void SetSendTime(FramePtr& frame, int64_t timeStep);

/// \brief The codec of inner header class `Header`, specialised by the layer that owns the
/// header (the fabric for PFC below, rdma for the RETH, mrc and roce for theirs):
///   static constexpr bool kBig;                          // needs a big frame
///   static void Write(FabricFrame&, const Header&);      // sets `inner` and the fields
///   static void Read(const FabricFrame&, Header&);
template<typename Header>
struct FrameInnerOf;

/// \brief Puts `h` in the frame's inner area; sizes are the caller's (AddInner adds them).
template<typename Header>
void
WriteInner(FabricFrame& frame, const Header& h)
{
  FrameInnerOf<Header>::Write(frame, h);
}

/// \brief The frame's inner header as its header class (the frame must hold that kind).
template<typename Header>
void
ReadInner(const FabricFrame& frame, Header& h)
{
  FrameInnerOf<Header>::Read(frame, h);
}

/// \brief Puts `h` after the frame's BTH and counts its bytes in the IPv6 payload length.
template<typename Header>
void
AddInner(FabricFrame& frame, const Header& h)
{
  WriteInner(frame, h);
  frame.ipPayloadLength = static_cast<uint16_t>(frame.ipPayloadLength + frame.InnerBytes());
}

/// \brief A control frame: `spec`'s IPv6, UDP and BTH, then `inner`, no payload.
template<typename Header>
FramePtr
MakeControlFrame(FabricPacketSpec spec, const Header& inner)
{
  spec.payloadBytes = 0;
  FramePtr f = MakeFrame(spec, FrameInnerOf<Header>::kBig);
  AddInner(*f, inner);
  return f;
}

/// \brief A codec for FrameInners::Register from the header class and its FrameInnerOf.
template<typename Header>
FrameInnerCodec
MakeFrameInnerCodec(const char* name)
{
  return FrameInnerCodec{ name,
                          Header::kSize,
                          FrameInnerOf<Header>::kBig,
                          [](const FabricFrame& f, Packet& p)
                          {
                            Header h;
                            FrameInnerOf<Header>::Read(f, h);
                            p.AddHeader(h);
                          },
                          [](FabricFrame& f, Packet& p)
                          {
                            Header h;
                            p.RemoveHeader(h);
                            FrameInnerOf<Header>::Write(f, h);
                          } };
}

/// \brief Registers `Header`'s codec (MakeFrameInnerCodec) and binds it to the BTH opcodes after
/// which FromPacket reads it (only when there is room for it, if `whenRoom`); returns its kind.
/// For a transport's static initialiser.
template<typename Header>
uint8_t
RegisterFrameInner(const char* name, std::initializer_list<uint8_t> opcodes, bool whenRoom = false)
{
  const uint8_t kind = FrameInners::Register(MakeFrameInnerCodec<Header>(name));
  for (uint8_t opcode : opcodes)
  {
    FrameInners::BindOpcode(opcode, kind, whenRoom);
  }
  return kind;
}

/// \brief The fabric's own inner header: a PFC PAUSE frame's class-enable vector and quanta.
template<>
struct FrameInnerOf<PfcPauseHeader>
{
  struct Fields
  {
    uint16_t classEnableVector;
    uint16_t quanta[PfcPauseHeader::kPriorities];
  };
  static constexpr bool kBig = true;
  static void Write(FabricFrame& frame, const PfcPauseHeader& h);
  static void Read(const FabricFrame& frame, PfcPauseHeader& h);
};

/// \brief The frame's exact bytes as the header classes write them (zero payload, trimmed
/// frames cut to their size), with a SendTimeTag when the frame carries a send time.
Ptr<Packet> ToPacket(const FabricFrame& frame);

/// \brief Reads a packet of the header classes back into a frame. Aborts, naming what it met,
/// on what a frame cannot hold (an SRH, a non-UDP next header, a non-GPU source). The inner
/// header's kind is `innerKind` when given (as a receiver knows it from its QP's transport: MRC
/// carries a RETH on every packet), else the one registered for the opcode.
FramePtr FromPacket(Ptr<const Packet> packet, uint16_t protocol, int innerKind = -1);

} // namespace ns3

#endif

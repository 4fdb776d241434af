#include "models/fabric/fabric-frame.h"

#include "models/wire/fabric-address.h"
#include "models/engine/fabric-parallel-simulator.h"
#include "models/wire/mrc-nack-header.h"
#include "models/wire/mrc-probe-header.h"
#include "models/wire/mrc-sack-header.h"
#include "models/wire/pfc-pause-header.h"
#include "models/wire/roce-aeth-header.h"
#include "models/wire/roce-bth-header.h"
#include "models/wire/roce-cnp-header.h"
#include "models/wire/roce-reth-header.h"
#include "models/wire/roce-udp-header.h"
#include "models/wire/send-time-tag.h"

#include "topologies/fabric-routing.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricFrame");

static_assert(std::is_trivially_default_constructible<FabricFrame>::value &&
                std::is_trivially_copyable<FabricFrame>::value,
              "FabricFrame is made in place by zeroing its bytes");

namespace
{

/// The frame arena: one address range reserved at load time (MAP_NORESERVE: memory is taken only
/// as slabs are touched), in 16-byte units, so that a frame is named by the 32-bit number of its
/// first unit (FramePtr). Slabs are carved from it in order and live as long as the process, so
/// a run's peak frame count bounds the frames' memory. Its pages are transparent huge pages when
/// malloc's are (the glibc.malloc.hugetlb=1 tunable, which mrcsim sets: see sim/main.cc).
struct FrameArena
{
  static constexpr uint64_t kUnit = 16;
  static constexpr uint32_t kSlab = 512; ///< frames per slab
  unsigned char* base = nullptr;
  uint64_t units = 0;                ///< reserved
  std::atomic<uint64_t> carved{ 1 }; ///< units handed out as slabs (unit 0 is the null FramePtr)

  FrameArena()
  {
    // 2^32 units (64 GiB of address space) and, where that is refused, less.
    for (uint64_t want = uint64_t(1) << 32; want >= (uint64_t(1) << 22) && !base; want >>= 1)
    {
      void* at =
        mmap(nullptr, want * kUnit, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (at != MAP_FAILED)
      {
        base = static_cast<unsigned char*>(at);
        units = want - (want >> 32); // unit 2^32 would not fit a FramePtr
      }
    }
    NS_ABORT_MSG_IF(!base, "FramePtr: could not reserve 64 MiB of address space for frames");
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    if (tunables && std::strstr(tunables, "glibc.malloc.hugetlb=1"))
    {
      madvise(base, units * kUnit, MADV_HUGEPAGE);
    }
  }

  /// \brief The first unit of a new slab of frames of `frameUnits` units each.
  uint32_t CarveSlab(uint32_t frameUnits)
  {
    const uint64_t n = uint64_t(kSlab) * frameUnits;
    const uint64_t first = carved.fetch_add(n, std::memory_order_relaxed);
    NS_ABORT_MSG_IF(first + n > units,
                    "FramePtr: the frame arena is full (" << units * kUnit / 1048576
                                                          << " MiB reserved); too many frames in flight");
    return static_cast<uint32_t>(first);
  }
};

FrameArena&
Arena()
{
  static FrameArena arena;
  return arena;
}

/// Frames are taken from slabs and returned to a free list threaded through the free frames, one
/// list per size (small, big). One pool per thread of a parallel run (FramePtr::UsePool), so
/// taking and returning a frame never synchronises: a frame taken from one pool and returned on
/// another thread joins that thread's free list. `live` counts per pool and may go negative;
/// their sum is exact. Traffic that flows one way between threads would empty one pool and fill
/// another: BalancePools, run at a parallel run's window ends, moves a surplus back.
struct FramePool
{
  static constexpr int64_t kSlab = FrameArena::kSlab;
  static constexpr uint32_t kUnits[2] = { FabricFrame::kSmallBytes / FrameArena::kUnit,
                                          FabricFrame::kBigBytes / FrameArena::kUnit };
  static FabricFrame* At(unsigned char* base, uint32_t unit)
  {
    return reinterpret_cast<FabricFrame*>(base + uint64_t(unit) * FrameArena::kUnit);
  }
  /// A free frame holds the first unit of the next free one of its size in its first 4 bytes.
  static uint32_t& Next(unsigned char* base, uint32_t unit) { return *reinterpret_cast<uint32_t*>(At(base, unit)); }
  uint32_t free[2] = { 0, 0 };     ///< first free frame of each size (0: none)
  int64_t freeCount[2] = { 0, 0 }; ///< frames in `free`
  int64_t live = 0;

  uint32_t Take(unsigned char* base, bool big)
  {
    uint32_t& head = free[big];
    if (!head)
    {
      const uint32_t first = Arena().CarveSlab(kUnits[big]);
      for (uint32_t i = kSlab; i-- > 0;)
      {
        const uint32_t unit = first + i * kUnits[big];
        Next(base, unit) = head;
        head = unit;
      }
      freeCount[big] += kSlab;
    }
    const uint32_t unit = head;
    head = Next(base, unit);
    --freeCount[big];
    ++live;
    FabricFrame* f = At(base, unit);
    std::memset(static_cast<void*>(f), 0, big ? FabricFrame::kBigBytes : FabricFrame::kSmallBytes);
    f->big = big;
    return unit;
  }

  void Give(unsigned char* base, uint32_t unit)
  {
    const bool big = At(base, unit)->big;
    Next(base, unit) = free[big];
    free[big] = unit;
    ++freeCount[big];
    --live;
  }
};

/// The pools, by index; they live as long as the process (frames outlive the threads that
/// took them).
struct PoolRegistry
{
  std::mutex mutex;
  std::vector<std::unique_ptr<FramePool>> pools;

  FramePool* At(std::size_t index)
  {
    std::lock_guard<std::mutex> lock(mutex);
    while (pools.size() <= index)
    {
      pools.push_back(std::make_unique<FramePool>());
    }
    return pools[index].get();
  }
};

PoolRegistry&
Registry()
{
  static PoolRegistry registry;
  return registry;
}

__attribute__((tls_model("initial-exec"))) thread_local FramePool* t_pool = nullptr;

FramePool&
Pool()
{
  if (!t_pool)
  {
    t_pool = Registry().At(0);
  }
  return *t_pool;
}

unsigned char*
ArenaBase()
{
  return Arena().base;
}

} // namespace

// Reserved when the library is loaded (address space only), so that no thread ever writes it.
FramePtr::Unit* FramePtr::s_arena = reinterpret_cast<FramePtr::Unit*>(ArenaBase());

namespace
{
// A parallel run's threads each take frames from a pool of their own; window ends rebalance.
const bool g_poolHooks = (FabricParallelSimulatorImpl::RegisterThreadHooks(
                            { [](uint32_t partition) { FramePtr::UsePool(partition); },
                              [] { FramePtr::BalancePools(); } }),
                          true);
} // namespace

void
FramePtr::UsePool(std::size_t index)
{
  t_pool = Registry().At(index);
}

FramePtr
FramePtr::Make(bool big)
{
  FramePtr p;
  p.m_slot = Pool().Take(reinterpret_cast<unsigned char*>(s_arena), big);
  return p;
}

void
FramePtr::Give(uint32_t slot)
{
  Pool().Give(reinterpret_cast<unsigned char*>(s_arena), slot);
}

void
FramePtr::BalancePools()
{
  PoolRegistry& r = Registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.pools.size() < 2)
  {
    return;
  }
  unsigned char* const base = reinterpret_cast<unsigned char*>(s_arena);
  for (int big = 0; big < 2; ++big)
  {
    int64_t total = 0;
    for (const auto& p : r.pools)
    {
      total += p->freeCount[big];
    }
    const int64_t target = total / int64_t(r.pools.size());
    // Only a surplus of more than a slab moves: steady symmetric traffic moves nothing.
    constexpr int64_t kSlack = FramePool::kSlab;
    uint32_t spare = 0;
    for (const auto& p : r.pools)
    {
      if (p->freeCount[big] <= target + kSlack)
      {
        continue;
      }
      while (p->freeCount[big] > target)
      {
        const uint32_t s = p->free[big];
        p->free[big] = FramePool::Next(base, s);
        --p->freeCount[big];
        FramePool::Next(base, s) = spare;
        spare = s;
      }
    }
    // The short pools are filled up to the average; the remainder (less than one frame per
    // pool) goes to the first.
    auto give = [&spare, base, big](FramePool& p)
    {
      const uint32_t s = spare;
      spare = FramePool::Next(base, s);
      FramePool::Next(base, s) = p.free[big];
      p.free[big] = s;
      ++p.freeCount[big];
    };
    for (const auto& p : r.pools)
    {
      while (spare && p->freeCount[big] < target)
      {
        give(*p);
      }
    }
    while (spare)
    {
      give(*r.pools[0]);
    }
  }
}

std::vector<int64_t>
FramePtr::FreePerPool()
{
  PoolRegistry& r = Registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<int64_t> free;
  for (const auto& p : r.pools)
  {
    free.push_back(p->freeCount[0] + p->freeCount[1]);
  }
  return free;
}

uint64_t
FramePtr::Live()
{
  PoolRegistry& r = Registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  int64_t live = 0;
  for (const auto& p : r.pools)
  {
    live += p->live;
  }
  return static_cast<uint64_t>(live);
}

uint32_t
FabricFrame::InnerBytes() const
{
  switch (inner)
  {
    case Reth:
      return RoceRethHeader::kSize;
    case Aeth:
      return RoceAethHeader::kSize;
    case Cnp:
      return RoceCnpHeader::kSize;
    case Sack:
      return MrcSackHeader::kSize;
    case Nack:
      return MrcNackHeader::kSize;
    case Probe:
      return MrcProbeHeader::kSize;
    case Pfc:
      return PfcPauseHeader::kSize;
    case None:
      break;
  }
  return 0;
}

void
FabricFrame::SetSendTime(int64_t timeStep)
{
  NS_ABORT_MSG_IF(inner != None && inner != Reth, "FabricFrame::SetSendTime: only data frames carry a send time");
  NS_ABORT_MSG_IF(!big, "FabricFrame::SetSendTime: a send time needs a big frame (see ns3::SetSendTime)");
  timed = true;
  u.reth.sendTime = timeStep;
}

void
SetSendTime(FramePtr& frame, int64_t timeStep)
{
  if (!frame->big)
  {
    FramePtr big = FramePtr::Make(true);
    std::memcpy(static_cast<void*>(big.Get()), static_cast<const void*>(frame.Get()), FabricFrame::kSmallBytes);
    big->big = true;
    frame = std::move(big);
  }
  frame->SetSendTime(timeStep);
}

uint32_t
FabricFrame::PayloadReceived() const
{
  const uint32_t headers = RoceUdpHeader::kSize + RoceBthHeader::kSize + InnerBytes();
  return ipPayloadLength > headers ? std::min<uint32_t>(ipPayloadLength - headers, payloadBytes) : 0;
}

uint32_t
FabricFrame::Locator() const
{
  return (uint32_t(dst[0]) << 24) | (uint32_t(dst[1]) << 16) | (uint32_t(dst[2]) << 8) | dst[3];
}

void
FabricFrame::ShiftUsid()
{
  std::memmove(&dst[4], &dst[6], 10);
  dst[14] = 0;
  dst[15] = 0;
}

namespace
{

/// A RETH virtual address as a frame keeps it (32 bits: see the file comment).
uint32_t
FrameVirtualAddress(uint64_t address)
{
  NS_ABORT_MSG_IF(address > UINT32_MAX,
                  "FabricFrame: RETH virtual address 0x" << std::hex << address
                                                         << " is beyond the 32 bits a frame keeps");
  return static_cast<uint32_t>(address);
}

} // namespace

FramePtr
MakeFrame(const FabricPacketSpec& s, bool big)
{
  FramePtr f = FramePtr::Make(big);
  f->srcGpu = s.srcGpu;
  f->srcPlane = static_cast<uint8_t>(s.plane);
  if (s.usids.empty())
  {
    f->dst = GpuAddress(s.dstGpu, s.plane);
  }
  else
  {
    Ipv6UsidHeader ip;
    ip.SetUsidDestination(mrcsim::FabricRouting::Locator(s.plane), s.usids);
    f->dst = ip.GetDestinationBytes();
  }
  NS_ABORT_MSG_IF(s.flowLabel > 0xFFFFF, "MakeFrame: flow label " << s.flowLabel << " does not fit in 20 bits");
  f->flowLabel = s.flowLabel;
  f->trafficClass = static_cast<uint8_t>((s.dscp << 2) | s.ecn);
  f->hopLimit = 64;
  f->srcPort = s.entropy;
  f->opcode = s.opcode;
  f->ackRequest = s.ackRequest;
  f->destQp = s.destQp & 0xFFFFFF;
  f->psn = s.psn & 0xFFFFFF;
  if (s.reth)
  {
    f->inner = FabricFrame::Reth;
    f->u.reth.virtualAddress = FrameVirtualAddress(s.remoteAddress);
    f->u.reth.dmaLength = s.payloadBytes;
  }
  f->payloadBytes = static_cast<uint16_t>(s.payloadBytes);
  f->ipPayloadLength =
    static_cast<uint16_t>(RoceUdpHeader::kSize + RoceBthHeader::kSize + f->InnerBytes() + s.payloadBytes);
  return f;
}

void
WriteInner(FabricFrame& f, const RoceRethHeader& h)
{
  f.inner = FabricFrame::Reth;
  f.u.reth.virtualAddress = FrameVirtualAddress(h.GetVirtualAddress());
  f.u.reth.dmaLength = h.GetDmaLength();
}

void
ReadInner(const FabricFrame& f, RoceRethHeader& h)
{
  h.SetVirtualAddress(f.u.reth.virtualAddress);
  h.SetRkey(1);
  h.SetDmaLength(f.u.reth.dmaLength);
}

void
WriteInner(FabricFrame& f, const RoceAethHeader& h)
{
  f.inner = FabricFrame::Aeth;
  f.u.aeth.syndrome = h.GetSyndrome();
  f.u.aeth.msn = h.GetMsn();
}

void
WriteInner(FabricFrame& f, const RoceCnpHeader& h)
{
  f.inner = FabricFrame::Cnp;
}

void
ReadInner(const FabricFrame& f, RoceAethHeader& h)
{
  h.SetSyndrome(f.u.aeth.syndrome);
  h.SetMsn(f.u.aeth.msn);
}

void
WriteInner(FabricFrame& f, const MrcSackHeader& h)
{
  NS_ABORT_MSG_IF(!f.big, "WriteInner: a SACK needs a big frame (FramePtr::Make(true))");
  f.inner = FabricFrame::Sack;
  f.u.sack.cumulativeAckPsn = h.GetCumulativeAckPsn();
  f.u.sack.ackedPsn = h.GetAckedPsn();
  f.u.sack.baseOffset = h.GetSackBaseOffset();
  f.u.sack.bitmap = h.GetBitmap();
  f.u.sack.echoedEv = h.GetEchoedEv();
  f.u.sack.timestampEcho = h.GetTimestampEcho();
  f.ecnEcho = h.GetEcnEcho();
}

void
ReadInner(const FabricFrame& f, MrcSackHeader& h)
{
  h.SetCumulativeAckPsn(f.u.sack.cumulativeAckPsn);
  h.SetAckedPsn(f.u.sack.ackedPsn);
  h.SetSackBaseOffset(f.u.sack.baseOffset);
  h.SetBitmap(f.u.sack.bitmap);
  h.SetEchoedEv(f.u.sack.echoedEv);
  h.SetTimestampEcho(f.u.sack.timestampEcho);
  h.SetEcnEcho(f.ecnEcho);
}

void
WriteInner(FabricFrame& f, const MrcNackHeader& h)
{
  f.inner = FabricFrame::Nack;
  f.u.nack.psn = h.GetPsn();
  f.u.nack.reason = h.GetReason();
  f.u.nack.echoedEv = h.GetEchoedEv();
}

void
ReadInner(const FabricFrame& f, MrcNackHeader& h)
{
  h.SetPsn(f.u.nack.psn);
  h.SetReason(static_cast<MrcNackHeader::Reason>(f.u.nack.reason));
  h.SetEchoedEv(f.u.nack.echoedEv);
}

void
WriteInner(FabricFrame& f, const MrcProbeHeader& h)
{
  NS_ABORT_MSG_IF(!f.big, "WriteInner: a probe needs a big frame (FramePtr::Make(true))");
  f.inner = FabricFrame::Probe;
  f.u.probe.type = h.GetType();
  f.u.probe.ev = h.GetEv();
  f.u.probe.sequence = h.GetSequence();
  f.u.probe.sendTimestamp = h.GetSendTimestamp();
}

void
ReadInner(const FabricFrame& f, MrcProbeHeader& h)
{
  h.SetType(static_cast<MrcProbeHeader::Type>(f.u.probe.type));
  h.SetEv(f.u.probe.ev);
  h.SetSequence(f.u.probe.sequence);
  h.SetSendTimestamp(f.u.probe.sendTimestamp);
}

void
WriteInner(FabricFrame& f, const PfcPauseHeader& h)
{
  NS_ABORT_MSG_IF(!f.big, "WriteInner: a PFC frame needs a big frame (FramePtr::Make(true))");
  f.inner = FabricFrame::Pfc;
  f.u.pfc.classEnableVector = h.GetClassEnableVector();
  for (uint8_t c = 0; c < PfcPauseHeader::kPriorities; ++c)
  {
    f.u.pfc.quanta[c] = h.GetQuanta(c);
  }
}

void
ReadInner(const FabricFrame& f, PfcPauseHeader& h)
{
  h.SetClassEnableVector(f.u.pfc.classEnableVector);
  for (uint8_t c = 0; c < PfcPauseHeader::kPriorities; ++c)
  {
    h.SetQuanta(c, f.u.pfc.quanta[c]);
  }
}

namespace
{

/// Adds the frame's inner header, as its class, in front of what `p` holds.
template<typename H>
void
AddInner(const FabricFrame& f, Ptr<Packet> p)
{
  H h;
  ReadInner(f, h);
  p->AddHeader(h);
}

/// Removes the inner header from the front of `p` into the frame.
template<typename H>
void
RemoveInner(FabricFrame& f, Ptr<Packet> p)
{
  H h;
  p->RemoveHeader(h);
  WriteInner(f, h);
}

} // namespace

Ptr<Packet>
ToPacket(const FabricFrame& f)
{
  // ns-3 Packets share global state (free lists, the uid counter) that nothing locks.
  NS_ABORT_MSG_IF(FabricParallelSimulatorImpl::InParallelWindow(),
                  "a frame was converted to an ns-3 Packet inside a parallel run's window (a packet trace "
                  "source or pcap is on): run with one partition to trace packets");
  if (f.IsPfc())
  {
    Ptr<Packet> p = Create<Packet>();
    AddInner<PfcPauseHeader>(f, p);
    return p;
  }
  Ptr<Packet> p = Create<Packet>(f.payloadBytes);
  if (f.timed)
  {
    SendTimeTag tag;
    tag.SetTime(TimeStep(static_cast<uint64_t>(f.SendTime())));
    p->AddPacketTag(tag);
  }
  switch (f.inner)
  {
    case FabricFrame::Reth:
      AddInner<RoceRethHeader>(f, p);
      break;
    case FabricFrame::Aeth:
      AddInner<RoceAethHeader>(f, p);
      break;
    case FabricFrame::Cnp:
      p->AddHeader(RoceCnpHeader());
      break;
    case FabricFrame::Sack:
      AddInner<MrcSackHeader>(f, p);
      break;
    case FabricFrame::Nack:
      AddInner<MrcNackHeader>(f, p);
      break;
    case FabricFrame::Probe:
      AddInner<MrcProbeHeader>(f, p);
      break;
    case FabricFrame::None:
    case FabricFrame::Pfc:
      break;
  }
  RoceBthHeader bth;
  bth.SetOpcode(f.opcode);
  bth.SetDestQp(f.destQp);
  bth.SetPsn(f.psn);
  bth.SetAckReq(f.ackRequest);
  p->AddHeader(bth);
  RoceUdpHeader udp;
  udp.SetSourcePort(f.srcPort);
  udp.SetDestinationPort(RoceUdpHeader::kRoceV2Port);
  udp.SetLength(static_cast<uint16_t>(p->GetSize() + RoceUdpHeader::kSize));
  p->AddHeader(udp);
  // Trimmed: the content after the IPv6 header was cut to its payload length.
  if (p->GetSize() > f.ipPayloadLength)
  {
    p->RemoveAtEnd(p->GetSize() - f.ipPayloadLength);
  }
  Ipv6UsidHeader ip;
  ip.SetTrafficClass(f.trafficClass);
  ip.SetFlowLabel(f.flowLabel);
  ip.SetPayloadLength(f.ipPayloadLength);
  ip.SetNextHeader(Ipv6UsidHeader::kNextHeaderUdp);
  ip.SetHopLimit(f.hopLimit);
  ip.SetSourceBytes(GpuAddress(f.srcGpu, f.srcPlane));
  ip.SetDestinationBytes(f.dst);
  p->AddHeader(ip);
  return p;
}

FramePtr
FromPacket(Ptr<const Packet> packet, uint16_t protocol)
{
  FramePtr f = FramePtr::Make(true); // big: it may hold anything
  Ptr<Packet> p = packet->Copy();
  if (protocol == PfcPauseHeader::kEtherType)
  {
    RemoveInner<PfcPauseHeader>(*f, p);
    return f;
  }
  NS_ABORT_MSG_IF(protocol != 0x86DD, "FromPacket: EtherType 0x" << std::hex << protocol << " is neither IPv6 nor PFC");
  Ipv6UsidHeader ip;
  p->RemoveHeader(ip);
  NS_ABORT_MSG_IF(ip.GetNextHeader() != Ipv6UsidHeader::kNextHeaderUdp,
                  "FromPacket: next header " << int(ip.GetNextHeader()) << "; the fabric carries IPv6 + UDP only");
  NS_ABORT_MSG_IF(!IsGpuAddress(ip.GetSourceBytes()),
                  "FromPacket: source " << ip.GetSource() << " is not a GPU address");
  const auto& src = ip.GetSourceBytes();
  f->srcGpu = GpuOfAddress(src);
  f->srcPlane = static_cast<uint8_t>((src[4] << 8) | src[5]);
  f->dst = ip.GetDestinationBytes();
  f->flowLabel = ip.GetFlowLabel();
  f->trafficClass = ip.GetTrafficClass();
  f->hopLimit = ip.GetHopLimit();
  f->ipPayloadLength = ip.GetPayloadLength();
  NS_ABORT_MSG_IF(p->GetSize() < RoceUdpHeader::kSize + RoceBthHeader::kSize,
                  "FromPacket: " << p->GetSize() << " bytes after IPv6, fewer than UDP + BTH");
  RoceUdpHeader udp;
  p->RemoveHeader(udp);
  RoceBthHeader bth;
  p->RemoveHeader(bth);
  f->srcPort = udp.GetSourcePort();
  f->opcode = bth.GetOpcode();
  f->ackRequest = bth.GetAckReq();
  f->destQp = bth.GetDestQp();
  f->psn = bth.GetPsn();
  // What follows the BTH, by opcode. A RETH is read where RoCEv2 puts one (first and only
  // packets of a write, when there is room for one); MRC's RETH on every packet is read as
  // payload on middle and last ones.
  const uint8_t op = f->opcode;
  const uint32_t afterBth = udp.GetLength() - RoceUdpHeader::kSize - RoceBthHeader::kSize;
  const bool reth =
    RoceBthHeader::IsRdmaWrite(op) && RoceBthHeader::HasStandardReth(op) && afterBth >= RoceRethHeader::kSize;
  f->inner = op == MrcSackHeader::kBthOpcode    ? FabricFrame::Sack
             : op == MrcNackHeader::kBthOpcode  ? FabricFrame::Nack
             : op == MrcProbeHeader::kBthOpcode ? FabricFrame::Probe
             : op == RoceBthHeader::kRcAck      ? FabricFrame::Aeth
             : op == RoceBthHeader::kCnp        ? FabricFrame::Cnp
             : reth                             ? FabricFrame::Reth
                                                : FabricFrame::None;
  NS_ABORT_MSG_IF(udp.GetLength() < RoceUdpHeader::kSize + RoceBthHeader::kSize + f->InnerBytes(),
                  "FromPacket: UDP length " << udp.GetLength() << " too short for opcode 0x" << std::hex << int(op));
  f->payloadBytes = static_cast<uint16_t>(afterBth - f->InnerBytes());
  SendTimeTag tag;
  if (p->PeekPacketTag(tag))
  {
    f->SetSendTime(tag.GetTime().GetTimeStep());
  }
  // A trimmed packet lost its inner header with the payload: its fields stay zero.
  if (p->GetSize() < f->InnerBytes())
  {
    return f;
  }
  switch (f->inner)
  {
    case FabricFrame::Reth:
      RemoveInner<RoceRethHeader>(*f, p);
      break;
    case FabricFrame::Aeth:
      RemoveInner<RoceAethHeader>(*f, p);
      break;
    case FabricFrame::Sack:
      RemoveInner<MrcSackHeader>(*f, p);
      break;
    case FabricFrame::Nack:
      RemoveInner<MrcNackHeader>(*f, p);
      break;
    case FabricFrame::Probe:
      RemoveInner<MrcProbeHeader>(*f, p);
      break;
    case FabricFrame::Cnp:
    case FabricFrame::None:
    case FabricFrame::Pfc:
      break;
  }
  return f;
}

} // namespace ns3

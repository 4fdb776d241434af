// QP prototypes (MrcQueuePair::CreatePrototype, RoceQueuePair::CreatePrototype): a copy carries
// every attribute of its prototype, and QPs copied from a prototype (with their congestion
// controller, EV selector and DCQCN rate control) run exactly as QPs built attribute by attribute.
#include "fabric-test-fixture.h"
#include "roce-fabric.h"

#include "models/mrc/mrc-connect.h"
#include "models/mrc/nscc-congestion-control.h"
#include "models/mrc/penalty-ev-selector.h"
#include "models/mrc/random-ev-selector.h"
#include "models/mrc/round-robin-ev-selector.h"
#include "models/roce/dcqcn-rate-control.h"
#include "models/roce/roce-connect.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <set>
#include <thread>
#include <string>
#include <vector>

using namespace mrcsim;
using namespace mrcsim::test;
using namespace ns3;

namespace
{

/// Every attribute `tid` has (its parents' too), by name.
std::vector<std::string>
AttributeNames(TypeId tid)
{
  std::vector<std::string> names;
  for (; tid != Object::GetTypeId() && tid != ObjectBase::GetTypeId(); tid = tid.GetParent())
  {
    for (uint32_t i = 0; i < tid.GetAttributeN(); ++i)
      names.push_back(tid.GetAttribute(i).name);
  }
  return names;
}

/// Sets `values` (a value for every attribute of `prototype`'s type, other than the default
/// unless named in `onlyValue`: an attribute whose one possible value is the default) on the
/// prototype, then checks that `copy` reads the same for each.
template<typename T, typename Copy>
void
CheckCopiesEveryAttribute(Ptr<T> prototype,
                          const std::map<std::string, std::string>& values,
                          const std::set<std::string>& onlyValue,
                          const Copy& copy)
{
  const TypeId tid = prototype->GetInstanceTypeId();
  const std::vector<std::string> names = AttributeNames(tid);
  CHECK(names.size() == values.size()); // a new attribute needs a value here
  for (const std::string& name : names)
  {
    INFO(tid.GetName() << "::" << name);
    REQUIRE(values.count(name) == 1);
    prototype->SetAttribute(name, StringValue(values.at(name)));
  }
  auto made = copy();
  for (const std::string& name : names)
  {
    INFO(tid.GetName() << "::" << name);
    TypeId::AttributeInformation info;
    REQUIRE(tid.LookupAttributeByName(name, &info));
    StringValue set;
    StringValue copied;
    prototype->GetAttribute(name, set);
    made->GetAttribute(name, copied);
    CHECK(copied.Get() == set.Get());
    if (!onlyValue.count(name))
      CHECK(set.Get() != info.initialValue->SerializeToString(info.checker));
  }
}

/// What a run of QP pairs did: completion times and counters, per pair.
struct Outcome
{
  std::vector<Time> done;
  std::vector<uint64_t> packets;
  std::vector<uint64_t> retransmissions;
  bool operator==(const Outcome& o) const
  {
    return done == o.done && packets == o.packets && retransmissions == o.retransmissions;
  }
};

void
OnDone(std::vector<Time>* done, uint32_t, uint64_t, uint64_t, Time)
{
  done->push_back(Simulator::Now());
}

/// GPUs 1, 2 and 3 each write 2 MB to GPU 0 over MRC at once (an incast, so that the window
/// controller acts), with QPs from `prototype` or, if null, built attribute by attribute.
Outcome
MrcIncast(Ptr<const MrcQueuePair> prototype)
{
  FabricFixture f(TinyMultiplane());
  Outcome o;
  std::vector<std::pair<Ptr<MrcQueuePair>, Ptr<MrcQueuePair>>> qps;
  for (uint32_t src = 1; src <= 3; ++src)
  {
    qps.push_back(prototype ? ConnectMrc(*f.net, src, 0, *prototype) : ConnectMrc(*f.net, src, 0));
    qps.back().second->TraceConnectWithoutContext("RecvComplete", MakeBoundCallback(&OnDone, &o.done));
    qps.back().first->PostWrite(2ull << 20);
  }
  Simulator::Run();
  for (const auto& qp : qps)
  {
    o.packets.push_back(qp.first->PacketsSent());
    o.retransmissions.push_back(qp.first->Retransmissions());
  }
  return o;
}

/// As MrcIncast over RoCEv2 with PFC and the DCQCN profile's marking, on NIC port 0.
Outcome
RoceIncast(Ptr<const RoceQueuePair> prototype, uint64_t* cnps)
{
  FabricFixture f(TinyMultiplane());
  RoceFabric(*f.net);
  Outcome o;
  std::vector<std::pair<Ptr<RoceQueuePair>, Ptr<RoceQueuePair>>> qps;
  for (uint32_t src = 1; src <= 3; ++src)
  {
    const uint16_t entropy = static_cast<uint16_t>(0xC000 + src);
    qps.push_back(prototype ? ConnectRoce(*f.net, src, 0, 0, entropy, *prototype) : ConnectRoce(*f.net, src, 0, 0, entropy));
    qps.back().second->TraceConnectWithoutContext("RecvComplete", MakeBoundCallback(&OnDone, &o.done));
    qps.back().first->PostWrite(8ull << 20);
  }
  Simulator::Run();
  *cnps = 0;
  for (const auto& qp : qps)
  {
    o.packets.push_back(qp.first->PacketsSent());
    o.retransmissions.push_back(qp.first->Retransmissions());
    *cnps += qp.first->CnpsReceived();
  }
  return o;
}

} // namespace

TEST_CASE("qp prototype: an MRC QP's copy carries every attribute of its prototype", "[mrc][prototype]")
{
  const std::map<std::string, std::string> values = {
    { "EvCount", "64" },
    { "BackupEvsPerPlane", "3" },
    { "PathMode", "entropy" },
    { "HealthScope", "per-qp" },
    { "SackEvery", "2" },
    { "SackDelay", "2us" },
    { "RetransmitTimeout", "300us" },
    { "SendTimeBits", "20" },
    { "RetryLimit", "7" },
    { "ReorderWindow", "13us" },
    { "LossProbeRtts", "3" },
    { "ProbeInterval", "60us" },
    { "ProbeIntervalMax", "500us" },
    { "NoPathTimeout", "3ms" },
    { "PortStatusDelay", "20us" },
    { "TrimmedDscp", "40" },
    { "EvSelector", "ns3::PenaltyEvSelector" },
    { "CongestionControl", "ns3::NsccCongestionControl" },
  };
  // The library has one congestion controller: CongestionControl can only be set to its default.
  Ptr<MrcQueuePair> prototype = MrcQueuePair::CreatePrototype();
  CheckCopiesEveryAttribute(prototype, values, { "CongestionControl" }, [&] { return prototype->Copy(); });
}

TEST_CASE("qp prototype: a RoCEv2 QP's copy carries every attribute of its prototype", "[roce][prototype]")
{
  const std::map<std::string, std::string> values = {
    { "Port", "3" },
    { "Entropy", "49413" },
    { "AckInterval", "4" },
    { "AckDelay", "3us" },
    { "RetransmitTimeout", "2ms" },
    { "RetryLimit", "5" },
    { "CnpInterval", "10us" },
    { "Dcqcn", "false" },
  };
  Ptr<RoceQueuePair> prototype = RoceQueuePair::CreatePrototype();
  CheckCopiesEveryAttribute(prototype, values, {}, [&] { return prototype->Copy(3, 49413); });
}

TEST_CASE("qp prototype: a DCQCN rate control's copy carries every attribute of its prototype", "[roce][prototype]")
{
  const std::map<std::string, std::string> values = {
    { "Profile", "ConnectX" },
    { "G", "0.125" },
    { "InitialAlpha", "0.5" },
    { "AlphaUpdatePeriod", "7us" },
    { "RateIncreasePeriod", "90us" },
    { "ByteCounter", "65536" },
    { "FastRecoverySteps", "3" },
    { "AdditiveIncrease", "20Mbps" },
    { "HyperIncrease", "200Mbps" },
    { "MinRate", "2Mbps" },
    { "CutInterval", "3us" },
    { "MinDecreaseFactor", "0.8" },
    { "AlphaIdleThreshold", "0.01" },
  };
  Ptr<DcqcnRateControl> prototype = CreateLight<DcqcnRateControl>();
  CheckCopiesEveryAttribute(prototype, values, {}, [&] { return prototype->Copy(); });
}

TEST_CASE("qp prototype: MRC QPs copied from a prototype run as QPs built attribute by attribute",
          "[mrc][prototype]")
{
  // Settings other than the defaults, of the QP and of its congestion controller and EV selector,
  // as the prototype copies them.
  ScopedDefault window("ns3::NsccCongestionControl::InitialWindow", DoubleValue(0.5), DoubleValue(1.5));
  ScopedDefault evs("ns3::MrcQueuePair::EvCount", UintegerValue(32), UintegerValue(128));
  ScopedDefault selector("ns3::MrcQueuePair::EvSelector", StringValue("ns3::PenaltyEvSelector"),
                         StringValue("ns3::RoundRobinEvSelector"));
  const Outcome built = MrcIncast(nullptr);
  const Outcome copied = MrcIncast(MrcQueuePair::CreatePrototype());
  REQUIRE(built.done.size() == 3);
  CHECK(copied == built);
  // The controller's setting reached the copies: with the default window the run differs.
  Outcome defaults;
  {
    ScopedDefault back("ns3::NsccCongestionControl::InitialWindow", DoubleValue(1.5), DoubleValue(0.5));
    defaults = MrcIncast(MrcQueuePair::CreatePrototype());
  }
  CHECK(defaults.done != copied.done);
}

TEST_CASE("qp prototype: RoCEv2 QPs copied from a prototype run as QPs built attribute by attribute",
          "[roce][prototype]")
{
  ScopedDefault g("ns3::DcqcnRateControl::G", DoubleValue(1.0 / 16), DoubleValue(0));
  ScopedDefault acks("ns3::RoceQueuePair::AckInterval", UintegerValue(4), UintegerValue(16));
  uint64_t cnpsBuilt = 0;
  uint64_t cnpsCopied = 0;
  const Outcome built = RoceIncast(nullptr, &cnpsBuilt);
  const Outcome copied = RoceIncast(RoceQueuePair::CreatePrototype(), &cnpsCopied);
  REQUIRE(built.done.size() == 3);
  CHECK(cnpsBuilt > 0);
  CHECK(cnpsCopied == cnpsBuilt);
  CHECK(copied == built);
  // DCQCN's gain reached the copies' rate control: with the default gain the run differs.
  Outcome defaults;
  uint64_t cnpsDefault = 0;
  {
    ScopedDefault back("ns3::DcqcnRateControl::G", DoubleValue(0), DoubleValue(1.0 / 16));
    defaults = RoceIncast(RoceQueuePair::CreatePrototype(), &cnpsDefault);
  }
  CHECK(defaults.done != copied.done);
}

TEST_CASE("qp prototype: an attribute written on one copy changes that copy alone", "[mrc][prototype]")
{
  Ptr<MrcQueuePair> prototype = MrcQueuePair::CreatePrototype();
  Ptr<MrcQueuePair> a = prototype->Copy();
  Ptr<MrcQueuePair> b = prototype->Copy();
  a->SetAttribute("SackEvery", UintegerValue(9));
  UintegerValue read;
  a->GetAttribute("SackEvery", read);
  CHECK(read.Get() == 9);
  for (Ptr<MrcQueuePair> other : { prototype, b })
  {
    other->GetAttribute("SackEvery", read);
    CHECK(read.Get() == 4); // the default
  }
  // The copy keeps what else it shares: a later copy is still the prototype's.
  b->SetAttribute("EvCount", UintegerValue(16));
  prototype->Copy()->GetAttribute("EvCount", read);
  CHECK(read.Get() == 128);
}

/// Copies `prototype` 100,000 times on each of two threads at once: every copy has its type
/// and a count of one, and the prototype's count is as it was.
template<typename T>
void
CheckThreadsCopy(Ptr<T> prototype)
{
  INFO(prototype->GetInstanceTypeId().GetName());
  const uint32_t before = prototype->GetReferenceCount();
  const T* raw = PeekPointer(prototype);
  auto copyMany = [raw](bool* sameType)
  {
    *sameType = true;
    for (int i = 0; i < 100000; ++i)
    {
      auto copy = raw->Copy();
      *sameType = *sameType && copy && copy->GetInstanceTypeId() == raw->GetInstanceTypeId() &&
                  copy->GetReferenceCount() == 1;
    }
  };
  bool sameA = false;
  bool sameB = false;
  std::thread a(copyMany, &sameA);
  std::thread b(copyMany, &sameB);
  a.join();
  b.join();
  CHECK(sameA);
  CHECK(sameB);
  CHECK(prototype->GetReferenceCount() == before);
}

TEST_CASE("qp prototype: threads copy a controller, rate control or selector at once, leaving the prototype as it was",
          "[mrc][prototype]")
{
  // QPs copy them at their first message, on the partitions' threads at once. A copy that took a
  // reference to the prototype (CopyObject does) would race on its count, which is not atomic:
  // counts lost between two threads leave it wrong (or free the prototype).
  CheckThreadsCopy(CreateLight<NsccCongestionControl>());
  CheckThreadsCopy(CreateLight<DcqcnRateControl>());
  CheckThreadsCopy(CreateLight<RoundRobinEvSelector>());
  CheckThreadsCopy(CreateLight<RandomEvSelector>());
  CheckThreadsCopy(CreateLight<PenaltyEvSelector>());
}

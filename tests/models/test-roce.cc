// RoCEv2 QP over ECMP: goodput, go-back-N under loss, DCQCN fairness, PFC incast, and recovery
// only through ECMP repair after a link failure.
#include "fabric-test-fixture.h"
#include "roce-fabric.h"
#include "tests/roce-invariants.h"

#include "models/roce/dcqcn-rate-control.h"
#include "models/roce/roce-connect.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/uinteger.h"

#include <catch2/catch.hpp>

using namespace mrcsim;
using namespace mrcsim::test;
using namespace ns3;

namespace
{

struct Completions
{
  std::vector<std::pair<uint64_t, uint64_t>> sent; ///< (message id, bytes)
  std::vector<std::pair<uint64_t, uint64_t>> received;
  std::vector<Time> sentAt;
  std::vector<Time> receivedAt;
  std::vector<std::string> errors;
  std::vector<Time> stalls;
};

void
OnSend(Completions* c, uint32_t, uint64_t id, uint64_t bytes, Time)
{
  c->sent.emplace_back(id, bytes);
  c->sentAt.push_back(Simulator::Now());
}

void
OnRecv(Completions* c, uint32_t, uint64_t id, uint64_t bytes, Time)
{
  c->received.emplace_back(id, bytes);
  c->receivedAt.push_back(Simulator::Now());
}

void
OnError(Completions* c, uint32_t, const std::string& cause)
{
  c->errors.push_back(cause);
}

void
OnStall(Completions* c, uint32_t, Time lost)
{
  c->stalls.push_back(lost);
}

void
Watch(std::pair<Ptr<RoceQueuePair>, Ptr<RoceQueuePair>> qp, Completions& c)
{
  qp.first->TraceConnectWithoutContext("SendComplete", MakeBoundCallback(&OnSend, &c));
  qp.first->TraceConnectWithoutContext("Error", MakeBoundCallback(&OnError, &c));
  qp.first->TraceConnectWithoutContext("Stall", MakeBoundCallback(&OnStall, &c));
  qp.second->TraceConnectWithoutContext("RecvComplete", MakeBoundCallback(&OnRecv, &c));
}

uint64_t
AllDrops(const FabricNetwork& net)
{
  uint64_t n = 0;
  for (size_t c = 0; c < static_cast<size_t>(DropCause::Count); ++c)
    n += net.CountDrops(static_cast<DropCause>(c));
  return n;
}

/// The fabric link carrying GPU `gpu`'s NIC port in `plane` (NIC to T0).
uint32_t
NicLink(const FabricFixture& f, uint32_t gpu, int plane)
{
  return f.Routing().Attach(gpu, plane).link;
}

} // namespace

TEST_CASE("roce: one QP on an idle path reaches 98% of the port rate", "[roce]")
{
  FabricFixture f(test::TinyMultiplane());
  auto qp = ConnectRoce(*f.net, 0, 4, 0, 0xC001);
  Completions c;
  Watch(qp, c);
  const uint64_t bytes = 200ull << 20;
  qp.first->PostWrite(bytes);
  Simulator::Run();
  REQUIRE(c.sent.size() == 1);
  REQUIRE(c.received.size() == 1);
  CHECK(c.received[0].second == bytes);
  const double goodput = double(bytes) * 8 / c.sentAt[0].GetSeconds();
  INFO("goodput " << goodput / 1e9 << " Gb/s");
  CHECK(goodput >= 0.98 * 100e9);
  // Nothing was lost or resent on an idle path.
  CHECK(qp.first->Retransmissions() == 0);
  CHECK(AllDrops(*f.net) == 0);
}

TEST_CASE("roce: go-back-N resends exactly from the lost packet to the send point", "[roce]")
{
  FabricFixture f(test::TinyMultiplane());
  auto qp = ConnectRoce(*f.net, 0, 4, 0, 0xC001);
  qp.first->SetAttribute("Dcqcn", BooleanValue(false));
  Completions c;
  Watch(qp, c);
  std::vector<std::pair<uint32_t, uint64_t>> rewinds;
  qp.first->TraceConnectWithoutContext(
    "Rewind",
    MakeBoundCallback(
      +[](std::vector<std::pair<uint32_t, uint64_t>>* r, uint32_t, uint32_t psn, uint64_t packets, bool timeout)
      { r->emplace_back(psn, packets); },
      &rewinds));
  // Lose exactly the frame that starts at 50 us on GPU 0's NIC link (the NIC starts frames when
  // it sends them, so the window holds one frame start).
  Ptr<FabricChannel> ch = f.net->GetChannel(NicLink(f, 0, 0));
  Ptr<FabricPort> nic = f.NicPort(0, 0);
  Simulator::Schedule(MicroSeconds(50), [&] { ch->SetLossRate(PeekPointer(nic), 1.0); });
  Simulator::Schedule(MicroSeconds(50) + PicoSeconds(335000), [&] { ch->SetLossRate(PeekPointer(nic), 0.0); });
  const uint64_t bytes = 4096ull * 1000;
  qp.first->PostWrite(bytes);
  Simulator::Run();
  REQUIRE(c.received.size() == 1);
  CHECK(c.received[0].second == bytes);
  CHECK(f.net->CountDrops(DropCause::RandomLoss) == 1);
  REQUIRE(rewinds.size() == 1);
  // The receiver NAKed the lost PSN; everything sent from it on was resent once.
  CHECK(qp.first->Retransmissions() == rewinds[0].second);
  CHECK(rewinds[0].second > 1);
  CHECK(nic->TxPackets() == 1000 + qp.first->Retransmissions());
  CHECK(qp.second->NaksSent() == 1);
  CHECK(qp.first->Timeouts() == 0);
}

TEST_CASE("roce: under random loss every message arrives intact and in order", "[roce]")
{
  FabricFixture f(test::TinyMultiplane());
  auto qp = ConnectRoce(*f.net, 0, 4, 0, 0xC001);
  qp.first->SetAttribute("Dcqcn", BooleanValue(false));
  Completions c;
  Watch(qp, c);
  uint64_t resendable = 0;
  qp.first->TraceConnectWithoutContext(
    "Rewind",
    MakeBoundCallback(
      +[](uint64_t* total, uint32_t, uint32_t, uint64_t packets, bool) { *total += packets; }, &resendable));
  Ptr<FabricPort> nic = f.NicPort(0, 0);
  f.net->GetChannel(NicLink(f, 0, 0))->SetLossRate(PeekPointer(nic), 0.01);
  // ACKs are lost too on the way back.
  Ptr<FabricPort> back = f.LeafPortFacing(0, 0);
  f.net->GetChannel(NicLink(f, 0, 0))->SetLossRate(PeekPointer(back), 0.01);
  std::vector<uint64_t> sizes;
  uint64_t packets = 0;
  for (int i = 0; i < 20; ++i)
  {
    sizes.push_back(4096 * (10 + 7 * i) + 123 * i);
    packets += (sizes.back() + 4095) / 4096;
    qp.first->PostWrite(sizes.back());
  }
  Simulator::Run();
  REQUIRE(c.received.size() == 20);
  REQUIRE(c.sent.size() == 20);
  for (uint64_t i = 0; i < 20; ++i)
  {
    CHECK(c.received[i].first == i);
    CHECK(c.received[i].second == sizes[i]);
    CHECK(c.sent[i].first == i);
  }
  const uint64_t lost = f.net->CountDrops(DropCause::RandomLoss);
  INFO("lost " << lost << " retransmitted " << qp.first->Retransmissions());
  CHECK(lost > 0);
  CHECK(c.errors.empty());
  // Every data frame on the wire is a first transmission or a counted retransmission, and the
  // retransmissions never exceed what the rewinds asked for.
  CHECK(nic->TxPackets() == packets + qp.first->Retransmissions());
  CHECK(qp.first->Retransmissions() <= resendable);
  CHECK(qp.first->Retransmissions() >= 1);
}

TEST_CASE("roce: two QPs through one bottleneck converge to a fair share", "[roce][dcqcn]")
{
  FabricFixture f(test::TinyMultiplane());
  RoceFabric(*f.net);
  auto a = ConnectRoce(*f.net, 0, 2, 0, 0xC001);
  auto b = ConnectRoce(*f.net, 1, 2, 0, 0xC002);
  Completions ca;
  Completions cb;
  Watch(a, ca);
  Watch(b, cb);
  a.first->PostWrite(1ull << 40);
  b.first->PostWrite(1ull << 40);
  // Throughput of each QP over [10 ms, 20 ms]: bytes its NIC port sent.
  Ptr<FabricPort> pa = f.NicPort(0, 0);
  Ptr<FabricPort> pb = f.NicPort(1, 0);
  uint64_t a0 = 0;
  uint64_t b0 = 0;
  Simulator::Schedule(MilliSeconds(10),
                      [&]
                      {
                        pa->CatchUp(); // the ports as of now
                        pb->CatchUp();
                        a0 = pa->TxBytes();
                        b0 = pb->TxBytes();
                      });
  uint64_t a1 = 0;
  uint64_t b1 = 0;
  Simulator::Schedule(MilliSeconds(20),
                      [&]
                      {
                        pa->CatchUp();
                        pb->CatchUp();
                        a1 = pa->TxBytes();
                        b1 = pb->TxBytes();
                        Simulator::Stop();
                      });
  Simulator::Run();
  const double ra = double(a1 - a0) * 8 / 10e-3;
  const double rb = double(b1 - b0) * 8 / 10e-3;
  INFO("rates " << ra / 1e9 << " and " << rb / 1e9 << " Gb/s");
  CHECK(a.first->CnpsReceived() > 0);
  CHECK(b.first->CnpsReceived() > 0);
  // Fair within 20%, and together they keep the bottleneck busy (at least 85%).
  CHECK(ra / rb == Approx(1.0).epsilon(0.2));
  CHECK(ra + rb >= 0.85 * 100e9 * 4096 / 4174);
  CHECK(AllDrops(*f.net) == 0);
}

TEST_CASE("roce: a long incast with PFC loses no packet", "[roce][pfc]")
{
  FabricFixture f(PresetSpec("multiplane-64"));
  for (auto cfg : { f.net->GetFabricPortConfig(), f.net->GetLastHopPortConfig(), f.net->GetNicPortConfig() })
  {
    cfg->SetAttribute("PfcEnabled", BooleanValue(true));
    cfg->SetAttribute("DataLimit", UintegerValue(100000));
  }
  std::vector<Completions> c(12);
  std::vector<std::pair<Ptr<RoceQueuePair>, Ptr<RoceQueuePair>>> qps;
  for (uint32_t i = 0; i < 12; ++i)
  {
    // Senders under the receiver's T0 and under the others, all into GPU 0's plane-0 port.
    uint32_t src = 1 + i * 5;
    qps.push_back(ConnectRoce(*f.net, src, 0, 0, static_cast<uint16_t>(0xC000 + i)));
    qps.back().first->SetAttribute("Dcqcn", BooleanValue(false)); // PFC alone must hold it
    Watch(qps.back(), c[i]);
    qps.back().first->PostWrite(2ull << 20);
  }
  uint32_t pausesReceivedAtNics = 0;
  for (uint32_t i = 0; i < 12; ++i)
  {
    f.NicPort(1 + i * 5, 0)
      ->TraceConnectWithoutContext(
        "Pause",
        MakeBoundCallback(
          +[](uint32_t* n, uint8_t, bool paused, bool sent) { *n += paused && !sent; }, &pausesReceivedAtNics));
  }
  Simulator::Run();
  CHECK(AllDrops(*f.net) == 0);
  CHECK(pausesReceivedAtNics > 0);
  for (uint32_t i = 0; i < 12; ++i)
  {
    REQUIRE(c[i].received.size() == 1);
    CHECK(c[i].received[0].second == (2ull << 20));
    CHECK(qps[i].first->Retransmissions() == 0);
  }
}

TEST_CASE("roce: a QP on a failed link resumes only after ECMP repair, or fails past its retry limit",
          "[roce][failure]")
{
  const Time repair = MilliSeconds(5);
  ScopedDefault detect("ns3::FabricControlPlane::DetectionDelay", TimeValue(repair), TimeValue(MilliSeconds(1)));
  ScopedDefault reconverge("ns3::FabricControlPlane::ReconvergenceDelay", TimeValue(repair), TimeValue(Seconds(1)));
  FabricFixture f(test::TinyMultiplane());
  auto qp = ConnectRoce(*f.net, 0, 4, 0, 0xC001);
  qp.first->SetAttribute("Dcqcn", BooleanValue(false));
  Completions c;
  Watch(qp, c);
  // Find the T0 up-port this QP hashes onto by watching the source T0's up-ports.
  const VertexId t0 = f.Routing().Attach(0, 0).leaf;
  int used = -1;
  std::vector<std::pair<int*, int>> watchers;
  watchers.reserve(4);
  for (uint16_t port = 4; port < 8; ++port)
  {
    watchers.emplace_back(&used, port);
    f.net->GetPort(t0, port)->TraceConnectWithoutContext("Enqueue",
                                                         MakeBoundCallback(
                                                           +[](std::pair<int*, int>* u, Ptr<const Packet>, uint8_t cls)
                                                           {
                                                             if (cls == 1)
                                                               *u->first = u->second;
                                                           },
                                                           &watchers.back()));
  }
  const Time failAt = MicroSeconds(100);
  SECTION("resumes after the repair delay")
  {
    qp.first->SetAttribute("RetransmitTimeout", TimeValue(MicroSeconds(200)));
    qp.first->SetAttribute("RetryLimit", UintegerValue(20));
    Simulator::Schedule(failAt,
                        [&]
                        {
                          REQUIRE(used >= 4);
                          f.net->SetLinkUp(f.fabric->LinkAt(t0, static_cast<uint16_t>(used)).id, false);
                        });
    qp.first->PostWrite(64ull << 20);
    Simulator::Run();
    REQUIRE(c.received.size() == 1);
    CHECK(c.received[0].second == (64ull << 20));
    CHECK(c.errors.empty());
    CHECK(c.sentAt[0] > failAt + repair);
    REQUIRE(c.stalls.size() == 1);
    INFO("stall " << c.stalls[0].GetMicroSeconds() << " us");
    CHECK(c.stalls[0] >= repair);
    CHECK(c.stalls[0] < repair + MicroSeconds(200) * 64); // bounded by the backoff in force
  }
  SECTION("reports a QP error when the retry limit runs out first")
  {
    qp.first->SetAttribute("RetransmitTimeout", TimeValue(MicroSeconds(100)));
    qp.first->SetAttribute("RetryLimit", UintegerValue(3)); // 100 + 200 + 400 + 800 us < 5 ms
    Simulator::Schedule(failAt,
                        [&]
                        {
                          REQUIRE(used >= 4);
                          f.net->SetLinkUp(f.fabric->LinkAt(t0, static_cast<uint16_t>(used)).id, false);
                        });
    qp.first->PostWrite(64ull << 20);
    Simulator::Run();
    REQUIRE(c.errors.size() == 1);
    CHECK(c.errors[0].find("retry limit 3 exceeded") != std::string::npos);
    CHECK(c.received.empty());
    CHECK(qp.first->Timeouts() == 4);
  }
}

TEST_CASE("roce: a sender paced slower than its ACK coalescing has no timeout without a loss", "[roce][dcqcn]")
{
  // A QP that DCQCN paces at 1/512 of the line rate (195 Mb/s: one 4 KiB packet every 171 us)
  // takes 2.7 ms to send the AckInterval (16) packets after which the responder acknowledges, far
  // beyond the 1.05 ms local ACK timeout. Nothing is lost, so nothing may time out: the responder
  // must not hold an ACK longer than its AckDelay. Before: the responder waited for the 16th
  // packet, the requester timed out at 1.05 ms and resent what had arrived.
  ScopedDefault noIncrease("ns3::DcqcnRateControl::RateIncreasePeriod", TimeValue(Seconds(10)),
                           TimeValue(MicroSeconds(55)));
  ScopedDefault paper("ns3::DcqcnRateControl::Profile", EnumValue(DcqcnRateControl::PAPER),
                      EnumValue(DcqcnRateControl::TUNED));
  FabricFixture f(test::TinyMultiplane());
  auto qp = ConnectRoce(*f.net, 0, 4, 0, 0xC001);
  Completions c;
  Watch(qp, c);
  const uint64_t bytes = 4096ull * 32;
  qp.first->PostWrite(bytes);
  for (int i = 0; i < 9; ++i)
  {
    qp.first->ReceiveCnp(); // alpha = 1: each cut halves the rate; no increase follows
  }
  REQUIRE(qp.first->GetRate().GetBitRate() < 100e9 / 500);
  Simulator::Run();
  REQUIRE(c.received.size() == 1);
  CHECK(c.received[0].second == bytes);
  REQUIRE(c.sent.size() == 1);
  CHECK(c.sentAt[0] > MilliSeconds(5)); // 31 gaps of 171 us: the pacing held
  CHECK(AllDrops(*f.net) == 0);
  CHECK(NoTimeoutWithoutDrop(qp.first->Timeouts(), AllDrops(*f.net)));
  CHECK(qp.first->Retransmissions() == 0);
}

TEST_CASE("roce: the timer restarts with the first send after an idle spell", "[roce]")
{
  // Message A (one packet) is acknowledged within microseconds, well before the timer event its
  // send scheduled fires, at 1.05 ms. Message B (16 packets, one ACK at its end) is sent just
  // before then: that event finds it outstanding and must wait one full timeout from B's first
  // send. Before: B's send left the deadline at A's ACK plus the timeout, which expired while
  // B's ACK was still on its way.
  FabricFixture f(test::TinyMultiplane());
  auto qp = ConnectRoce(*f.net, 0, 4, 0, 0xC001);
  qp.first->SetAttribute("Dcqcn", BooleanValue(false));
  Completions c;
  Watch(qp, c);
  qp.first->PostWrite(4096);
  Simulator::Schedule(MicroSeconds(1047), [&] { qp.first->PostWrite(16 * 4096); });
  Simulator::Run();
  REQUIRE(c.sent.size() == 2);
  CHECK(c.sentAt[0] < MicroSeconds(20));
  CHECK(c.sentAt[1] < MicroSeconds(1080));
  CHECK(NoTimeoutWithoutDrop(qp.first->Timeouts(), AllDrops(*f.net)));
  CHECK(qp.first->Retransmissions() == 0);
}

// Pcap capture of a NIC port is readable by standard tools: tshark decodes each frame as
// Ethernet / IPv6 / UDP 4791 / InfiniBand BTH (RoCEv2) with the destination address and PSN the
// packet was built with. The capture's wire bytes (FabricPcapWriter) match known answers: CRC-32,
// the RoCEv2 ICRC and UDP checksum of a frame (computed independently, with Python's zlib and
// RFC 1071 sums), lengths of a trimmed frame, wire QPNs; every MRC header decodes with
// scripts/mrc-dissector.lua; records come out in timestamp order. tshark checks are skipped (with
// a warning) only if tshark is not installed.
#include "tests/models/fabric-test-fixture.h"

#include "models/fabric/fabric-pcap-writer.h"
#include "models/mrc/mrc-frame.h"
#include "models/roce/roce-frame.h"

#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <cstdlib>
#include <sstream>
#include <string>
#include <unistd.h>

using namespace ns3;
using namespace mrcsim;
using namespace mrcsim::test;

namespace
{

bool
HaveTshark()
{
  return std::system("command -v tshark >/dev/null 2>&1") == 0;
}

std::string
RunCommand(const std::string& cmd)
{
  std::string out;
  FILE* f = popen(cmd.c_str(), "r");
  if (!f)
  {
    return out;
  }
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), f)) > 0)
  {
    out.append(buf.data(), n);
  }
  pclose(f);
  return out;
}

std::vector<std::string>
Lines(const std::string& s)
{
  std::vector<std::string> lines;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);)
  {
    if (!line.empty())
    {
      lines.push_back(line);
    }
  }
  return lines;
}

} // namespace

TEST_CASE("fabric: a NIC port's pcap decodes as IPv6 / UDP 4791 / BTH with the sent PSNs", "[fabric][pcap]")
{
  const std::string file = "/tmp/mrcsim-test-fabric-pcap-" + std::to_string(getpid()) + ".pcap";
  const std::string rxFile = "/tmp/mrcsim-test-fabric-pcap-rx-" + std::to_string(getpid()) + ".pcap";
  const std::vector<uint32_t> psns = {7, 8, 0xABCDE, 0xFFFFFF};
  {
    FabricFixture fx(TinyMultiplane());
    fx.NicPort(0, 1)->EnablePcap(file);   // sender: frames it transmits
    fx.NicPort(5, 1)->EnablePcap(rxFile); // receiver: frames it receives
    int received = 0;
    fx.net->GetHost(5)->SetReceiveCallback(Callback<void, Ptr<Packet>, uint16_t>([&](Ptr<Packet>, uint16_t) { ++received; }));
    for (uint32_t psn : psns)
    {
      fx.net->GetHost(0)->Send(DataPacket(0, 5, 1, 512, 0xC123, psn), fx.Routing().Attach(0, 1).gpuPort);
    }
    Simulator::Run();
    CHECK(received == int(psns.size()));
    Simulator::Destroy();
  } // the network and its pcap writer are gone: the file is closed

  if (!HaveTshark())
  {
    WARN("tshark not installed: pcap decoding not checked");
    std::remove(file.c_str());
    std::remove(rxFile.c_str());
    return;
  }
  // GPU 0's plane-1 address is fd00:0:1::, GPU 5's is fd00:0:1::5.
  for (const std::string& f : {file, rxFile})
  {
    std::string out = RunCommand("tshark -r " + f +
                                 " -T fields -e ipv6.src -e ipv6.dst -e udp.srcport -e udp.dstport "
                                 "-e infiniband.bth.psn 2>/dev/null");
    INFO("tshark output for " << f << ":\n" << out);
    std::vector<std::string> lines = Lines(out);
    REQUIRE(lines.size() == psns.size());
    for (size_t i = 0; i < psns.size(); ++i)
    {
      CHECK(lines[i] == "fd00:0:1::\tfd00:0:1::5\t" + std::to_string(0xC123) + "\t4791\t" + std::to_string(psns[i]));
    }
    std::remove(f.c_str());
  }
}

namespace
{

/// A frame of every kind MRC and RoCEv2 send, the MRC ones on a uSID path.
FabricPacketSpec
Spec(uint8_t opcode, bool usids)
{
  FabricPacketSpec s;
  s.srcGpu = 3;
  s.dstGpu = 5;
  s.plane = 1;
  if (usids)
  {
    s.usids = std::vector<uint16_t>{ 17, 3, 2 };
  }
  s.entropy = 0xC005;
  s.flowLabel = 0x12345;
  s.opcode = opcode;
  s.destQp = 7;
  s.psn = 42;
  s.payloadBytes = 64;
  return s;
}

uint16_t
Get16(const std::vector<uint8_t>& b, std::size_t at)
{
  return static_cast<uint16_t>((b[at] << 8) | b[at + 1]);
}

} // namespace

TEST_CASE("fabric: pcap frames are the wire's bytes (lengths, QPN, ICRC, UDP checksum)", "[fabric][pcap]")
{
  const uint8_t check[] = { '1', '2', '3', '4', '5', '6', '7', '8', '9' };
  CHECK(Crc32(check, sizeof(check)) == 0xCBF43926u); // the CRC-32 check value
  CHECK(Crc32(check + 4, 5, Crc32(check, 4)) == 0xCBF43926u);
  CHECK(WireQpn(1) == 0x101);

  // uSID carrier fc00:1:11:3:2:: shifted to its last uSID: the final destination.
  Ipv6UsidHeader::AddressBytes carrier =
    Ipv6UsidHeader::MakeUsidAddress(mrcsim::FabricRouting::Locator(1), { 17, 3, 2 });
  Ipv6UsidHeader::AddressBytes last = Ipv6UsidHeader::MakeUsidAddress(mrcsim::FabricRouting::Locator(1), { 2 });
  CHECK(FinalDestination(carrier) == last);

  const Mac48Address a("02:00:00:00:00:01");
  const Mac48Address b("02:00:00:00:00:02");
  FramePtr data = MakeWriteFrame(Spec(RoceBthHeader::kRcWriteFirst, true), 0x1000);
  std::vector<uint8_t> w = FrameWireBytes(*data, a, b);
  // Ethernet 14, IPv6 40, UDP 8, BTH 12, RETH 16, payload 64, ICRC 4.
  REQUIRE(w.size() == 158);
  CHECK(Get16(w, 12) == 0x86DD);
  CHECK(Get16(w, 14 + 4) == 104);      // IPv6 payload length
  CHECK(Get16(w, 14 + 40 + 4) == 104); // UDP length
  CHECK(((w[14 + 53] << 16) | (w[14 + 54] << 8) | w[14 + 55]) == 7 + 0x100);
  // Known answers, from an independent implementation: the frame built field by field in Python,
  // its ICRC by zlib.crc32 over the masked headers and its checksum by an RFC 1071 sum over the
  // pseudo-header with destination fc00:1:2:: (the functions of tests/pcap/test_pcap_captures.py).
  const uint32_t icrc = w[154] | (w[155] << 8) | (w[156] << 16) | (uint32_t(w[157]) << 24);
  CHECK(icrc == 0xB3155943u);
  CHECK(Get16(w, 14 + 40 + 6) == 0xC2DA);

  // Trimmed to 64 bytes of IPv6 packet (24 after the IPv6 header): the lengths are what is left.
  data->ipPayloadLength = 24;
  data->SetDscp(46);
  w = FrameWireBytes(*data, a, b);
  REQUIRE(w.size() == 14 + 40 + 24 + 4);
  CHECK(Get16(w, 14 + 4) == 28);
  CHECK(Get16(w, 14 + 40 + 4) == 28);

  // A PFC frame: 60 bytes to the MAC control address, no ICRC.
  FramePtr pfc = FramePtr::Make(true);
  PfcPauseHeader pause;
  pause.SetPause(1, 0xFFFF);
  WriteInner(*pfc, pause);
  w = FrameWireBytes(*pfc, a, b);
  REQUIRE(w.size() == 60);
  CHECK(Get16(w, 12) == 0x8808);
  CHECK(w[0] == 0x01);
  CHECK(w[5] == 0x01);
}

TEST_CASE("fabric: a pcap file is in timestamp order and MRC headers decode with the Lua dissector", "[fabric][pcap]")
{
  const std::string file = "/tmp/mrcsim-test-fabric-pcap-kinds-" + std::to_string(getpid()) + ".pcap";
  const Mac48Address a("02:00:00:00:00:01");
  const Mac48Address b("02:00:00:00:00:02");
  std::vector<FramePtr> frames;
  MrcSackHeader sack;
  sack.SetCumulativeAckPsn(40);
  sack.SetAckedPsn(42);
  sack.SetEchoedEv(5);
  sack.SetBitmap(0x5);
  frames.push_back(MakeControlFrame(Spec(MrcSackHeader::kBthOpcode, false), sack));
  MrcNackHeader nack;
  nack.SetPsn(41);
  nack.SetReason(MrcNackHeader::Trimmed);
  nack.SetEchoedEv(6);
  frames.push_back(MakeControlFrame(Spec(MrcNackHeader::kBthOpcode, false), nack));
  MrcProbeHeader probe;
  probe.SetType(MrcProbeHeader::Response);
  probe.SetEv(9);
  probe.SetSequence(77);
  frames.push_back(MakeControlFrame(Spec(MrcProbeHeader::kBthOpcode, true), probe));
  FramePtr trimmed = MakeWriteFrame(Spec(RoceBthHeader::kRcWriteFirst, true), 0x1000); // no RETH left: only Lua decodes it
  trimmed->ipPayloadLength = 24;
  trimmed->SetDscp(46);
  frames.push_back(std::move(trimmed));
  frames.push_back(MakeControlFrame(Spec(RoceBthHeader::kCnp, false), RoceCnpHeader()));
  frames.push_back(MakeWriteFrame(Spec(RoceBthHeader::kRcWriteOnly, false), 0x1000));
  {
    FabricPcapWriter writer(file);
    // Stamped out of order; the horizon (what may still come) holds the early ones back.
    const int64_t stamps[] = { 500, 300, 400, 100, 200, 600 };
    for (std::size_t i = 0; i < frames.size(); ++i)
    {
      writer.Write(NanoSeconds(stamps[i]), FrameWireBytes(*frames[i], a, b), NanoSeconds(stamps[i] - 400));
    }
    writer.Flush();
    CHECK(writer.OutOfOrder() == 0);
  }
  // The records in the file: nanosecond magic, then timestamps 100, 200, ... 600.
  std::ifstream in(file, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(bytes.size() > 24);
  uint32_t magic;
  std::memcpy(&magic, bytes.data(), 4);
  CHECK(magic == 0xA1B23C4Du);
  std::vector<uint32_t> nanos;
  for (std::size_t at = 24; at + 16 <= bytes.size();)
  {
    uint32_t header[4];
    std::memcpy(header, bytes.data() + at, 16);
    nanos.push_back(header[1]);
    at += 16 + header[2];
  }
  CHECK(nanos == std::vector<uint32_t>{ 100, 200, 300, 400, 500, 600 });

  if (!HaveTshark())
  {
    WARN("tshark not installed: MRC dissection not checked");
    std::remove(file.c_str());
    return;
  }
  const std::string lua = std::string(MRCSIM_SOURCE_DIR) + "/scripts/mrc-dissector.lua";
  std::string out =
    RunCommand("tshark -r " + file + " -X lua_script:" + lua +
               " -T fields -E separator=, -e _ws.col.Protocol -e mrc.bth.opcode -e infiniband.bth.opcode"
               " -e mrc.sack.cumulative_psn -e mrc.nack.psn -e mrc.probe.sequence -e mrc.trimmed"
               " -e _ws.malformed -e _ws.expert.severity 2>/dev/null");
  INFO("tshark output:\n" << out);
  std::vector<std::string> lines = Lines(out);
  REQUIRE(lines.size() == 6);
  // In time order: trimmed (100), CNP (200), NACK (300), probe (400), SACK (500), WRITE (600);
  // only the trimmed frame carries expert info, a note (0x400000).
  CHECK(lines[0] == "MRC,0x06,,,,,00000000,,4194304");
  CHECK(lines[1] == "RRoCE,,129,,,,,,");
  CHECK(lines[2] == "MRC,0xc1,,,41,,,,");
  CHECK(lines[3] == "MRC,0xc2,,,,77,,,");
  CHECK(lines[4] == "MRC,0xc0,,40,,,,,");
  CHECK(lines[5] == "RRoCE,,10,,,,,,");
  std::remove(file.c_str());
}

// Pcap capture of a NIC port is readable by standard tools: tshark decodes each frame as
// Ethernet / IPv6 / UDP 4791 / InfiniBand BTH (RoCEv2) with the destination address and PSN the
// packet was built with. Skipped (with a warning) only if tshark is not installed.
#include "tests/models/fabric-test-fixture.h"

#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
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

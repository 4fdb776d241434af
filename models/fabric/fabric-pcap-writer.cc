#include "models/fabric/fabric-pcap-writer.h"

#include "models/wire/fabric-address.h"
#include "models/wire/pfc-pause-header.h"
#include "models/wire/roce-bth-header.h"
#include "models/wire/roce-udp-header.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <array>
#include <cstring>
#include <iostream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricPcapWriter");

namespace
{

constexpr std::size_t kEthernetBytes = 14;
constexpr std::size_t kIcrcBytes = 4;
/// Offsets inside an IPv6 packet (fixed header, then UDP, then BTH).
constexpr std::size_t kIpPayloadLength = 4;
constexpr std::size_t kIpDestination = 24;
constexpr std::size_t kUdp = Ipv6UsidHeader::kSize;
constexpr std::size_t kUdpLength = kUdp + 4;
constexpr std::size_t kUdpChecksum = kUdp + 6;
constexpr std::size_t kBth = kUdp + RoceUdpHeader::kSize;

std::array<uint32_t, 256>
MakeCrcTable()
{
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i)
  {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k)
    {
      c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    t[i] = c;
  }
  return t;
}

void
Put16(std::vector<uint8_t>& b, std::size_t at, uint16_t v)
{
  b[at] = uint8_t(v >> 8);
  b[at + 1] = uint8_t(v);
}

uint16_t
Get16(const std::vector<uint8_t>& b, std::size_t at)
{
  return static_cast<uint16_t>((b[at] << 8) | b[at + 1]);
}

/// Adds 16-bit big-endian words of `data` to a one's complement sum (RFC 1071), an odd last byte
/// padded with zero.
uint64_t
SumWords(const uint8_t* data, std::size_t bytes, uint64_t sum)
{
  for (std::size_t i = 0; i + 1 < bytes; i += 2)
  {
    sum += (uint32_t(data[i]) << 8) | data[i + 1];
  }
  if (bytes & 1)
  {
    sum += uint32_t(data[bytes - 1]) << 8;
  }
  return sum;
}

void
PutMac(std::vector<uint8_t>& b, std::size_t at, Mac48Address mac)
{
  mac.CopyTo(&b[at]);
}

} // namespace

uint32_t
WireQpn(uint32_t qpn)
{
  NS_ABORT_MSG_IF(qpn > 0xFFFFFF - kWireQpnOffset,
                  "WireQpn: QP number " << qpn << " plus the capture's offset " << kWireQpnOffset
                                        << " does not fit the BTH's 24 bits");
  return qpn + kWireQpnOffset;
}

uint32_t
Crc32(const uint8_t* data, std::size_t bytes, uint32_t crc)
{
  static const std::array<uint32_t, 256> table = MakeCrcTable();
  crc = ~crc;
  for (std::size_t i = 0; i < bytes; ++i)
  {
    crc = table[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
  }
  return ~crc;
}

Ipv6UsidHeader::AddressBytes
FinalDestination(const Ipv6UsidHeader::AddressBytes& dst)
{
  Ipv6UsidHeader::AddressBytes a = dst;
  if (!IsUsidAddress(a))
  {
    return a;
  }
  // Bytes 4-5 hold the active uSID; the last switch leaves the last one there (FabricSwitch
  // shifts once per hop, the NIC port's uSID stays).
  while (a[6] != 0 || a[7] != 0)
  {
    std::memmove(&a[4], &a[6], 10);
    a[14] = 0;
    a[15] = 0;
  }
  return a;
}

void
WriteRoceIcrc(std::vector<uint8_t>& b, std::size_t ip)
{
  const std::size_t end = b.size() - kIcrcBytes;
  NS_ABORT_MSG_IF(end < ip + kBth + RoceBthHeader::kSize, "WriteRoceIcrc: no room for IPv6, UDP and a BTH");
  // The variant fields are masked to all ones in a copy of the headers.
  std::array<uint8_t, 8 + kBth + RoceBthHeader::kSize> masked;
  std::memset(masked.data(), 0xFF, 8); // the LRH RoCEv2 does not have
  std::memcpy(&masked[8], &b[ip], kBth + RoceBthHeader::kSize);
  uint8_t* h = &masked[8];
  h[0] |= 0x0F; // traffic class, high nibble
  h[1] = 0xFF;  // traffic class, low nibble; flow label
  h[2] = 0xFF;
  h[3] = 0xFF;
  h[7] = 0xFF; // hop limit
  Ipv6UsidHeader::AddressBytes dst;
  std::memcpy(dst.data(), &h[kIpDestination], 16);
  dst = FinalDestination(dst);
  std::memcpy(&h[kIpDestination], dst.data(), 16);
  h[kUdpChecksum] = 0xFF;
  h[kUdpChecksum + 1] = 0xFF;
  h[kBth + 4] = 0xFF; // FECN, BECN, reserved
  uint32_t crc = Crc32(masked.data(), masked.size());
  const std::size_t rest = ip + kBth + RoceBthHeader::kSize;
  crc = Crc32(b.data() + rest, end - rest, crc);
  for (std::size_t i = 0; i < kIcrcBytes; ++i)
  {
    b[end + i] = uint8_t(crc >> (8 * i));
  }
}

void
WriteUdpChecksum(std::vector<uint8_t>& b, std::size_t ip)
{
  const uint16_t udpLength = Get16(b, ip + kUdpLength);
  NS_ABORT_MSG_IF(ip + kUdp + udpLength != b.size(), "WriteUdpChecksum: the UDP length does not end the frame");
  Ipv6UsidHeader::AddressBytes dst;
  std::memcpy(dst.data(), &b[ip + kIpDestination], 16);
  dst = FinalDestination(dst);
  Put16(b, ip + kUdpChecksum, 0);
  uint64_t sum = SumWords(&b[ip + 8], 16, 0); // source address
  sum = SumWords(dst.data(), 16, sum);
  sum += udpLength; // upper-layer packet length (32 bits: its high half is zero)
  sum += Ipv6UsidHeader::kNextHeaderUdp;
  sum = SumWords(&b[ip + kUdp], udpLength, sum);
  while (sum >> 16)
  {
    sum = (sum & 0xFFFF) + (sum >> 16);
  }
  const uint16_t checksum = static_cast<uint16_t>(~sum);
  Put16(b, ip + kUdpChecksum, checksum == 0 ? 0xFFFF : checksum);
}

std::vector<uint8_t>
FrameWireBytes(const FabricFrame& frame, Mac48Address src, Mac48Address dst)
{
  Ptr<Packet> p = ToPacket(frame);
  const bool pfc = frame.IsPfc();
  const std::size_t icrc = pfc ? 0 : kIcrcBytes;
  std::vector<uint8_t> b(kEthernetBytes + p->GetSize() + icrc, 0);
  PutMac(b, 0, pfc ? PfcPauseHeader::GetDestinationMac() : dst);
  PutMac(b, 6, src);
  Put16(b, 12, frame.Protocol());
  p->CopyData(&b[kEthernetBytes], p->GetSize());
  if (pfc)
  {
    return b;
  }
  const std::size_t ip = kEthernetBytes;
  // ToPacket keeps a trimmed frame's original UDP length (FromPacket reads the payload size
  // from it); the wire has the lengths of what is left, and the ICRC.
  const auto payload = static_cast<uint16_t>(frame.ipPayloadLength + kIcrcBytes);
  Put16(b, ip + kIpPayloadLength, payload);
  Put16(b, ip + kUdpLength, payload);
  const uint32_t qpn = WireQpn(frame.destQp);
  b[ip + kBth + 5] = uint8_t(qpn >> 16);
  b[ip + kBth + 6] = uint8_t(qpn >> 8);
  b[ip + kBth + 7] = uint8_t(qpn);
  WriteRoceIcrc(b, ip);
  WriteUdpChecksum(b, ip);
  return b;
}

FabricPcapWriter::FabricPcapWriter(const std::string& file) : m_name(file)
{
  NS_LOG_FUNCTION(this << file);
  m_file.Open(file, std::ios::out);
  if (m_file.Fail())
  {
    throw std::runtime_error("cannot create pcap file " + file);
  }
  m_file.Init(1 /* DLT_EN10MB */, PcapFile::SNAPLEN_DEFAULT, PcapFile::ZONE_DEFAULT, false, true /* ns */);
}

FabricPcapWriter::~FabricPcapWriter()
{
  // A destructor cannot fail: the last records are written by Flush() where it can (the run's
  // end); a failure here is reported, not thrown.
  try
  {
    Flush();
  }
  catch (const std::exception& e)
  {
    std::cerr << "mrcsim: error: " << e.what() << "\n";
  }
  m_file.Close();
}

void
FabricPcapWriter::Write(Time at, std::vector<uint8_t> bytes, Time horizon)
{
  m_held.push(Record{ at.GetNanoSeconds(), m_seq++, std::move(bytes) });
  const int64_t until = horizon.GetNanoSeconds();
  while (!m_held.empty() && m_held.top().at <= until)
  {
    WriteRecord(m_held.top());
    m_held.pop();
  }
}

void
FabricPcapWriter::Flush()
{
  while (!m_held.empty())
  {
    WriteRecord(m_held.top());
    m_held.pop();
  }
}

void
FabricPcapWriter::WriteRecord(const Record& r)
{
  if (r.at < m_lastWritten)
  {
    ++m_outOfOrder;
  }
  m_lastWritten = std::max(m_lastWritten, r.at);
  const int64_t ns = std::max<int64_t>(r.at, 0);
  m_file.Write(static_cast<uint32_t>(ns / 1000000000),
               static_cast<uint32_t>(ns % 1000000000),
               r.bytes.data(),
               static_cast<uint32_t>(r.bytes.size()));
  if (m_file.Fail())
  {
    // A full or failing disk: the run stops with this error rather than a short capture.
    throw std::runtime_error("cannot write pcap file " + m_name);
  }
}

} // namespace ns3

// Packet captures of a port: every frame it sends and receives, as the bytes a tap on its link
// would see, in a pcap file with nanosecond timestamps (magic 0xa1b23c4d, DLT_EN10MB).
//
// The frame's header classes (ToPacket) give the IPv6, UDP, BTH and inner headers; the capture
// then writes what the simulated frame does not carry: the Ethernet header (the two ports' MACs,
// or 01:80:C2:00:00:01 for PFC), the RoCEv2 invariant CRC (ICRC) after the payload, the IPv6
// payload and UDP lengths of what is on the wire (a trimmed packet's, and the ICRC's 4 bytes),
// the UDP checksum, and wire QP numbers (the simulator's plus kWireQpnOffset, so that none is
// InfiniBand's QP 0 or 1). Leaves out: the Ethernet FCS, preamble and padding (pcap omits them),
// and payload contents (zeros, as the models send them).
//
// Simulated wire time does not count the ICRC (4 bytes a packet; golden results predate it): a
// captured RoCEv2 or MRC frame is 4 bytes longer than the frame the port timed.
#ifndef MRCSIM_MODELS_FABRIC_PCAP_WRITER_H
#define MRCSIM_MODELS_FABRIC_PCAP_WRITER_H

#include "models/fabric/fabric-frame.h"

#include "ns3/mac48-address.h"
#include "ns3/nstime.h"
#include "ns3/pcap-file.h"

#include <cstdint>
#include <queue>
#include <string>
#include <vector>

namespace ns3
{

/// \brief Added to a simulated QP number to give the QPN a capture shows (QPs are numbered from 1
/// in the simulator; InfiniBand reserves QP 0 for SMI and QP 1 for GSI, and Wireshark decodes
/// frames to QP 1 as management datagrams). 0x100: QP 1 reads as 0x000101.
constexpr uint32_t kWireQpnOffset = 0x100;

/// \brief The QPN a capture shows for simulated QP `qpn` (aborts if it does not fit 24 bits).
uint32_t WireQpn(uint32_t qpn);

/// \brief CRC-32 of IEEE 802.3 (reflected polynomial 0xEDB88320, initial value and final XOR
/// 0xFFFFFFFF), continued from `crc` (0 to start), as zlib's crc32().
uint32_t Crc32(const uint8_t* data, std::size_t bytes, uint32_t crc = 0);

/// \brief The destination an IPv6 packet ends at: `dst` itself, or for a uSID carrier (fc00::/16)
/// the carrier once every uSID but the last has been shifted out (what the last hop delivers).
Ipv6UsidHeader::AddressBytes FinalDestination(const Ipv6UsidHeader::AddressBytes& dst);

/// \brief Writes the ICRC into the last 4 bytes of `ip`, an IPv6 packet whose UDP payload
/// starts with a BTH and ends with those 4 bytes (the invariant CRC of IBA Vol 1, as its Annex
/// A17 (RoCEv2) applies it to IP/UDP packets; Linux's rxe and Scapy compute it alike): CRC-32
/// over 8 bytes of 0xFF (the masked LRH), the IPv6 header with traffic class, flow label and
/// hop limit set to all ones, the UDP header with checksum 0xFFFF, the BTH with its FECN/BECN/
/// reserved byte set to 0xFF, and the rest up to the ICRC; stored least significant byte first.
/// The destination address is FinalDestination's (ours: a uSID carrier changes at every hop,
/// so the sender covers the address the receiver will see, as the UDP checksum does).
void WriteRoceIcrc(std::vector<uint8_t>& ip, std::size_t ipOffset);

/// \brief Writes the UDP checksum of the IPv6 packet at `ipOffset` (RFC 768; pseudo-header of
/// RFC 8200 section 8.1: source, final destination, UDP length, next header 17). A computed 0
/// is sent as 0xFFFF, since 0 means "no checksum", which IPv6 forbids for UDP.
void WriteUdpChecksum(std::vector<uint8_t>& ip, std::size_t ipOffset);

/// \brief The frame's bytes on the wire (see the file comment), from `src` to `dst` (PFC frames
/// go to 01:80:C2:00:00:01 whatever `dst` is).
std::vector<uint8_t> FrameWireBytes(const FabricFrame& frame, Mac48Address src, Mac48Address dst);

/// \brief A pcap file of one port, written in timestamp order.
///
/// A port records a sent frame when it catches up, up to a link delay after the frame started,
/// and a received frame one forwarding latency after its last bit arrived; both are stamped with
/// the earlier time. Records wait here until no later call can bring an earlier one (`horizon`
/// of Write), so the file's timestamps never go back.
class FabricPcapWriter
{
public:
  /// \brief Creates (or truncates) `file`; throws std::runtime_error, naming it, if it cannot.
  /// Write() and Flush() throw likewise when a write fails.
  explicit FabricPcapWriter(const std::string& file);
  /// \brief Writes what is held and closes the file.
  ~FabricPcapWriter();
  FabricPcapWriter(const FabricPcapWriter&) = delete;
  FabricPcapWriter& operator=(const FabricPcapWriter&) = delete;

  /// \brief Records `bytes` at time `at`; writes every record stamped up to `horizon`.
  void Write(Time at, std::vector<uint8_t> bytes, Time horizon);
  /// \brief Writes every record held.
  void Flush();
  /// \brief Records written out of order (stamped before one already written): 0 when the
  /// horizons given were right.
  uint64_t OutOfOrder() const { return m_outOfOrder; }

private:
  struct Record
  {
    int64_t at; ///< nanoseconds
    uint64_t seq;
    std::vector<uint8_t> bytes;
    bool operator>(const Record& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  void WriteRecord(const Record& r);

  std::string m_name;
  PcapFile m_file;
  std::priority_queue<Record, std::vector<Record>, std::greater<Record>> m_held;
  uint64_t m_seq = 0;
  int64_t m_lastWritten = 0;
  uint64_t m_outOfOrder = 0;
};

} // namespace ns3

#endif

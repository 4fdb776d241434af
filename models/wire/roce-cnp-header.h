// The 16-byte payload of a RoCEv2 Congestion Notification Packet (IBTA Annex A17.9.3). A CNP on
// the wire is IPv6 + UDP + RoceBthHeader (opcode 0x81, BECN 1, P_Key 0xFFFF, PSN 0) + these 16
// reserved zero bytes; MakeCnpBth builds that BTH. Leaves out the trailing ICRC (packet captures
// add it: FabricPcapWriter).
#ifndef MRCSIM_MODELS_ROCE_CNP_HEADER_H
#define MRCSIM_MODELS_ROCE_CNP_HEADER_H

#include "models/wire/roce-bth-header.h"

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief The 16 reserved bytes that follow the BTH of a CNP.
 *
 * Serialised as zeros; ignored on receipt, as the standard asks.
 */
class RoceCnpHeader : public Header
{
public:
  /// \brief Size of the CNP payload in bytes.
  static constexpr uint32_t kSize = 16;

  RoceCnpHeader();

  /// \brief Register the type.
  static TypeId GetTypeId();
  TypeId GetInstanceTypeId() const override;
  uint32_t GetSerializedSize() const override;
  void Serialize(Buffer::Iterator start) const override;
  uint32_t Deserialize(Buffer::Iterator start) override;
  void Print(std::ostream& os) const override;

  /**
   * \brief The BTH of a CNP sent to \p destQp: opcode 0x81, BECN set, PSN 0, AckReq clear.
   * Aborts if \p destQp does not fit in 24 bits.
   */
  static RoceBthHeader MakeCnpBth(uint32_t destQp, uint16_t pkey = RoceBthHeader::kDefaultPkey);
};

} // namespace ns3

#endif // MRCSIM_MODELS_ROCE_CNP_HEADER_H

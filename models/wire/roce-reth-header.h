// The 16-byte RDMA Extended Transport Header (RETH): remote virtual address, R_Key, DMA length.
// RoCEv2 puts it on WRITE First/Only; MRC puts one on every data packet so the receiver can place
// each packet on arrival, in any order. Leaves out memory-region checks against the R_Key.
#ifndef MRCSIM_MODELS_ROCE_RETH_HEADER_H
#define MRCSIM_MODELS_ROCE_RETH_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief RDMA Extended Transport Header.
 *
 * Wire layout: virtual address (64), R_Key (32), DMA length (32).
 */
class RoceRethHeader : public Header
{
public:
  /// \brief Size of the header in bytes.
  static constexpr uint32_t kSize = 16;

  RoceRethHeader();

  /// \brief Register the type.
  static TypeId GetTypeId();
  TypeId GetInstanceTypeId() const override;
  uint32_t GetSerializedSize() const override;
  void Serialize(Buffer::Iterator start) const override;
  uint32_t Deserialize(Buffer::Iterator start) override;
  void Print(std::ostream& os) const override;

  /// \brief Set the remote virtual address this packet's payload goes to.
  void SetVirtualAddress(uint64_t va);
  /// \brief The remote virtual address.
  uint64_t GetVirtualAddress() const;
  /// \brief Set the remote key.
  void SetRkey(uint32_t rkey);
  /// \brief The remote key.
  uint32_t GetRkey() const;
  /// \brief Set the DMA length in bytes (message length; MRC: this packet's payload).
  void SetDmaLength(uint32_t len);
  /// \brief The DMA length in bytes.
  uint32_t GetDmaLength() const;

private:
  uint64_t m_virtualAddress; //!< remote address
  uint32_t m_rkey;           //!< remote key
  uint32_t m_dmaLength;      //!< bytes
};

} // namespace ns3

#endif // MRCSIM_MODELS_ROCE_RETH_HEADER_H

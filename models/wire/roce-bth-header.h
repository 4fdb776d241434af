// The 12-byte InfiniBand Base Transport Header (BTH) as RoCEv2 carries it after UDP, for the RC
// transport: opcode, flags, partition key, FECN/BECN, destination QP, AckReq, 24-bit PSN.
// Leaves out the trailing 4-byte invariant CRC (ICRC; packet captures add it: FabricPcapWriter)
// and transports other than RC.
#ifndef MRCSIM_MODELS_ROCE_BTH_HEADER_H
#define MRCSIM_MODELS_ROCE_BTH_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief InfiniBand Base Transport Header (RoCEv2).
 *
 * Wire layout: opcode (8) | SE (1) M (1) PadCnt (2) TVer (4) | P_Key (16),
 * FECN (1) BECN (1) reserved (6) | DestQP (24), AckReq (1) reserved (7) | PSN (24).
 */
class RoceBthHeader : public Header
{
public:
  /// \brief Size of the header in bytes.
  static constexpr uint32_t kSize = 12;
  /// \brief Default partition key (full-member default partition).
  static constexpr uint16_t kDefaultPkey = 0xFFFF;

  // RC opcodes (IBTA Vol 1, table 38). Constants, not an enum, so new ones need no edit here.
  /// \brief RC SEND First.
  static constexpr uint8_t kRcSendFirst = 0x00;
  /// \brief RC SEND Middle.
  static constexpr uint8_t kRcSendMiddle = 0x01;
  /// \brief RC SEND Last.
  static constexpr uint8_t kRcSendLast = 0x02;
  /// \brief RC SEND Last with Immediate.
  static constexpr uint8_t kRcSendLastImm = 0x03;
  /// \brief RC SEND Only.
  static constexpr uint8_t kRcSendOnly = 0x04;
  /// \brief RC SEND Only with Immediate.
  static constexpr uint8_t kRcSendOnlyImm = 0x05;
  /// \brief RC RDMA WRITE First (carries a RETH).
  static constexpr uint8_t kRcWriteFirst = 0x06;
  /// \brief RC RDMA WRITE Middle.
  static constexpr uint8_t kRcWriteMiddle = 0x07;
  /// \brief RC RDMA WRITE Last.
  static constexpr uint8_t kRcWriteLast = 0x08;
  /// \brief RC RDMA WRITE Last with Immediate (carries ImmDt).
  static constexpr uint8_t kRcWriteLastImm = 0x09;
  /// \brief RC RDMA WRITE Only (carries a RETH).
  static constexpr uint8_t kRcWriteOnly = 0x0A;
  /// \brief RC RDMA WRITE Only with Immediate (carries a RETH and ImmDt).
  static constexpr uint8_t kRcWriteOnlyImm = 0x0B;
  /// \brief RC ACKNOWLEDGE (carries an AETH).
  static constexpr uint8_t kRcAck = 0x11;
  /// \brief RoCEv2 Congestion Notification Packet.
  static constexpr uint8_t kCnp = 0x81;

  /// \brief True for the six RC RDMA WRITE opcodes.
  static bool IsRdmaWrite(uint8_t opcode);
  /// \brief True when the standard places a RETH after the BTH (WRITE First/Only[/Imm]).
  static bool HasStandardReth(uint8_t opcode);
  /// \brief True when the opcode carries 4 bytes of immediate data.
  static bool HasImmediate(uint8_t opcode);
  /// \brief True when the opcode is the last (or only) packet of a message.
  static bool IsLastOfMessage(uint8_t opcode);

  RoceBthHeader();

  /// \brief Register the type.
  static TypeId GetTypeId();
  TypeId GetInstanceTypeId() const override;
  uint32_t GetSerializedSize() const override;
  void Serialize(Buffer::Iterator start) const override;
  uint32_t Deserialize(Buffer::Iterator start) override;
  void Print(std::ostream& os) const override;

  /// \brief Set the opcode.
  void SetOpcode(uint8_t opcode);
  /// \brief The opcode.
  uint8_t GetOpcode() const;
  /// \brief Set the Solicited Event bit.
  void SetSolicitedEvent(bool se);
  /// \brief The Solicited Event bit.
  bool GetSolicitedEvent() const;
  /// \brief Set the MigReq bit.
  void SetMigReq(bool m);
  /// \brief The MigReq bit.
  bool GetMigReq() const;
  /// \brief Set the pad count (0-3 bytes). Aborts above 3.
  void SetPadCount(uint8_t pad);
  /// \brief The pad count.
  uint8_t GetPadCount() const;
  /// \brief Set the transport header version (4 bits, 0 today). Aborts above 15.
  void SetTver(uint8_t tver);
  /// \brief The transport header version.
  uint8_t GetTver() const;
  /// \brief Set the partition key.
  void SetPkey(uint16_t pkey);
  /// \brief The partition key.
  uint16_t GetPkey() const;
  /// \brief Set the FECN bit.
  void SetFecn(bool fecn);
  /// \brief The FECN bit.
  bool GetFecn() const;
  /// \brief Set the BECN bit (set in CNPs).
  void SetBecn(bool becn);
  /// \brief The BECN bit.
  bool GetBecn() const;
  /// \brief Set the 24-bit destination QP. Aborts if it does not fit.
  void SetDestQp(uint32_t qp);
  /// \brief The destination QP.
  uint32_t GetDestQp() const;
  /// \brief Set the AckReq bit.
  void SetAckReq(bool a);
  /// \brief The AckReq bit.
  bool GetAckReq() const;
  /// \brief Set the 24-bit PSN. Aborts if it does not fit.
  void SetPsn(uint32_t psn);
  /// \brief The PSN.
  uint32_t GetPsn() const;

private:
  uint8_t m_opcode;   //!< IBA opcode
  bool m_se;          //!< Solicited Event
  bool m_migReq;      //!< MigReq
  uint8_t m_padCount; //!< pad bytes (2 bits)
  uint8_t m_tver;     //!< transport version (4 bits)
  uint16_t m_pkey;    //!< partition key
  bool m_fecn;        //!< forward ECN
  bool m_becn;        //!< backward ECN
  uint32_t m_destQp;  //!< destination QP (24 bits)
  bool m_ackReq;      //!< acknowledge request
  uint32_t m_psn;     //!< packet sequence number (24 bits)
};

} // namespace ns3

#endif // MRCSIM_MODELS_ROCE_BTH_HEADER_H

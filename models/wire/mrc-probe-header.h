// The MRC path probe: a request sent on one entropy value (EV) and the response echoing it, used
// to return ASSUMED_BAD EVs to GOOD and to measure a path's RTT. The byte layout is ours (MRC's is
// not public); it leaves out any authentication or port-status content.
#ifndef MRCSIM_MODELS_MRC_PROBE_HEADER_H
#define MRCSIM_MODELS_MRC_PROBE_HEADER_H

#include "ns3/header.h"
#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/**
 * \brief MRC probe request / response.
 *
 * Wire layout (16 bytes): type (8), reserved (8, zero), EV (16), sequence number (32),
 * send timestamp (64, ns; a response echoes the request's).
 */
class MrcProbeHeader : public Header
{
public:
  /// \brief Probe direction.
  enum Type : uint8_t
  {
    Request = 0,
    Response = 1
  };

  /// \brief Size of the header in bytes.
  static constexpr uint32_t kSize = 16;
  /// \brief BTH opcode of an MRC probe (vendor-specific range).
  static constexpr uint8_t kBthOpcode = 0xC2;

  MrcProbeHeader();

  /// \brief Register the type.
  static TypeId GetTypeId();
  TypeId GetInstanceTypeId() const override;
  uint32_t GetSerializedSize() const override;
  void Serialize(Buffer::Iterator start) const override;
  uint32_t Deserialize(Buffer::Iterator start) override;
  void Print(std::ostream& os) const override;

  /// \brief Set request or response.
  void SetType(Type type);
  /// \brief Request or response.
  Type GetType() const;
  /// \brief True for a request.
  bool IsRequest() const;
  /// \brief Set the EV probed (the response echoes it).
  void SetEv(uint16_t ev);
  /// \brief The EV probed.
  uint16_t GetEv() const;
  /// \brief Set the probe sequence number.
  void SetSequence(uint32_t seq);
  /// \brief The probe sequence number.
  uint32_t GetSequence() const;
  /// \brief Set the send timestamp in ns.
  void SetSendTimestamp(uint64_t ns);
  /// \brief The send timestamp in ns.
  uint64_t GetSendTimestamp() const;
  /// \brief Set the send timestamp from a Time. Aborts if negative.
  void SetSendTime(Time t);
  /// \brief The send timestamp as a Time.
  Time GetSendTime() const;

private:
  Type m_type;              //!< request or response
  uint16_t m_ev;            //!< entropy value probed
  uint32_t m_sequence;      //!< probe sequence number
  uint64_t m_sendTimestamp; //!< ns
};

} // namespace ns3

#endif // MRCSIM_MODELS_MRC_PROBE_HEADER_H

// MRC's control headers (SACK, NACK, probe) as a frame's inner header.
#ifndef MRCSIM_MODELS_MRC_FRAME_H
#define MRCSIM_MODELS_MRC_FRAME_H

#include "models/fabric/fabric-frame.h"
#include "models/wire/mrc-nack-header.h"
#include "models/wire/mrc-probe-header.h"
#include "models/wire/mrc-sack-header.h"

#include <cstdint>

namespace ns3
{

/// \brief A SACK: 24 bytes of fields (a big frame); its ECN echo is the frame's innerFlag.
template<>
struct FrameInnerOf<MrcSackHeader>
{
  struct Fields
  {
    uint64_t bitmap;
    uint32_t cumulativeAckPsn;
    uint32_t ackedPsn;
    uint32_t timestampEcho;
    uint16_t baseOffset;
    uint16_t echoedEv;
  };
  static constexpr bool kBig = true;
  static uint8_t Kind();
  static void Write(FabricFrame& frame, const MrcSackHeader& h);
  static void Read(const FabricFrame& frame, MrcSackHeader& h);
};

/// \brief A NACK: 8 bytes of fields (a small frame).
template<>
struct FrameInnerOf<MrcNackHeader>
{
  struct Fields
  {
    uint32_t psn;
    uint16_t echoedEv;
    uint8_t reason;
  };
  static constexpr bool kBig = false;
  static uint8_t Kind();
  static void Write(FabricFrame& frame, const MrcNackHeader& h);
  static void Read(const FabricFrame& frame, MrcNackHeader& h);
};

/// \brief A probe request or response: 16 bytes of fields (a big frame).
template<>
struct FrameInnerOf<MrcProbeHeader>
{
  struct Fields
  {
    uint64_t sendTimestamp;
    uint32_t sequence;
    uint16_t ev;
    uint8_t type;
  };
  static constexpr bool kBig = true;
  static uint8_t Kind();
  static void Write(FabricFrame& frame, const MrcProbeHeader& h);
  static void Read(const FabricFrame& frame, MrcProbeHeader& h);
};

} // namespace ns3

#endif

// RoCEv2's control headers (AETH of an ACK/NAK, the CNP's reserved bytes) as a frame's inner
// header.
#ifndef MRCSIM_MODELS_ROCE_FRAME_H
#define MRCSIM_MODELS_ROCE_FRAME_H

#include "models/fabric/fabric-frame.h"
#include "models/wire/roce-aeth-header.h"
#include "models/wire/roce-cnp-header.h"

#include <cstdint>

namespace ns3
{

/// \brief An AETH (after an RC ACK's BTH): syndrome and MSN.
template<>
struct FrameInnerOf<RoceAethHeader>
{
  struct Fields
  {
    uint32_t msn;
    uint8_t syndrome;
  };
  static constexpr bool kBig = false;
  static uint8_t Kind();
  static void Write(FabricFrame& frame, const RoceAethHeader& h);
  static void Read(const FabricFrame& frame, RoceAethHeader& h);
};

/// \brief A CNP's 16 reserved bytes: no fields.
template<>
struct FrameInnerOf<RoceCnpHeader>
{
  static constexpr bool kBig = false;
  static uint8_t Kind();
  static void Write(FabricFrame& frame, const RoceCnpHeader& h);
  static void Read(const FabricFrame& frame, RoceCnpHeader& h);
};

} // namespace ns3

#endif

// IPv6 addressing of the fabric. A GPU's NIC port in plane p is fd00:0:p::<gpu> (the GPU index in
// the low 32 bits); ECMP switches route on it. SRv6 destinations use the fc00::/16 uSID block
// with the plane as the rest of the 32-bit locator (mrcsim::FabricRouting::Locator).
#ifndef MRCSIM_MODELS_FABRIC_ADDRESS_H
#define MRCSIM_MODELS_FABRIC_ADDRESS_H

#include "models/wire/ipv6-usid-header.h"

#include <cstdint>

namespace ns3
{

/// \brief Address of GPU `gpu`'s NIC port in `plane`.
inline Ipv6UsidHeader::AddressBytes
GpuAddress(uint32_t gpu, int plane)
{
  Ipv6UsidHeader::AddressBytes a{};
  a[0] = 0xfd;
  a[4] = uint8_t(plane >> 8);
  a[5] = uint8_t(plane);
  a[12] = uint8_t(gpu >> 24);
  a[13] = uint8_t(gpu >> 16);
  a[14] = uint8_t(gpu >> 8);
  a[15] = uint8_t(gpu);
  return a;
}

inline bool
IsGpuAddress(const Ipv6UsidHeader::AddressBytes& a)
{
  return a[0] == 0xfd && a[1] == 0;
}

inline uint32_t
GpuOfAddress(const Ipv6UsidHeader::AddressBytes& a)
{
  return (uint32_t(a[12]) << 24) | (uint32_t(a[13]) << 16) | (uint32_t(a[14]) << 8) | a[15];
}

inline bool
IsUsidAddress(const Ipv6UsidHeader::AddressBytes& a)
{
  return a[0] == 0xfc && a[1] == 0;
}

} // namespace ns3

#endif

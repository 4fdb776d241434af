// The object that holds a member at a fixed offset: how a part of a queue pair finds its QP
// without a reference of its own (8 bytes each, in objects a large run holds millions of).
#ifndef MRCSIM_MODELS_ENGINE_OWNER_OF_H
#define MRCSIM_MODELS_ENGINE_OWNER_OF_H

#include <cstddef>
#include <cstdint>

namespace ns3
{

/// \brief The `Owner` that holds `member` `offset` bytes from its start. Call it with
/// offsetof(Owner, member): on a class with virtual functions that is conditionally supported,
/// and GCC supports it for a class without virtual bases (wrap the call in
/// `#pragma GCC diagnostic ignored "-Winvalid-offsetof"`).
template <typename Owner>
inline Owner&
OwnerOf(const void* member, std::size_t offset)
{
  return *reinterpret_cast<Owner*>(reinterpret_cast<uintptr_t>(member) - offset);
}

} // namespace ns3

#endif

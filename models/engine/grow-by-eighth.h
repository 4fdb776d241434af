// Vectors that grow one element at a time in a large run (a NIC's QP lists, a path-health
// registry): room for one more, by an eighth of the size, instead of push_back's doubling.
#ifndef MRCSIM_MODELS_GROW_BY_EIGHTH_H
#define MRCSIM_MODELS_GROW_BY_EIGHTH_H

#include <vector>

namespace ns3
{

/// \brief Makes room in `v` for one more element: by an eighth of its size (and 4) when it is
/// full, where push_back would double it. Lists that grow one QP at a time as connections are
/// made hold millions of entries in a large run: after doubling, up to half of a list's memory
/// is unused (65 QPs in room for 128, as an MRC NIC in expert groups of 64 has them), after an
/// eighth at most a ninth. Growing costs more copies: about nine times the final size in all.
template <typename T>
void
GrowByEighth(std::vector<T>& v)
{
  if (v.size() == v.capacity())
  {
    v.reserve(v.size() + v.size() / 8 + 4);
  }
}

} // namespace ns3

#endif

// SplitMix64: the 8-byte random stream every port and link keeps (an ns-3 RandomVariableStream
// per port would cost far more memory on a 2M-link fabric). Any state value is valid.
#ifndef MRCSIM_MODELS_SPLITMIX_H
#define MRCSIM_MODELS_SPLITMIX_H

#include <cstdint>

namespace ns3
{

/// \brief Advances `state` and returns the next 64 random bits.
inline uint64_t
SplitMix64(uint64_t& state)
{
  state += 0x9E3779B97F4A7C15ull;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// \brief A uniform double in [0, 1) from the stream.
inline double
SplitMixUniform(uint64_t& state)
{
  return double(SplitMix64(state) >> 11) * 0x1.0p-53;
}

/// \brief A well-mixed seed from the run's seed and run number and an object's identity, so
/// that consecutive run numbers give unrelated streams.
inline uint64_t
SplitMixSeed(uint64_t seed, uint64_t run, uint64_t identity)
{
  uint64_t s = seed * 0xD1B54A32D192ED03ull;
  SplitMix64(s);
  s ^= run * 0x9E3779B97F4A7C15ull;
  SplitMix64(s);
  s ^= identity;
  return SplitMix64(s);
}

} // namespace ns3

#endif

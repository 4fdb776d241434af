// Wall-clock and memory figures of this process, for benchmarks and run summaries.
#ifndef MRCSIM_SIM_RUN_PROCESS_STATS_H
#define MRCSIM_SIM_RUN_PROCESS_STATS_H

#include <chrono>
#include <cstdint>

namespace mrcsim
{

/// \brief Peak resident set size of this process, bytes (VmHWM).
uint64_t PeakRssBytes();
/// \brief Current resident set size, bytes (VmRSS).
uint64_t CurrentRssBytes();
/// \brief Bytes the allocator has handed out and not taken back (tcmalloc's
/// generic.current_allocated_bytes when the program links it, else glibc's mallinfo2: in-use
/// chunks plus mmap'ed blocks). Unlike the resident set, it does not move in steps of the page size (2
/// MiB with transparent huge pages), so differences of it measure what a structure costs.
uint64_t HeapInUseBytes();

/// \brief Seconds since construction, on the steady clock.
class Stopwatch
{
public:
  Stopwatch() : m_start(std::chrono::steady_clock::now()) {}
  double Seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count(); }
  void Restart() { m_start = std::chrono::steady_clock::now(); }

private:
  std::chrono::steady_clock::time_point m_start;
};

} // namespace mrcsim

#endif

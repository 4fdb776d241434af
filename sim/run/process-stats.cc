#include "sim/run/process-stats.h"

#include <malloc.h>

#include <fstream>
#include <string>

namespace mrcsim
{

namespace
{

uint64_t
StatusKb(const std::string& field)
{
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
  {
    if (line.compare(0, field.size(), field) == 0)
    {
      return std::stoull(line.substr(field.size() + 1)) * 1024;
    }
  }
  return 0;
}

} // namespace

uint64_t
PeakRssBytes()
{
  return StatusKb("VmHWM");
}

uint64_t
CurrentRssBytes()
{
  return StatusKb("VmRSS");
}

uint64_t
HeapInUseBytes()
{
  const struct mallinfo2 m = mallinfo2();
  return uint64_t(m.uordblks) + uint64_t(m.hblkhd);
}

} // namespace mrcsim

#include "sim/run/process-stats.h"

#include <malloc.h>

#include <cstddef>
#include <fstream>
#include <string>

// gperftools' C interface (its malloc_extension_c.h), declared weak: defined when the program
// links tcmalloc (mrcsim does: sim/CMakeLists.txt), null otherwise.
extern "C" int MallocExtension_GetNumericProperty(const char* property, size_t* value) __attribute__((weak));

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
  // tcmalloc serves every allocation, and glibc's mallinfo2 would see none of them.
  size_t allocated = 0;
  if (MallocExtension_GetNumericProperty &&
      MallocExtension_GetNumericProperty("generic.current_allocated_bytes", &allocated))
  {
    return allocated;
  }
  const struct mallinfo2 m = mallinfo2();
  return uint64_t(m.uordblks) + uint64_t(m.hblkhd);
}

} // namespace mrcsim

#include "sim/run/output-directory-lock.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace mrcsim
{

OutputDirectoryLock::OutputDirectoryLock(const std::string& dir)
  : m_dir(dir)
{
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw std::runtime_error("cannot create the results directory " + dir + ": " + ec.message());
  const std::string file = (std::filesystem::path(dir) / kFileName).string();
  m_fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (m_fd < 0)
    throw std::runtime_error("cannot create the lock file " + file + ": " + std::strerror(errno));
  int status;
  do
    status = ::flock(m_fd, LOCK_EX | LOCK_NB);
  while (status != 0 && errno == EINTR);
  if (status != 0)
  {
    const int error = errno;
    ::close(m_fd);
    m_fd = -1;
    if (error == EWOULDBLOCK)
      throw OutputDirectoryBusy("results directory " + dir + " is in use: another mrcsim run (or a load() reading " +
                                "it) holds its lock " + file + "; wait for it to end or choose another directory");
    throw std::runtime_error("cannot lock " + file + ": " + std::strerror(error));
  }
}

OutputDirectoryLock::~OutputDirectoryLock()
{
  Release();
}

void
OutputDirectoryLock::Release()
{
  if (m_fd >= 0)
    ::close(m_fd); // closing the only descriptor of the open file lets the flock go
  m_fd = -1;
}

bool
OutputDirectoryLock::Covers(const std::string& dir) const
{
  std::error_code ec;
  return Held() && std::filesystem::equivalent(m_dir, dir, ec) && !ec;
}

std::string
NewRunId()
{
  static std::atomic<uint64_t> s_runs{ 0 };
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  char text[64];
  std::snprintf(text, sizeof(text), "%016llx-%ld-%llu", static_cast<unsigned long long>(ns),
                static_cast<long>(::getpid()), static_cast<unsigned long long>(++s_runs));
  return text;
}

} // namespace mrcsim

#include "sim/output-file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace mrcsim
{

OutputFile::OutputFile(const std::string& path)
{
  Open(path);
}

OutputFile::~OutputFile()
{
  if (m_stream.is_open())
    m_stream.close();
  if (!m_committed && !m_temp.empty() && m_temp != m_path)
    std::remove(m_temp.c_str());
}

void
OutputFile::Open(const std::string& path)
{
  m_path = path;
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  const bool special = std::filesystem::exists(status) && !std::filesystem::is_regular_file(status);
  if (std::filesystem::is_directory(status))
    throw std::runtime_error("cannot write " + path + ": it is a directory");
  m_temp = special ? path : path + ".tmp";
  errno = 0;
  m_stream.open(m_temp, std::ios::out | std::ios::trunc | std::ios::binary);
  if (!m_stream.is_open())
    Fail("create", errno);
}

void
OutputFile::Check()
{
  if (!m_stream)
    Fail("write", errno);
}

void
OutputFile::Commit()
{
  errno = 0;
  m_stream.flush();
  Check();
  m_stream.close();
  if (m_stream.fail())
    Fail("close", errno);
  if (m_temp != m_path && std::rename(m_temp.c_str(), m_path.c_str()) != 0)
    Fail("rename into place", errno);
  m_committed = true;
}

void
OutputFile::Fail(const std::string& what, int error)
{
  std::string reason = error ? std::strerror(error) : "I/O error";
  if (m_stream.is_open())
    m_stream.close();
  if (m_temp != m_path)
    std::remove(m_temp.c_str());
  m_committed = true; // nothing left to clean up
  throw std::runtime_error("cannot " + what + " " + m_path + ": " + reason);
}

void
WriteOutputFile(const std::string& path, const std::string& text)
{
  OutputFile file(path);
  file << text;
  file.Commit();
}

} // namespace mrcsim

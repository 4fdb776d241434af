#include "sim/run/output-file.h"

#include <array>
#include <charconv>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include <unistd.h>

namespace mrcsim
{

namespace
{

const char* kTemporaryMark = ".mrcsim-";
const char* kTemporaryEnd = ".tmp";

/// "<path>.mrcsim-<pid>-<n>.tmp": unique among the processes and threads writing at once.
std::string
TemporaryName(const std::string& path)
{
  static std::atomic<uint64_t> s_files{ 0 };
  return path + kTemporaryMark + std::to_string(::getpid()) + "-" + std::to_string(++s_files) + kTemporaryEnd;
}

/// zlib's CRC-32 (reflected polynomial 0xedb88320), one table for all.
const std::array<uint32_t, 256>&
CrcTable()
{
  static const std::array<uint32_t, 256> table = []
  {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i)
    {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k)
        c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  return table;
}

} // namespace

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

template <typename F>
OutputFile&
OutputFile::WriteNumber(F value)
{
  // Without an exponent where that fits (100000, not 1e+05), else the shortest form of all (at
  // most 24 characters for a double).
  std::array<char, 64> text;
  std::to_chars_result r = std::to_chars(text.data(), text.data() + text.size(), value, std::chars_format::fixed);
  if (r.ec != std::errc())
    r = std::to_chars(text.data(), text.data() + text.size(), value);
  m_stream.write(text.data(), r.ptr - text.data());
  return *this;
}

template OutputFile& OutputFile::WriteNumber(float);
template OutputFile& OutputFile::WriteNumber(double);
template OutputFile& OutputFile::WriteNumber(long double);

void
OutputFile::Open(const std::string& path)
{
  m_path = path;
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  const bool special = std::filesystem::exists(status) && !std::filesystem::is_regular_file(status);
  if (std::filesystem::is_directory(status))
    throw std::runtime_error("cannot write " + path + ": it is a directory");
  m_temp = special ? path : TemporaryName(path);
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

bool
IsOutputTemporary(const std::string& name)
{
  const size_t end = std::strlen(kTemporaryEnd);
  return name.find(kTemporaryMark) != std::string::npos && name.size() > end &&
         name.compare(name.size() - end, end, kTemporaryEnd) == 0;
}

CsvDigest
DigestCsvFile(const std::string& path)
{
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot read back " + path + ": " + std::strerror(errno));
  const auto& table = CrcTable();
  CsvDigest d;
  uint64_t lines = 0;
  uint32_t crc = 0xffffffffu;
  std::array<char, 1 << 16> buffer;
  while (in)
  {
    in.read(buffer.data(), buffer.size());
    const auto n = static_cast<size_t>(in.gcount());
    for (size_t i = 0; i < n; ++i)
    {
      const auto byte = static_cast<unsigned char>(buffer[i]);
      crc = table[(crc ^ byte) & 0xffu] ^ (crc >> 8);
      lines += byte == '\n';
    }
    d.bytes += n;
  }
  if (in.bad())
    throw std::runtime_error("cannot read back " + path + ": I/O error");
  d.crc32 = crc ^ 0xffffffffu;
  d.rows = lines > 0 ? lines - 1 : 0; // the header line is not a row
  return d;
}

} // namespace mrcsim

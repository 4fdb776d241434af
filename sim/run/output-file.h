// Results files that are complete or absent: written under a temporary name of their own, every
// write checked, renamed into place at the end; and the digest summary.json keeps of each CSV.
#ifndef MRCSIM_SIM_RUN_OUTPUT_FILE_H
#define MRCSIM_SIM_RUN_OUTPUT_FILE_H

#include <cstdint>
#include <fstream>
#include <string>

namespace mrcsim
{

/// \brief One output file. Writes go to a temporary name unique to this file and process
/// ("<path>.mrcsim-<pid>-<n>.tmp", so two writers never share one) and Commit() flushes, closes, checks and
/// renames it to `path`, so a reader never sees half a file and a full or read-only disk is an
/// error naming the file (std::runtime_error), never a silent short file. A file not committed
/// (the run threw) is removed. A path that exists and is not a regular file (/dev/stdout, a
/// pipe) is written in place.
class OutputFile
{
public:
  OutputFile() = default;
  /// \brief Opens the file now; throws if it cannot be created.
  explicit OutputFile(const std::string& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  /// \brief Opens the file (if not opened by the constructor).
  void Open(const std::string& path);
  bool IsOpen() const { return m_stream.is_open(); }
  std::ostream& Stream() { return m_stream; }
  template <typename T>
  OutputFile& operator<<(const T& value)
  {
    m_stream << value;
    return *this;
  }
  /// \brief A number in the fewest digits that read back as the same value of its type
  /// (std::to_chars), without an exponent where 64 characters hold it: a stream's six
  /// significant digits would write 100002.0704 as 100002.
  OutputFile& operator<<(float value) { return WriteNumber(value); }
  OutputFile& operator<<(double value) { return WriteNumber(value); }
  OutputFile& operator<<(long double value) { return WriteNumber(value); }
  /// \brief Throws if a write failed so far (call now and then on long runs to fail early).
  void Check();
  /// \brief Flushes, closes and renames into place; throws std::runtime_error naming the file.
  void Commit();

private:
  template <typename F>
  OutputFile& WriteNumber(F value);
  [[noreturn]] void Fail(const std::string& what, int error);

  std::string m_path;
  std::string m_temp; ///< the name written to (m_path itself for a non-regular file)
  std::ofstream m_stream;
  bool m_committed = false;
};

/// \brief Writes `text` to `path` with OutputFile (created, checked, renamed into place).
void WriteOutputFile(const std::string& path, const std::string& text);

/// \brief Whether `name` is an OutputFile's temporary name (one a killed run may leave behind).
bool IsOutputTemporary(const std::string& name);

/// \brief What summary.json's "files" records of a CSV file, so that a reader can tell it is the
/// one this run wrote: its rows (lines after the header), bytes and CRC-32 (zlib's, as Python's
/// zlib.crc32 computes it).
struct CsvDigest
{
  uint64_t rows = 0;
  uint64_t bytes = 0;
  uint32_t crc32 = 0;
};

/// \brief The digest of the file at `path`, read back; throws std::runtime_error naming it.
CsvDigest DigestCsvFile(const std::string& path);

} // namespace mrcsim

#endif

// Results files that are complete or absent: written under a temporary name, every write
// checked, renamed into place at the end.
#ifndef MRCSIM_SIM_OUTPUT_FILE_H
#define MRCSIM_SIM_OUTPUT_FILE_H

#include <fstream>
#include <string>

namespace mrcsim
{

/// \brief One output file. Writes go to "<path>.tmp" and Commit() flushes, closes, checks and
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
  /// \brief Throws if a write failed so far (call now and then on long runs to fail early).
  void Check();
  /// \brief Flushes, closes and renames into place; throws std::runtime_error naming the file.
  void Commit();

private:
  [[noreturn]] void Fail(const std::string& what, int error);

  std::string m_path;
  std::string m_temp; ///< the name written to (m_path itself for a non-regular file)
  std::ofstream m_stream;
  bool m_committed = false;
};

/// \brief Writes `text` to `path` with OutputFile (created, checked, renamed into place).
void WriteOutputFile(const std::string& path, const std::string& text);

} // namespace mrcsim

#endif

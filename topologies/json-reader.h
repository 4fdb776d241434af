// Strict reading of JSON objects: every key is either consumed or reported as unknown, and every
// error names the file, the JSON path, the bad value and what was expected. Shared by the
// topology specs and the scenario files.
#ifndef MRCSIM_TOPOLOGIES_JSON_READER_H
#define MRCSIM_TOPOLOGIES_JSON_READER_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <iosfwd>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace mrcsim
{

/// \brief Bad input: the message names where (file and JSON path) and what was expected.
class SpecError : public std::runtime_error
{
public:
  using std::runtime_error::runtime_error;
};

/// \brief Reads one JSON object; Finish() rejects the keys nobody asked for.
class JsonReader
{
public:
  /// \param origin file name (or "<inline>") used in messages
  /// \param path JSON pointer-like path of this object, e.g. "/topology"
  JsonReader(const nlohmann::json& object, std::string origin, std::string path);

  bool Has(const std::string& key) const;
  /// \brief Marks a key as known without reading it (read elsewhere).
  void Skip(const std::string& key);
  /// \brief Declares every key this object may hold and rejects the others now, before any
  /// value is read, so that a misspelt key is reported as unknown rather than as missing.
  void Expect(const std::vector<std::string>& keys);

  std::string String(const std::string& key);
  std::string String(const std::string& key, const std::string& fallback);
  /// \brief A string that must be one of `allowed`.
  std::string Choice(const std::string& key, const std::vector<std::string>& allowed);
  std::string Choice(const std::string& key, const std::vector<std::string>& allowed, const std::string& fallback);
  /// \brief A whole number in [lo, hi].
  int64_t Int(const std::string& key, int64_t lo, int64_t hi);
  int64_t Int(const std::string& key, int64_t lo, int64_t hi, int64_t fallback);
  /// \brief A number in [lo, hi].
  double Number(const std::string& key, double lo, double hi);
  double Number(const std::string& key, double lo, double hi, double fallback);
  bool Bool(const std::string& key, bool fallback);
  /// \brief A list of whole numbers, each in [lo, hi].
  std::vector<int64_t> IntList(const std::string& key, int64_t lo, int64_t hi);
  /// \brief A nested object, read by its own reader.
  JsonReader Object(const std::string& key);
  /// \brief The raw value of a key (consumed).
  const nlohmann::json& Raw(const std::string& key);

  /// \brief Throws SpecError if the object holds keys that were never read or skipped.
  void Finish() const;

  /// \brief "origin: at path/key: " prefix for messages.
  std::string Where(const std::string& key) const;
  [[noreturn]] void Fail(const std::string& key, const std::string& message) const;

  const std::string& Origin() const { return m_origin; }
  const std::string& Path() const { return m_path; }

private:
  const nlohmann::json& Get(const std::string& key);

  const nlohmann::json& m_object;
  std::string m_origin;
  std::string m_path;
  std::set<std::string> m_known;
};

/// \brief Text that is not JSON at all (what nlohmann calls a parse error). Input that is JSON but
/// refused (nested too deep, a key twice in one object, a number beyond a double) throws a plain
/// SpecError, so a caller that takes non-JSON text as a string (e.g. `--set key=text`) can catch
/// this one alone.
class JsonSyntaxError : public SpecError
{
public:
  using SpecError::SpecError;
};

/// Deepest nesting of arrays and objects accepted in JSON text. Real inputs need under 10
/// levels; the bound is checked on the text before parsing, so that no recursive walk of a parsed
/// document (copy, dump, comparison, the readers, error messages) can overflow the stack.
constexpr int kMaxJsonDepth = 64;
/// Largest JSON file read (64 MiB; scenarios and specs are kilobytes): an endless device or pipe
/// given as the file is refused instead of filling memory.
constexpr uint64_t kMaxJsonFileBytes = uint64_t(64) << 20;

/// \brief Parses JSON text strictly, for every JSON that comes from a user (files, command-line
/// values, other languages): nesting at most kMaxJsonDepth (checked on the text before parsing),
/// no key twice in one object, every number within a double. Throws JsonSyntaxError for text
/// that is not JSON ("ORIGIN: not valid JSON (byte N): ...") and SpecError otherwise, each naming
/// `origin`, the byte (1-based, as nlohmann counts) and where known the JSON path.
nlohmann::json ParseJsonText(const std::string& text, const std::string& origin);

/// \brief The whole content of a stream, read in chunks: refuses more than `maxBytes` and a NUL
/// byte (never in JSON or XML text; /dev/zero is refused at its first chunk), naming `origin`.
/// `kind` says what was expected, e.g. "JSON".
std::string ReadInputStream(std::istream& in, const std::string& origin, const std::string& kind, uint64_t maxBytes);

/// \brief The whole content of a file: refuses a directory ("FILE: is a directory, expected a
/// KIND file"), a file that cannot be opened or read, and what ReadInputStream refuses.
std::string ReadInputFile(const std::string& file, const std::string& kind, uint64_t maxBytes);

/// \brief Reads and parses a JSON file (ReadInputFile, then ParseJsonText).
nlohmann::json ReadJsonFile(const std::string& file);

/// \brief A file that a JSON document names, found beside the document wherever it is read
/// from: a relative `file` is taken from the folder of `origin` when `origin` is a file (a
/// document that is not a file, e.g. a Python dict, has only the working directory).
std::string BesideDocument(const std::string& origin, const std::string& file);

} // namespace mrcsim

#endif

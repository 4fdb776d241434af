// Strict reading of JSON objects: every key is either consumed or reported as unknown, and every
// error names the file, the JSON path, the bad value and what was expected. Shared by the
// topology specs and the scenario files.
#ifndef MRCSIM_TOPOLOGIES_JSON_READER_H
#define MRCSIM_TOPOLOGIES_JSON_READER_H

#include <nlohmann/json.hpp>

#include <cstdint>
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

/// \brief Parses a JSON file; a syntax error names the file and the byte offset.
nlohmann::json ReadJsonFile(const std::string& file);

} // namespace mrcsim

#endif

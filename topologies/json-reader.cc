#include "topologies/json-reader.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace mrcsim
{

namespace
{

std::string
Shown(const nlohmann::json& v)
{
  // Replace invalid UTF-8 rather than throw: strings put in documents by code (e.g. a --set
  // value) were never checked by the parser.
  std::string s = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

std::string
Joined(const std::vector<std::string>& xs)
{
  std::string out;
  for (size_t i = 0; i < xs.size(); ++i)
  {
    out += (i ? ", " : "") + ("\"" + xs[i] + "\"");
  }
  return out;
}

} // namespace

JsonReader::JsonReader(const nlohmann::json& object, std::string origin, std::string path)
  : m_object(object)
  , m_origin(std::move(origin))
  , m_path(std::move(path))
{
  if (!m_object.is_object())
  {
    throw SpecError(m_origin + ": at " + (m_path.empty() ? "/" : m_path) + ": expected an object, got " +
                    Shown(m_object));
  }
}

std::string
JsonReader::Where(const std::string& key) const
{
  // An empty key is a key too ({"": 1}): shown as "" so that the path does not look like the
  // object's own.
  return m_origin + ": at " + m_path + "/" + (key.empty() ? "\"\"" : key) + ": ";
}

void
JsonReader::Fail(const std::string& key, const std::string& message) const
{
  throw SpecError(Where(key) + message);
}

bool
JsonReader::Has(const std::string& key) const
{
  return m_object.contains(key);
}

void
JsonReader::Skip(const std::string& key)
{
  m_known.insert(key);
}

void
JsonReader::Expect(const std::vector<std::string>& keys)
{
  m_known.insert(keys.begin(), keys.end());
  Finish();
}

const nlohmann::json&
JsonReader::Get(const std::string& key)
{
  m_known.insert(key);
  auto it = m_object.find(key);
  if (it == m_object.end())
  {
    Fail(key, "required key is missing");
  }
  return *it;
}

const nlohmann::json&
JsonReader::Raw(const std::string& key)
{
  return Get(key);
}

std::string
JsonReader::String(const std::string& key)
{
  const auto& v = Get(key);
  if (!v.is_string())
  {
    Fail(key, "expected a string, got " + Shown(v));
  }
  return v.get<std::string>();
}

std::string
JsonReader::String(const std::string& key, const std::string& fallback)
{
  m_known.insert(key);
  return Has(key) ? String(key) : fallback;
}

std::string
JsonReader::Choice(const std::string& key, const std::vector<std::string>& allowed)
{
  std::string s = String(key);
  for (const auto& a : allowed)
  {
    if (a == s)
    {
      return s;
    }
  }
  Fail(key, "\"" + s + "\" is not allowed; expected one of " + Joined(allowed));
}

std::string
JsonReader::Choice(const std::string& key, const std::vector<std::string>& allowed, const std::string& fallback)
{
  m_known.insert(key);
  return Has(key) ? Choice(key, allowed) : fallback;
}

int64_t
JsonReader::Int(const std::string& key, int64_t lo, int64_t hi)
{
  const auto& v = Get(key);
  if (!v.is_number_integer())
  {
    Fail(key, "expected a whole number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + Shown(v));
  }
  int64_t x =
    v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : v.get<int64_t>();
  if (x < lo || x > hi)
  {
    Fail(key, "expected a whole number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + Shown(v));
  }
  return x;
}

int64_t
JsonReader::Int(const std::string& key, int64_t lo, int64_t hi, int64_t fallback)
{
  m_known.insert(key);
  return Has(key) ? Int(key, lo, hi) : fallback;
}

double
JsonReader::Number(const std::string& key, double lo, double hi)
{
  const auto& v = Get(key);
  std::ostringstream range;
  range << "[" << lo << ", " << hi << "]";
  if (!v.is_number())
  {
    Fail(key, "expected a number in " + range.str() + ", got " + Shown(v));
  }
  double x = v.get<double>();
  if (!std::isfinite(x) || x < lo || x > hi)
  {
    Fail(key, "expected a number in " + range.str() + ", got " + Shown(v));
  }
  return x;
}

double
JsonReader::Number(const std::string& key, double lo, double hi, double fallback)
{
  m_known.insert(key);
  return Has(key) ? Number(key, lo, hi) : fallback;
}

bool
JsonReader::Bool(const std::string& key, bool fallback)
{
  m_known.insert(key);
  if (!Has(key))
  {
    return fallback;
  }
  const auto& v = Get(key);
  if (!v.is_boolean())
  {
    Fail(key, "expected true or false, got " + Shown(v));
  }
  return v.get<bool>();
}

std::vector<int64_t>
JsonReader::IntList(const std::string& key, int64_t lo, int64_t hi)
{
  const auto& v = Get(key);
  if (!v.is_array())
  {
    Fail(key, "expected a list of whole numbers, got " + Shown(v));
  }
  std::vector<int64_t> out;
  for (size_t i = 0; i < v.size(); ++i)
  {
    const auto& x = v[i];
    if (!x.is_number_integer() || x.get<int64_t>() < lo || x.get<int64_t>() > hi)
    {
      Fail(key + "/" + std::to_string(i),
           "expected a whole number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + Shown(x));
    }
    out.push_back(x.get<int64_t>());
  }
  return out;
}

JsonReader
JsonReader::Object(const std::string& key)
{
  const auto& v = Get(key);
  if (!v.is_object())
  {
    Fail(key, "expected an object, got " + Shown(v));
  }
  return JsonReader(v, m_origin, m_path + "/" + key);
}

void
JsonReader::Finish() const
{
  std::vector<std::string> unknown;
  for (auto it = m_object.begin(); it != m_object.end(); ++it)
  {
    if (!m_known.count(it.key()))
    {
      unknown.push_back(it.key());
    }
  }
  if (!unknown.empty())
  {
    std::vector<std::string> known(m_known.begin(), m_known.end());
    throw SpecError(Where(unknown.front()) + "unknown key; allowed keys here: " + Joined(known));
  }
}

namespace
{

/// Refuses text whose arrays and objects nest deeper than kMaxJsonDepth, counting brackets
/// outside strings. Exact for JSON; on other text the parser reports the syntax error, and no
/// document it builds on the way can be deeper than counted here.
void
CheckJsonDepth(const std::string& text, const std::string& origin)
{
  int depth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i)
  {
    const char c = text[i];
    if (inString)
    {
      if (c == '\\')
      {
        ++i; // the escaped character, a quote included, is part of the string
      }
      else if (c == '"')
      {
        inString = false;
      }
    }
    else if (c == '"')
    {
      inString = true;
    }
    else if (c == '[' || c == '{')
    {
      if (++depth > kMaxJsonDepth)
      {
        throw SpecError(origin + ": at byte " + std::to_string(i + 1) + ": arrays and objects nested deeper than " +
                        std::to_string(kMaxJsonDepth) + " levels; expected at most " + std::to_string(kMaxJsonDepth));
      }
    }
    else if ((c == ']' || c == '}') && depth > 0)
    {
      --depth;
    }
  }
}

/// Builds the document from nlohmann's SAX events (its parser is iterative, so the text's
/// depth never reaches the stack), tracking the JSON path so that a refusal can name it:
/// a key repeated in one object (nlohmann would keep the last value silently) and a number
/// beyond a double (nlohmann's message names neither file nor place).
class StrictBuilder : public nlohmann::json_sax<nlohmann::json>
{
public:
  StrictBuilder(nlohmann::json& root, const std::string& origin) : m_root(root), m_origin(origin) {}

  bool null() override { return Put(nullptr); }
  bool boolean(bool v) override { return Put(v); }
  bool number_integer(number_integer_t v) override { return Put(v); }
  bool number_unsigned(number_unsigned_t v) override { return Put(v); }
  bool number_float(number_float_t v, const string_t&) override { return Put(v); }
  bool string(string_t& v) override { return Put(std::move(v)); }
  bool binary(binary_t& v) override { return Put(nlohmann::json::binary(std::move(v))); }
  bool start_object(std::size_t) override { return Open(nlohmann::json::object()); }
  bool start_array(std::size_t) override { return Open(nlohmann::json::array()); }
  bool end_object() override { return Close(); }
  bool end_array() override { return Close(); }

  bool key(string_t& k) override
  {
    Frame& top = m_stack.back();
    if (top.value->contains(k))
    {
      m_error =
        m_origin + ": at " + ContainerPath() + ": duplicate key \"" + k + "\"; a key may appear only once in an object";
      return false;
    }
    top.key = std::move(k);
    return true;
  }

  bool parse_error(std::size_t position, const std::string& token, const nlohmann::detail::exception& e) override
  {
    if (e.id == 406) // out_of_range: a number beyond a double, e.g. 1e400
    {
      m_error = m_origin + ": at " + ValuePath() + " (byte " + std::to_string(position) + "): number " + token +
                " is out of range; expected a magnitude below 1.8e308";
    }
    else
    {
      m_syntax = true;
      m_error = m_origin + ": not valid JSON (byte " + std::to_string(position) + "): " + e.what();
    }
    return false;
  }

  /// \brief Throws the refusal, if parsing stopped at one.
  void Rethrow() const
  {
    if (m_syntax)
    {
      throw JsonSyntaxError(m_error);
    }
    if (!m_error.empty())
    {
      throw SpecError(m_error);
    }
  }

private:
  struct Frame
  {
    nlohmann::json* value; ///< the open array or object
    std::string key;       ///< in an object, the key of the value being read
    std::string segment;   ///< this container's own path segment in its parent ("" at the root)
  };

  /// Path of the open container: "/" at the root.
  std::string ContainerPath() const
  {
    std::string path;
    for (size_t i = 1; i < m_stack.size(); ++i)
    {
      path += "/" + m_stack[i].segment;
    }
    return path.empty() ? "/" : path;
  }

  /// Segment, in the open container, of the value being read.
  std::string NextSegment() const
  {
    const Frame& top = m_stack.back();
    return top.value->is_object() ? top.key : std::to_string(top.value->size());
  }

  /// Path of the value being read.
  std::string ValuePath() const
  {
    if (m_stack.empty())
    {
      return "/";
    }
    std::string path = ContainerPath();
    return (path == "/" ? "" : path) + "/" + NextSegment();
  }

  nlohmann::json* Insert(nlohmann::json&& v)
  {
    if (m_stack.empty())
    {
      m_root = std::move(v);
      return &m_root;
    }
    Frame& top = m_stack.back();
    if (top.value->is_array())
    {
      top.value->push_back(std::move(v));
      return &top.value->back();
    }
    nlohmann::json& slot = (*top.value)[top.key];
    slot = std::move(v);
    return &slot;
  }

  bool Put(nlohmann::json&& v)
  {
    Insert(std::move(v));
    return true;
  }

  bool Open(nlohmann::json&& container)
  {
    std::string segment = m_stack.empty() ? "" : NextSegment();
    m_stack.push_back(Frame{ Insert(std::move(container)), "", std::move(segment) });
    return true;
  }

  bool Close()
  {
    m_stack.pop_back();
    return true;
  }

  nlohmann::json& m_root;
  const std::string& m_origin;
  std::vector<Frame> m_stack;
  std::string m_error;   ///< why parsing stopped; "" if it did not
  bool m_syntax = false; ///< m_error is a syntax error
};

} // namespace

nlohmann::json
ParseJsonText(const std::string& text, const std::string& origin)
{
  CheckJsonDepth(text, origin);
  nlohmann::json root;
  StrictBuilder builder(root, origin);
  const bool ok = nlohmann::json::sax_parse(text, &builder);
  builder.Rethrow();
  if (!ok)
  {
    throw JsonSyntaxError(origin + ": not valid JSON");
  }
  return root;
}

std::string
ReadInputStream(std::istream& in, const std::string& origin, const std::string& kind, uint64_t maxBytes)
{
  // Chunks up to the limit, never the whole stream at once: devices and pipes have no size.
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0)
  {
    const size_t got = static_cast<size_t>(in.gcount());
    if (const void* nul = std::memchr(chunk, '\0', got))
    {
      const size_t at = text.size() + static_cast<size_t>(static_cast<const char*>(nul) - chunk);
      throw SpecError(origin + ": at byte " + std::to_string(at + 1) + ": a NUL byte; expected a " + kind +
                      " file (text)");
    }
    text.append(chunk, got);
    if (text.size() > maxBytes)
    {
      throw SpecError(origin + ": larger than " + std::to_string(maxBytes) + " bytes; expected a " + kind + " file");
    }
  }
  if (in.bad())
  {
    throw SpecError(origin + ": cannot read file (" + std::strerror(errno) + ")");
  }
  return text;
}

std::string
ReadInputFile(const std::string& file, const std::string& kind, uint64_t maxBytes)
{
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec))
  {
    throw SpecError(file + ": is a directory, expected a " + kind + " file");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in)
  {
    throw SpecError(file + ": cannot open file (" + std::strerror(errno) + ")");
  }
  return ReadInputStream(in, file, kind, maxBytes);
}

nlohmann::json
ReadJsonFile(const std::string& file)
{
  return ParseJsonText(ReadInputFile(file, "JSON", kMaxJsonFileBytes), file);
}

std::string
BesideDocument(const std::string& origin, const std::string& file)
{
  const std::filesystem::path document(origin);
  std::error_code error;
  if (std::filesystem::path(file).is_relative() && std::filesystem::is_regular_file(document, error) &&
      document.has_parent_path())
  {
    return (document.parent_path() / file).string();
  }
  return file;
}

} // namespace mrcsim

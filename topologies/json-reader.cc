#include "topologies/json-reader.h"

#include <cmath>
#include <fstream>
#include <sstream>

namespace mrcsim
{

namespace
{

std::string
Shown(const nlohmann::json& v)
{
  std::string s = v.dump();
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
  return m_origin + ": at " + m_path + "/" + key + ": ";
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

nlohmann::json
ReadJsonFile(const std::string& file)
{
  std::ifstream in(file);
  if (!in)
  {
    throw SpecError(file + ": cannot open file");
  }
  try
  {
    return nlohmann::json::parse(in);
  }
  catch (const nlohmann::json::parse_error& e)
  {
    throw SpecError(file + ": not valid JSON (byte " + std::to_string(e.byte) + "): " + e.what());
  }
}

} // namespace mrcsim

// --set overrides: a path of keys and list indices into the scenario document, and a value.
// Applied before validation, so an override is checked exactly like the file.
#include "sim/scenario/scenario-spec.h"

#include <algorithm>
#include <cctype>

namespace mrcsim
{

namespace
{

/// A list index in its one spelling: "0", "12", never "00" or "012", so that two spellings of
/// a path never name one entry (a sweep over both would run it twice, as different points).
bool
IsIndex(const std::string& s)
{
  return !s.empty() && s.size() < 10 && (s[0] != '0' || s.size() == 1) &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

/// Length of the valid UTF-8 sequence at `s[i]`, or 0 (RFC 3629: no overlong forms, no
/// surrogates, nothing above U+10FFFF).
std::size_t
Utf8Length(const std::string& s, std::size_t i)
{
  const auto byte = [&](std::size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u; };
  const unsigned c = byte(i);
  const auto cont = [&](std::size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) { return byte(k) >= lo && byte(k) <= hi; };
  if (c < 0x80)
    return 1;
  if (c >= 0xC2 && c <= 0xDF)
    return cont(i + 1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF)
  {
    const unsigned lo = c == 0xE0 ? 0xA0 : 0x80;
    const unsigned hi = c == 0xED ? 0x9F : 0xBF;
    return cont(i + 1, lo, hi) && cont(i + 2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4)
  {
    const unsigned lo = c == 0xF0 ? 0x90 : 0x80;
    const unsigned hi = c == 0xF4 ? 0x8F : 0xBF;
    return cont(i + 1, lo, hi) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  }
  return 0;
}

/// `s` with every byte that is not part of valid UTF-8 written as \xNN; sets *firstBad to the
/// offset of the first such byte (npos if none).
std::string
EscapeInvalidUtf8(const std::string& s, std::size_t* firstBad)
{
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  *firstBad = std::string::npos;
  for (std::size_t i = 0; i < s.size();)
  {
    const std::size_t n = Utf8Length(s, i);
    if (n == 0)
    {
      if (*firstBad == std::string::npos)
        *firstBad = i;
      const auto c = static_cast<unsigned char>(s[i]);
      out += std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
      ++i;
      continue;
    }
    out.append(s, i, n);
    i += n;
  }
  return out;
}

} // namespace

void
ApplyOverride(nlohmann::json& document, const std::string& assignment)
{
  std::size_t badByte = 0;
  std::string shown = EscapeInvalidUtf8(assignment, &badByte);
  if (shown.size() > 120)
  {
    // Messages quote the override; a huge one is cut (at a character boundary).
    std::size_t cut = 100;
    while (cut > 0 && (static_cast<unsigned char>(shown[cut]) & 0xC0) == 0x80)
      --cut;
    shown = shown.substr(0, cut) + "... (" + std::to_string(assignment.size()) + " bytes)";
  }
  auto fail = [&shown](const std::string& message) { throw SpecError("override \"" + shown + "\": " + message); };
  if (badByte != std::string::npos)
  {
    // Caught here, before anything runs: JSON strings are UTF-8, and the results repeat them.
    fail("not valid UTF-8 (byte " + std::to_string(badByte + 1) + "); scenario values are UTF-8 text");
  }
  const size_t eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
  {
    fail("expected path=value, e.g. workloads.0.bytes=1048576");
  }
  std::vector<std::string> keys;
  std::string dotted = assignment.substr(0, eq);
  for (size_t start = 0;;)
  {
    size_t dot = dotted.find('.', start);
    keys.push_back(dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (keys.back().empty())
    {
      fail("empty key in path \"" + dotted + "\"");
    }
    if (dot == std::string::npos)
    {
      break;
    }
    start = dot + 1;
  }
  // A value that is not JSON is a string, so "--set transport.attributes.X=1s" needs no quotes.
  // JSON that is too deep, repeats a key or overflows a number is an error, as in a file.
  nlohmann::json value;
  try
  {
    value = ParseJsonText(assignment.substr(eq + 1), "override \"" + shown + "\": the value of " + dotted);
  }
  catch (const JsonSyntaxError&)
  {
    value = assignment.substr(eq + 1);
  }

  nlohmann::json* node = &document;
  std::string at; // JSON path of `node`
  std::string prefix;
  for (size_t i = 0; i < keys.size(); ++i)
  {
    const std::string& key = keys[i];
    const bool last = i + 1 == keys.size();
    prefix += (i ? "." : "") + key;
    if (node->is_object())
    {
      if (last)
      {
        // A new key is allowed here; if it is not a valid key, validation reports it as unknown.
        (*node)[key] = std::move(value);
        return;
      }
      auto it = node->find(key);
      if (it == node->end())
      {
        // A missing object on the way is created, as the file could have written it: validation
        // then checks its key like any other (an unknown key is reported as unknown, a key that
        // is not an object as the wrong type). A list cannot be created: its index would be out
        // of range.
        if (IsIndex(keys[i + 1]))
        {
          fail(at + "/" + key + " does not exist; set the whole list instead, e.g. " + prefix + "=[...]");
        }
        it = node->emplace(key, nlohmann::json::object()).first;
      }
      node = &*it;
    }
    else if (node->is_array())
    {
      if (!IsIndex(key))
      {
        fail((at.empty() ? "/" : at) + " is a list; expected an index, got \"" + key +
             "\" (indices are written 0, 1, ... without leading zeros)");
      }
      const size_t index = std::stoul(key);
      if (index >= node->size())
      {
        fail((at.empty() ? "/" : at) + " has " + std::to_string(node->size()) +
             (node->size() == 1 ? " entry" : " entries") +
             (node->empty() ? "" : " (0.." + std::to_string(node->size() - 1) + ")") + "; index " + key +
             " is out of range");
      }
      node = &(*node)[index];
      if (last)
      {
        *node = std::move(value);
        return;
      }
    }
    else
    {
      fail((at.empty() ? "/" : at) + " is a " + node->type_name() + ", not an object or a list");
    }
    at += "/" + key;
  }
}

} // namespace mrcsim

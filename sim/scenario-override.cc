// --set overrides: a path of keys and list indices into the scenario document, and a value.
// Applied before validation, so an override is checked exactly like the file.
#include "sim/scenario-spec.h"

#include <algorithm>
#include <cctype>

namespace mrcsim
{

namespace
{

bool
IsIndex(const std::string& s)
{
  return !s.empty() && s.size() < 10 &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

} // namespace

void
ApplyOverride(nlohmann::json& document, const std::string& assignment)
{
  auto fail = [&assignment](const std::string& message)
  { throw SpecError("override \"" + assignment + "\": " + message); };
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
  nlohmann::json value = nlohmann::json::parse(assignment.substr(eq + 1), nullptr, false);
  if (value.is_discarded())
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
        fail(at + "/" + key + " does not exist; set the whole value instead, e.g. " + prefix + "={...}");
      }
      node = &*it;
    }
    else if (node->is_array())
    {
      if (!IsIndex(key))
      {
        fail((at.empty() ? "/" : at) + " is a list; expected an index, got \"" + key + "\"");
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

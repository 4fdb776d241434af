#include "sim/scenario/type-registry.h"

#include <algorithm>

namespace mrcsim
{

bool
TypeKeys::Takes(const std::string& key) const
{
  return std::any_of(keys.begin(), keys.end(), [&key](const KeyRule& k) { return k.key == key; });
}

KeyTable::KeyTable(std::string kind,
                   std::vector<KeyRule> common,
                   std::vector<std::string> typedKeys,
                   std::vector<TypeKeys> types)
  : m_kind(std::move(kind))
  , m_common(std::move(common))
  , m_typedKeys(std::move(typedKeys))
  , m_types(std::move(types))
{
  // A registration mistake, not an input error: every key a type takes must be listed.
  for (const TypeKeys& t : m_types)
  {
    for (const KeyRule& k : t.keys)
    {
      NS_ABORT_MSG_IF(std::find(m_typedKeys.begin(), m_typedKeys.end(), k.key) == m_typedKeys.end(),
                      m_kind << " type '" << t.name << "' takes key '" << k.key
                             << "', which is not among the registry's typed keys");
    }
  }
}

void
KeyTable::AddKeys(const TypeKeys& type)
{
  NS_ABORT_MSG_IF(std::any_of(m_types.begin(), m_types.end(), [&](const TypeKeys& t) { return t.name == type.name; }),
                  m_kind << " type '" << type.name << "' is already registered");
  for (const KeyRule& k : type.keys)
  {
    NS_ABORT_MSG_IF(std::any_of(m_common.begin(), m_common.end(), [&](const KeyRule& c) { return c.key == k.key; }),
                    m_kind << " type '" << type.name << "' lists the common key '" << k.key
                           << "' among its own");
    if (std::find(m_typedKeys.begin(), m_typedKeys.end(), k.key) == m_typedKeys.end())
    {
      m_typedKeys.push_back(k.key);
    }
  }
  m_types.push_back(type);
}

std::vector<std::string>
KeyTable::Names() const
{
  std::vector<std::string> names;
  for (const TypeKeys& t : m_types)
  {
    names.push_back(t.name);
  }
  return names;
}

std::vector<std::string>
KeyTable::AllKeys() const
{
  std::vector<std::string> keys;
  for (const KeyRule& k : m_common)
  {
    keys.push_back(k.key);
  }
  keys.insert(keys.end(), m_typedKeys.begin(), m_typedKeys.end());
  return keys;
}

std::vector<std::string>
KeyTable::TypesTaking(const std::string& key) const
{
  std::vector<std::string> types;
  for (const TypeKeys& t : m_types)
  {
    if (t.Takes(key))
    {
      types.push_back(t.name);
    }
  }
  return types;
}

std::vector<KeyRule>
KeyTable::KeysOf(const std::string& type) const
{
  std::vector<KeyRule> keys = m_common;
  for (const TypeKeys& t : m_types)
  {
    if (t.name == type)
    {
      keys.insert(keys.end(), t.keys.begin(), t.keys.end());
    }
  }
  return keys;
}

std::string
KeyTable::ReadType(JsonReader& r) const
{
  r.Expect(AllKeys());
  const std::string type = r.Choice("type", Names());
  // Reported as its own error rather than as an unknown key: the key is right, the entry's type
  // is what makes it meaningless, and that is what the author must change.
  for (const std::string& key : m_typedKeys)
  {
    const std::vector<std::string> types = TypesTaking(key);
    if (r.Has(key) && std::find(types.begin(), types.end(), type) == types.end())
    {
      std::string list;
      for (size_t i = 0; i < types.size(); ++i)
      {
        list += (i ? ", " : "") + types[i];
      }
      r.Fail(key, "key '" + key + "' is only allowed for " + list + ", not for " + type);
    }
  }
  return type;
}

nlohmann::json
KeyTable::SchemaFragment() const
{
  nlohmann::json required = nlohmann::json::array();
  for (const KeyRule& k : m_common)
  {
    if (k.use == KeyUse::Required)
    {
      required.push_back(k.key);
    }
  }
  nlohmann::json allOf = nlohmann::json::array();
  for (const TypeKeys& t : m_types)
  {
    nlohmann::json then = nlohmann::json::object();
    for (const std::string& key : m_typedKeys)
    {
      if (!t.Takes(key))
      {
        then["properties"][key] = false;
      }
    }
    for (const KeyRule& k : t.keys)
    {
      if (k.use == KeyUse::Required)
      {
        then["required"].push_back(k.key);
      }
      else if (k.use == KeyUse::AnyOf)
      {
        then["anyOf"].push_back({ { "required", nlohmann::json::array({ k.key }) } });
      }
    }
    nlohmann::json condition = { { "properties", { { "type", { { "const", t.name } } } } },
                                 { "required", nlohmann::json::array({ "type" }) } };
    allOf.push_back({ { "if", condition }, { "then", then } });
  }
  return { { "properties", { { "type", { { "enum", Names() } } } } }, { "required", required }, { "allOf", allOf } };
}

} // namespace mrcsim

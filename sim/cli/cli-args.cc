#include "sim/cli/cli-args.h"

#include <cctype>

namespace mrcsim
{

CliArgs::CliArgs(const std::vector<std::string>& args,
                 const std::set<std::string>& flags,
                 const std::set<std::string>& options)
{
  for (size_t i = 0; i < args.size(); ++i)
  {
    const std::string& a = args[i];
    if (a.rfind("--", 0) != 0)
    {
      m_positional.push_back(a);
      continue;
    }
    std::string name = a;
    std::string value;
    bool inlineValue = false;
    size_t eq = a.find('=');
    if (eq != std::string::npos)
    {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
      inlineValue = true;
    }
    if (flags.count(name) && !inlineValue)
    {
      m_flags.insert(name);
    }
    else if (options.count(name))
    {
      if (!inlineValue)
      {
        if (i + 1 >= args.size())
        {
          throw UsageError("option " + name + " needs a value");
        }
        value = args[++i];
      }
      m_values[name].push_back(value);
    }
    else
    {
      throw UsageError("unknown option " + name);
    }
  }
}

std::string
CliArgs::Value(const std::string& name, const std::string& fallback) const
{
  auto it = m_values.find(name);
  if (it == m_values.end())
    return fallback;
  if (it->second.size() > 1)
  {
    // Which one was meant is a guess: the last silently winning hid typos in scripts.
    std::string given;
    for (const std::string& v : it->second)
      given += (given.empty() ? "\"" : ", \"") + v + "\"";
    throw UsageError("option " + name + " given " + std::to_string(it->second.size()) + " times (" + given +
                     "); it takes one value");
  }
  return it->second.back();
}

std::vector<std::string>
CliArgs::Values(const std::string& name) const
{
  auto it = m_values.find(name);
  return it == m_values.end() ? std::vector<std::string>{} : it->second;
}

uint64_t
CliArgs::Unsigned(const std::string& name, const std::string& fallback, uint64_t min, uint64_t max) const
{
  const std::string text = Value(name, fallback);
  std::size_t used = 0;
  uint64_t value = 0;
  try
  {
    value = std::stoull(text, &used);
  }
  catch (const std::exception&)
  {
    used = 0;
  }
  if (used == 0 || used != text.size() || !std::isdigit(static_cast<unsigned char>(text[0])) || value < min ||
      value > max)
  {
    throw UsageError(name + " " + text + ": expected an integer " +
                     (max == std::numeric_limits<uint64_t>::max()
                        ? "of at least " + std::to_string(min)
                        : "in [" + std::to_string(min) + ", " + std::to_string(max) + "]"));
  }
  return value;
}

} // namespace mrcsim

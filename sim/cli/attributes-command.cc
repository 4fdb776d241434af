// `mrcsim attributes`: every ns-3 attribute a scenario's transport may set, with its kind of
// value, default, accepted range and documentation (sim/cli/attribute-list.h).
#include "sim/cli/attribute-list.h"
#include "sim/cli/cli-args.h"
#include "sim/cli/commands.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>

namespace mrcsim
{

namespace
{

const char* kAttributesUsage = R"(usage: mrcsim attributes [FILTER] [--json] [--settable]
  Lists the ns-3 attributes a scenario may set in a transport's "attributes" (as
  "ns3::Type::Attribute": "value"): each one's kind of value, default, what the checker accepts
  (range, names) and its documentation, which cites the default's source. FILTER keeps the
  names that contain it (a type, e.g. DcqcnRateControl, or part of a name, e.g. Ecn).
  --json      one JSON array of {name, kind, default, accepts, help, settable, why_not}
  --settable  only those a scenario may set (not those the checker refuses, e.g. link delays,
              which come from the topology)
)";

} // namespace

int
AttributesCommand(const std::vector<std::string>& argv)
{
  CliArgs args(argv, { "--json", "--settable", "--help" }, {});
  if (args.Flag("--help"))
  {
    std::cout << kAttributesUsage;
    return 0;
  }
  if (args.Positional().size() > 1)
  {
    throw UsageError("attributes takes at most one FILTER, got " + std::to_string(args.Positional().size()));
  }
  const std::string filter = args.Positional().empty() ? "" : args.Positional()[0];
  std::vector<AttributeEntry> list = ListAttributes(filter);
  if (args.Flag("--settable"))
  {
    list.erase(std::remove_if(list.begin(), list.end(), [](const AttributeEntry& e) { return !e.notSettable.empty(); }),
               list.end());
  }
  if (list.empty())
  {
    throw UsageError("no attribute name contains \"" + filter + "\"");
  }
  if (args.Flag("--json"))
  {
    nlohmann::json out = nlohmann::json::array();
    for (const AttributeEntry& e : list)
    {
      out.push_back({ { "name", e.name },
                      { "kind", e.kind },
                      { "default", e.defaultValue },
                      { "accepts", e.accepts },
                      { "help", e.help },
                      { "settable", e.notSettable.empty() },
                      { "why_not", e.notSettable } });
    }
    std::cout << out.dump(1) << "\n";
    return 0;
  }
  for (const AttributeEntry& e : list)
  {
    std::cout << e.name << "\n    " << e.kind << "; default " << (e.defaultValue.empty() ? "\"\"" : e.defaultValue);
    if (!e.accepts.empty())
    {
      std::cout << "; accepts " << e.accepts;
    }
    std::cout << "\n";
    if (!e.notSettable.empty())
    {
      std::cout << "    not settable from a scenario: " << e.notSettable << "\n";
    }
    if (!e.help.empty())
    {
      std::cout << "    " << e.help << "\n";
    }
  }
  return 0;
}

} // namespace mrcsim

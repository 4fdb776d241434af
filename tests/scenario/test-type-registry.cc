// The type registries (workloads, failures, transports) against the shipped JSON Schema
// (scenarios/scenario.schema.json): the same type names in the same order, and for each type the
// same keys allowed, required and required one-of; the registries' own schema fragments say the
// same; a key of another type is refused naming the types that take it.
#include "sim/failures/failure-types.h"
#include "sim/scenario/scenario-spec.h"
#include "sim/network/transport-types.h"
#include "sim/workloads/workload-types.h"

#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

using namespace mrcsim;

namespace
{

const std::string kRoot = MRCSIM_SOURCE_DIR;

using KeySet = std::set<std::string>;

/// What a schema says of one type's keys.
struct TypeSchema
{
  KeySet allowed;
  KeySet required;
  KeySet anyOf; ///< at least one of these
};

/// What a schema says of one kind: its type names and, by type, its keys.
struct KindSchema
{
  std::vector<std::string> names;
  std::map<std::string, TypeSchema> types;
};

KeySet
Strings(const nlohmann::json& list)
{
  KeySet out;
  for (const auto& s : list)
    out.insert(s.get<std::string>());
  return out;
}

/// The types an "if" on the type selects: {"enum"}, {"const"} or {"not": either}.
KeySet
Selected(const nlohmann::json& condition, const std::vector<std::string>& names)
{
  if (condition.contains("not"))
  {
    const KeySet excluded = Selected(condition.at("not"), names);
    KeySet out;
    for (const std::string& n : names)
      if (!excluded.count(n))
        out.insert(n);
    return out;
  }
  if (condition.contains("const"))
    return { condition.at("const").get<std::string>() };
  return Strings(condition.at("enum"));
}

/// Reads a kind's schema (the file's $defs entry, or a registry's SchemaFragment) given every key
/// the kind has: "allOf" blocks of {"if": type, "then": {"properties": {key: false}, "required",
/// "anyOf": [{"required"}]}}; other constraints (value ranges) are not about keys and are left out.
KindSchema
Interpret(const nlohmann::json& def, const KeySet& allKeys)
{
  KindSchema k;
  for (const auto& n : def.at("properties").at("type").at("enum"))
    k.names.push_back(n.get<std::string>());
  const KeySet common = def.contains("required") ? Strings(def.at("required")) : KeySet{};
  for (const std::string& n : k.names)
    k.types[n] = TypeSchema{ allKeys, common, {} };
  const nlohmann::json blocks = def.value("allOf", nlohmann::json::array());
  for (const auto& block : blocks)
  {
    const nlohmann::json& then = block.at("then");
    const nlohmann::json properties = then.value("properties", nlohmann::json::object());
    const nlohmann::json required = then.value("required", nlohmann::json::array());
    const nlohmann::json anyOf = then.value("anyOf", nlohmann::json::array());
    for (const std::string& t : Selected(block.at("if").at("properties").at("type"), k.names))
    {
      TypeSchema& ts = k.types.at(t);
      for (const auto& [key, value] : properties.items())
        if (value.is_boolean() && !value.get<bool>())
          ts.allowed.erase(key);
      for (const auto& key : required)
        ts.required.insert(key.get<std::string>());
      for (const auto& alternative : anyOf)
        for (const auto& key : alternative.at("required"))
          ts.anyOf.insert(key.get<std::string>());
    }
  }
  return k;
}

/// What a registry says of its kind.
KindSchema
FromRegistry(const KeyTable& table)
{
  KindSchema k;
  k.names = table.Names();
  for (const std::string& n : k.names)
  {
    TypeSchema& ts = k.types[n];
    for (const KeyRule& r : table.KeysOf(n))
    {
      ts.allowed.insert(r.key);
      if (r.use == KeyUse::Required)
        ts.required.insert(r.key);
      if (r.use == KeyUse::AnyOf)
        ts.anyOf.insert(r.key);
    }
  }
  return k;
}

void
CheckAgree(const KindSchema& expected, const KindSchema& got, const std::string& what)
{
  INFO(what);
  CHECK(got.names == expected.names);
  for (const std::string& n : expected.names)
  {
    INFO("type " << n);
    REQUIRE(got.types.count(n) == 1);
    const TypeSchema& e = expected.types.at(n);
    const TypeSchema& g = got.types.at(n);
    CHECK(g.allowed == e.allowed);
    CHECK(g.required == e.required);
    CHECK(g.anyOf == e.anyOf);
  }
}

/// The registry and the file's $defs entry `def` agree, and so does the registry's own fragment.
void
CheckKind(const KeyTable& table, const std::string& def)
{
  const nlohmann::json schema = ReadJsonFile(kRoot + "/scenarios/scenario.schema.json");
  const nlohmann::json& fileDef = schema.at("$defs").at(def);
  const KeySet fileKeys = [&]
  {
    KeySet keys;
    for (const auto& [key, value] : fileDef.at("properties").items())
      keys.insert(key);
    return keys;
  }();
  const std::vector<std::string> all = table.AllKeys();
  CHECK(KeySet(all.begin(), all.end()) == fileKeys);
  const KindSchema registry = FromRegistry(table);
  CheckAgree(Interpret(fileDef, fileKeys), registry, "scenario.schema.json $defs/" + def);
  CheckAgree(registry, Interpret(table.SchemaFragment(), KeySet(all.begin(), all.end())), "SchemaFragment()");
}

} // namespace

TEST_CASE("registry: workload types agree with the schema", "[registry]")
{
  CheckKind(WorkloadTypes(), "workload");
  CHECK(WorkloadTypes().Names() ==
        std::vector<std::string>{ "ring_allreduce", "ring_allgather", "ring_reducescatter", "hd_allreduce", "all_to_all",
                                  "permutation", "incast", "random", "flows", "train_step" });
}

TEST_CASE("registry: failure types agree with the schema", "[registry]")
{
  CheckKind(FailureTypes(), "failure");
  CHECK(FailureTypes().Names().size() == 11);
}

TEST_CASE("registry: transports agree with the schema", "[registry]")
{
  CheckKind(TransportTypes(), "transport");
  CHECK(TransportTypes().Names() == std::vector<std::string>{ "mrc", "rocev2" });
}

TEST_CASE("registry: every type has a reader and a constructor; lookups", "[registry]")
{
  for (const WorkloadType& t : WorkloadTypes().Types())
  {
    CHECK(t.parse != nullptr);
    CHECK(t.make != nullptr);
    CHECK(!t.description.empty());
  }
  for (const FailureType& t : FailureTypes().Types())
  {
    CHECK(t.parse != nullptr);
    CHECK(t.schedule != nullptr);
    CHECK(!t.description.empty());
  }
  for (const TransportType& t : TransportTypes().Types())
  {
    CHECK(t.parse != nullptr);
    CHECK(t.configureFabric != nullptr);
    CHECK(t.connector != nullptr);
  }
  CHECK(WorkloadTypes().Find("tcp") == nullptr);
  CHECK(FailureTypes().Find("gray")->Takes("rate_factor"));
  CHECK(TransportTypes().Get("rocev2").Takes("qps_per_connection"));
  CHECK_FALSE(TransportTypes().Get("mrc").Takes("qps_per_connection"));
  CHECK(WorkloadTypes().TypesTaking("iterations") ==
        std::vector<std::string>{ "ring_allreduce", "ring_allgather", "ring_reducescatter", "hd_allreduce", "all_to_all",
                                  "permutation", "train_step" });
}

TEST_CASE("registry: a key of another type is refused naming the types that take it", "[registry]")
{
  nlohmann::json doc = nlohmann::json::parse(R"({
    "name": "t", "topology": {"preset": "multiplane-64"}, "transport": {"type": "mrc"},
    "workloads": [{"type": "hd_allreduce", "bytes": 4096, "pipelined": true, "mode": "pairwise"}]
  })");
  // Checked in the registry's key order: mode before pipelined.
  CHECK_THROWS_WITH(ParseScenario(doc, "t.json"),
                    "t.json: at /workloads/0/mode: key 'mode' is only allowed for all_to_all, not for hd_allreduce");
  doc["workloads"][0].erase("mode");
  CHECK_THROWS_WITH(ParseScenario(doc, "t.json"),
                    "t.json: at /workloads/0/pipelined: key 'pipelined' is only allowed for ring_allreduce, ring_allgather, "
                    "ring_reducescatter, not for "
                    "hd_allreduce");
}

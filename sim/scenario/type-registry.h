// Registries of the scenario entries that have a "type": workloads (sim/workloads/workload-types.h),
// failures (sim/failures/failure-types.h) and transports (sim/network/transport-types.h). Each type is registered
// once, in its kind's registry, with the keys it takes, the function that reads them and what it
// builds; the scenario reader, the runner and the JSON-schema test all ask the registry, so that
// adding a type touches one place. A type may also be registered from outside the library
// (RegisterWorkloadType, RegisterFailureType), its own settings kept in a TypeParams of its own
// (docs/EXTENDING.md).
#ifndef MRCSIM_SIM_SCENARIO_TYPE_REGISTRY_H
#define MRCSIM_SIM_SCENARIO_TYPE_REGISTRY_H

#include "topologies/json-reader.h"

#include "ns3/abort.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mrcsim
{

/// \brief A type's own settings, which no other type shares: its reader makes them from its keys
/// and its builder (a workload's make, a failure's schedule) reads them with ParamsOf. A spec
/// entry holds them as `params`.
struct TypeParams
{
  virtual ~TypeParams() = default;
};

/// \brief The settings of type `type` that its reader left in `params`; the type's defaults (a
/// default-made Params) if there are none, as in a spec built by code. Aborts if they are
/// another type's: that is a programming mistake.
template<typename Params>
const Params&
ParamsOf(const std::shared_ptr<const TypeParams>& params, const std::string& type)
{
  static const Params defaults{};
  if (!params)
  {
    return defaults;
  }
  const auto* p = dynamic_cast<const Params*>(params.get());
  NS_ABORT_MSG_IF(!p, "the spec of a '" << type << "' entry carries settings of another type (TypeParams)");
  return *p;
}

/// \brief The settings in `params` to change, for a spec built by code: a copy of them (the
/// spec may share them with others), or default-made ones if there are none. Aborts if they
/// are another type's.
template<typename Params>
Params&
EditParams(std::shared_ptr<const TypeParams>& params)
{
  auto own = std::make_shared<Params>(ParamsOf<Params>(params, "built by code"));
  params = own;
  return *own;
}

/// \brief How an entry of a type uses a key.
enum class KeyUse
{
  Optional,
  Required,
  AnyOf, ///< at least one of the type's AnyOf keys must be given
};

/// \brief One key of an entry and how it is used.
struct KeyRule
{
  std::string key;
  KeyUse use = KeyUse::Optional;
};

/// \brief What a registry knows of one type whatever its kind: its name, a one-line description
/// and the keys it takes beyond the kind's common ones.
struct TypeKeys
{
  std::string name;
  std::string description;
  std::vector<KeyRule> keys;

  /// \brief Whether the type takes `key` (the kind's common keys not included).
  bool Takes(const std::string& key) const;
};

/// \brief The key-level half of a registry (the same for every kind): the type names, the keys
/// of each, the checks every entry goes through first, and the JSON-schema fragment of the kind.
class KeyTable
{
public:
  /// \param kind what an entry is called in messages ("workload")
  /// \param common the keys every type takes ("type" first)
  /// \param typedKeys every key that only some types take, in the order entries are checked for
  ///   keys of other types (the first such key found is the one reported)
  /// \param types in the order messages list them
  KeyTable(std::string kind,
           std::vector<KeyRule> common,
           std::vector<std::string> typedKeys,
           std::vector<TypeKeys> types);

  const std::string& Kind() const { return m_kind; }
  /// \brief The type names, in registration order.
  std::vector<std::string> Names() const;
  /// \brief Every key an entry of the kind may have: the common ones, then the typed ones.
  std::vector<std::string> AllKeys() const;
  const std::vector<KeyRule>& CommonKeys() const { return m_common; }
  /// \brief The types taking `key`, in registration order.
  std::vector<std::string> TypesTaking(const std::string& key) const;
  /// \brief The keys of one type: the common ones, then its own.
  std::vector<KeyRule> KeysOf(const std::string& type) const;

  /// \brief The first checks of an entry: no key outside AllKeys(), a known "type", no key that
  /// only other types take. Returns the type. Throws SpecError (through `r`).
  std::string ReadType(JsonReader& r) const;

  /// \brief The kind's JSON-schema fragment: {"properties": {"type": {"enum": names}},
  /// "required": common required keys, "allOf": one {"if": type, "then": ...} per type forbidding
  /// the typed keys it does not take (false) and requiring its required keys (AnyOf keys: an
  /// "anyOf" of "required")}.
  nlohmann::json SchemaFragment() const;

protected:
  /// \brief Appends a type (TypeRegistry::Add): its keys that no type took so far become typed
  /// keys, checked after the others. Aborts on a name already registered or a common key.
  void AddKeys(const TypeKeys& type);

private:
  std::string m_kind;
  std::vector<KeyRule> m_common;
  std::vector<std::string> m_typedKeys;
  std::vector<TypeKeys> m_types;
};

/// \brief A kind's registry: KeyTable plus each type's functions (`Type` derives from TypeKeys).
template<typename Type>
class TypeRegistry : public KeyTable
{
public:
  TypeRegistry(std::string kind,
               std::vector<KeyRule> common,
               std::vector<std::string> typedKeys,
               std::vector<Type> types)
    : KeyTable(std::move(kind),
               std::move(common),
               std::move(typedKeys),
               std::vector<TypeKeys>(types.begin(), types.end()))
    , m_types(std::move(types))
  {
  }

  /// \brief Registers one more type, after the built-in ones (messages list it last). Call before
  /// any scenario is read: the registries are not guarded against concurrent use.
  void Add(Type type)
  {
    AddKeys(type);
    m_types.push_back(std::move(type));
  }

  const std::vector<Type>& Types() const { return m_types; }
  /// \brief The type named `name`, or null.
  const Type* Find(const std::string& name) const
  {
    for (const Type& t : m_types)
    {
      if (t.name == name)
      {
        return &t;
      }
    }
    return nullptr;
  }
  /// \brief The type named `name`, which the scenario reader has checked exists.
  const Type& Get(const std::string& name) const
  {
    const Type* t = Find(name);
    NS_ABORT_MSG_IF(!t, "no " << Kind() << " type '" << name << "' is registered");
    return *t;
  }

private:
  std::vector<Type> m_types;
};

} // namespace mrcsim

#endif

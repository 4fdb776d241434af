// Attributes that cost one pointer per object: an ns-3 object that a run makes millions of (a
// queue pair) keeps its attributes in a configuration that the objects configured alike share
// (SharedConfig, copied on the first write to a shared one), as it keeps its trace sources in a
// bundle made at the first connection (trace-bundle.h). For ns-3 they behave as members of the
// object: Config::SetDefault, SetAttribute and GetAttribute work unchanged, through
// MakeSharedConfigAccessor.
#ifndef MRCSIM_MODELS_ENGINE_SHARED_CONFIG_H
#define MRCSIM_MODELS_ENGINE_SHARED_CONFIG_H

#include "models/engine/shared-value.h"

#include "ns3/attribute-accessor-helper.h"
#include "ns3/ptr.h"

namespace ns3
{

/// \brief An object's configuration `Config` (a struct of plain values), shared with the objects
/// copied from it (SharedValue): copying the holder shares the configuration; Mutable() copies it
/// first when it is shared, so a write never changes another object's. Writes happen where
/// attributes are set, at set-up; copies may be made on the partitions' threads at once (a QP's
/// controller is copied from its prototype at the QP's first message).
template<typename Config>
class SharedConfig
{
public:
  SharedConfig() : m_value(SharedValue<Config>::Make(Config{})) {}
  // Copies share; a move copies too (a moved-from holder would hold no configuration).
  SharedConfig(const SharedConfig&) = default;
  SharedConfig& operator=(const SharedConfig&) = default;

  const Config* operator->() const { return m_value.operator->(); }
  const Config& operator*() const { return *m_value; }
  /// \brief This object's own configuration, to write.
  Config& Mutable() { return m_value.Own(); }

private:
  SharedValue<Config> m_value;
};

/// \brief The accessor of an attribute kept in member `member` of the SharedConfig `holder` of
/// the object (as MakeUintegerAccessor and its kin for a plain member; `V` is the attribute's
/// value type, e.g. UintegerValue).
template<typename V, typename T, typename Config, typename U>
Ptr<const AttributeAccessor>
MakeSharedConfigAccessor(SharedConfig<Config> T::*holder, U Config::*member)
{
  class Accessor : public AccessorHelper<T, V>
  {
  public:
    Accessor(SharedConfig<Config> T::*holder, U Config::*member) : m_holder(holder), m_member(member) {}

  private:
    bool DoSet(T* object, const V* v) const override
    {
      typename AccessorTrait<U>::Result tmp;
      if (!v->GetAccessor(tmp))
        return false;
      (object->*m_holder).Mutable().*m_member = tmp;
      return true;
    }
    bool DoGet(const T* object, V* v) const override
    {
      v->Set((*(object->*m_holder)).*m_member);
      return true;
    }
    bool HasGetter() const override { return true; }
    bool HasSetter() const override { return true; }

    SharedConfig<Config> T::*m_holder;
    U Config::*m_member;
  };
  return Ptr<const AttributeAccessor>(new Accessor(holder, member), false);
}

} // namespace ns3

#endif

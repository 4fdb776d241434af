// What keeps an ns-3 object that a run makes millions of (a queue pair) small: its attributes live
// in a configuration that the objects configured alike share (SharedConfig, copied on the first
// write to a shared one), and its trace sources in a block made at the first connection
// (LazyTraces). For ns-3 both behave as members of the object: Config::SetDefault, SetAttribute,
// GetAttribute and TraceConnect work unchanged, through the accessors below.
#ifndef MRCSIM_MODELS_ENGINE_SHARED_CONFIG_H
#define MRCSIM_MODELS_ENGINE_SHARED_CONFIG_H

#include "ns3/attribute-accessor-helper.h"
#include "ns3/ptr.h"
#include "ns3/simple-ref-count.h"
#include "ns3/trace-source-accessor.h"

#include <memory>
#include <string>

namespace ns3
{

/// \brief An object's configuration `Config` (a SimpleRefCount<Config> of plain values), shared
/// with the objects copied from it. Copying the holder shares the configuration; Mutable()
/// copies it first when it is shared, so a write never changes another object's. Objects made,
/// copied and written on one thread (a run's set-up).
template<typename Config>
class SharedConfig
{
public:
  SharedConfig() : m_config(Create<Config>()) {}
  const Config* operator->() const { return PeekPointer(m_config); }
  const Config& operator*() const { return *m_config; }
  /// \brief This object's own configuration, to write.
  Config& Mutable()
  {
    if (m_config->GetReferenceCount() > 1)
      m_config = Create<Config>(*m_config);
    return *m_config;
  }

private:
  Ptr<Config> m_config;
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

/// \brief An object's trace sources `Traces` (a struct of TracedCallbacks), made at the first
/// connection: an object nobody traces holds a null pointer instead of the empty sources.
/// A copied object has no connections (its own block comes with its first).
template<typename Traces>
class LazyTraces
{
public:
  LazyTraces() = default;
  LazyTraces(const LazyTraces&) {}
  LazyTraces& operator=(const LazyTraces&) = delete;
  /// \brief The sources, or null when nothing was ever connected: fire as
  /// `if (m_traces) m_traces->source(...)`.
  Traces* operator->() const { return m_traces.get(); }
  explicit operator bool() const { return m_traces != nullptr; }
  /// \brief The sources, made if need be (what a connection uses).
  Traces& Make()
  {
    if (!m_traces)
      m_traces = std::make_unique<Traces>();
    return *m_traces;
  }

private:
  std::unique_ptr<Traces> m_traces;
};

/// \brief The accessor of trace source `source` kept in the LazyTraces `holder` of the object
/// (as MakeTraceSourceAccessor for a plain member).
template<typename T, typename Traces, typename SOURCE>
Ptr<const TraceSourceAccessor>
MakeLazyTraceSourceAccessor(LazyTraces<Traces> T::*holder, SOURCE Traces::*source)
{
  struct Accessor : public TraceSourceAccessor
  {
    Accessor(LazyTraces<Traces> T::*holder, SOURCE Traces::*source) : m_holder(holder), m_source(source) {}
    SOURCE* Source(ObjectBase* obj) const
    {
      T* p = dynamic_cast<T*>(obj);
      return p ? &((p->*m_holder).Make().*m_source) : nullptr;
    }
    bool ConnectWithoutContext(ObjectBase* obj, const CallbackBase& cb) const override
    {
      SOURCE* s = Source(obj);
      if (s)
        s->ConnectWithoutContext(cb);
      return s != nullptr;
    }
    bool Connect(ObjectBase* obj, std::string context, const CallbackBase& cb) const override
    {
      SOURCE* s = Source(obj);
      if (s)
        s->Connect(cb, context);
      return s != nullptr;
    }
    bool DisconnectWithoutContext(ObjectBase* obj, const CallbackBase& cb) const override
    {
      SOURCE* s = Source(obj);
      if (s)
        s->DisconnectWithoutContext(cb);
      return s != nullptr;
    }
    bool Disconnect(ObjectBase* obj, std::string context, const CallbackBase& cb) const override
    {
      SOURCE* s = Source(obj);
      if (s)
        s->Disconnect(cb, context);
      return s != nullptr;
    }

    LazyTraces<Traces> T::*m_holder;
    SOURCE Traces::*m_source;
  };
  return Ptr<const TraceSourceAccessor>(new Accessor(holder, source), false);
}

} // namespace ns3

#endif

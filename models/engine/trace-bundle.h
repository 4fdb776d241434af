// Trace sources that cost one pointer per object until something connects. Millions of ports
// each carry several trace sources that are almost never connected; as plain TracedCallback
// members (a std::list each) they would cost 24 bytes apiece. An object keeps its trace sources
// in a struct allocated on first connection, and registers each with MakeBundleTraceAccessor.
#ifndef MRCSIM_MODELS_TRACE_BUNDLE_H
#define MRCSIM_MODELS_TRACE_BUNDLE_H

#include "ns3/object-base.h"
#include "ns3/trace-source-accessor.h"

#include <memory>
#include <string>
#include <type_traits>

namespace ns3
{

/// \brief Accessor for TracedCallback `source` inside the bundle of class T that `bundle` gives:
/// a member std::unique_ptr<Bundle> (made here at the first connection), or a member function
/// that makes the bundle if need be and returns it (a bundle of a derived type, shared with a
/// base class's sources: RdmaQueuePair::TraceBundle).
template<typename T, typename Bundle, typename Source, typename Holder>
Ptr<const TraceSourceAccessor>
MakeBundleTraceAccessor(Holder T::*bundle, Source Bundle::*source)
{
  struct Accessor : public TraceSourceAccessor
  {
    Accessor(Holder T::*b, Source Bundle::*s) : m_bundle(b), m_source(s) {}

    Source* Get(ObjectBase* obj) const
    {
      T* p = dynamic_cast<T*>(obj);
      if (!p)
      {
        return nullptr;
      }
      if constexpr (std::is_member_function_pointer_v<Holder T::*>)
      {
        return &((p->*m_bundle)().*m_source);
      }
      else
      {
        std::unique_ptr<Bundle>& b = p->*m_bundle;
        if (!b)
        {
          b = std::make_unique<Bundle>();
        }
        return &((*b).*m_source);
      }
    }

    bool ConnectWithoutContext(ObjectBase* obj, const CallbackBase& cb) const override
    {
      Source* s = Get(obj);
      if (s)
        s->ConnectWithoutContext(cb);
      return s != nullptr;
    }

    bool Connect(ObjectBase* obj, std::string context, const CallbackBase& cb) const override
    {
      Source* s = Get(obj);
      if (s)
        s->Connect(cb, context);
      return s != nullptr;
    }

    bool DisconnectWithoutContext(ObjectBase* obj, const CallbackBase& cb) const override
    {
      Source* s = Get(obj);
      if (s)
        s->DisconnectWithoutContext(cb);
      return s != nullptr;
    }

    bool Disconnect(ObjectBase* obj, std::string context, const CallbackBase& cb) const override
    {
      Source* s = Get(obj);
      if (s)
        s->Disconnect(cb, context);
      return s != nullptr;
    }

    Holder T::*m_bundle;
    Source Bundle::*m_source;
  };

  return Ptr<const TraceSourceAccessor>(new Accessor(bundle, source), false);
}

} // namespace ns3

#endif

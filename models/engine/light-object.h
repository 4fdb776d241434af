// A base for the objects a run makes one of per queue pair (the QP itself, an MRC QP's congestion
// controller and EV selector, a RoCEv2 QP's DCQCN rate control), millions in a large run.
// ns3::Object would give each an aggregation list (a separate allocation) and fields for
// aggregation, disposal and initialisation that such an object never uses: about 50 bytes each. A LightObject keeps
// what they do use: a type with attributes (Config::SetDefault, SetAttribute and
// GetAttribute work as for an Object), trace sources, and a reference count for Ptr. It is made
// by LightObject<T>::Build (from a TypeId, as ObjectFactory makes an Object), CreateLight (as
// CreateObject) or its own copy constructor, and is never aggregated.
#ifndef MRCSIM_MODELS_ENGINE_LIGHT_OBJECT_H
#define MRCSIM_MODELS_ENGINE_LIGHT_OBJECT_H

#include "ns3/attribute-construction-list.h"
#include "ns3/object-base.h"
#include "ns3/ptr.h"
#include "ns3/simple-ref-count.h"
#include "ns3/type-id.h"

namespace ns3
{

/// \brief Attributes, trace sources and a reference count, without ns3::Object's aggregation
/// (see the file comment). `Base` is the interface class (e.g. MrcCongestionControl),
/// which derives from LightObject<Base>; its TypeId's parent is ObjectBase.
template<typename Base>
class LightObject : public SimpleRefCount<Base, ObjectBase>
{
public:
  /// \brief The type it was built as (Build), or copied from.
  TypeId GetInstanceTypeId() const override { return m_tid; }

  /// \brief A new object of `type` with its attributes at their defaults (as ObjectFactory
  /// makes an Object), or null when `type` has no constructor or is not a `Base`.
  static Ptr<Base> Build(TypeId type)
  {
    if (!type.HasConstructor())
      return nullptr;
    ObjectBase* made = type.GetConstructor()();
    Base* base = dynamic_cast<Base*>(made);
    if (!base)
    {
      delete made;
      return nullptr;
    }
    Ptr<Base> object(base, false);
    object->Configure(type);
    return object;
  }

  /// \brief A new T (a subclass of `Base`) with its attributes at their defaults (CreateLight).
  template<typename T>
  static Ptr<T> Create()
  {
    Ptr<T> object(new T(), false);
    object->Configure(T::GetTypeId());
    return object;
  }

protected:
  LightObject() = default;
  LightObject(const LightObject& other) : SimpleRefCount<Base, ObjectBase>(other), m_tid(other.m_tid) {}
  LightObject& operator=(const LightObject&) = delete;

private:
  void Configure(TypeId type)
  {
    m_tid = type;
    this->ConstructSelf(AttributeConstructionList());
  }

  TypeId m_tid; ///< two bytes, beside the reference count
};

/// \brief A new T (a LightObject) with its attributes at their defaults: what CreateObject is to
/// an Object.
template<typename T>
Ptr<T>
CreateLight()
{
  return T::template Create<T>();
}

} // namespace ns3

#endif

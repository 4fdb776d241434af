// A trace source that costs one pointer until something connects to it. Millions of ports each
// carry several trace sources that are almost never connected; ns-3's TracedCallback (a std::list)
// would cost 24 bytes each. Works with MakeTraceSourceAccessor like TracedCallback.
#ifndef MRCSIM_MODELS_LAZY_TRACED_CALLBACK_H
#define MRCSIM_MODELS_LAZY_TRACED_CALLBACK_H

#include "ns3/traced-callback.h"

#include <memory>
#include <string>

namespace ns3
{

/// \brief TracedCallback allocated on first connection.
template <typename... Ts>
class LazyTracedCallback
{
public:
  void ConnectWithoutContext(const CallbackBase& callback) { Impl().ConnectWithoutContext(callback); }
  void Connect(const CallbackBase& callback, std::string path) { Impl().Connect(callback, path); }
  void DisconnectWithoutContext(const CallbackBase& callback)
  {
    if (m_impl)
    {
      m_impl->DisconnectWithoutContext(callback);
    }
  }
  void Disconnect(const CallbackBase& callback, std::string path)
  {
    if (m_impl)
    {
      m_impl->Disconnect(callback, path);
    }
  }
  bool IsEmpty() const { return !m_impl || m_impl->IsEmpty(); }

  void operator()(Ts... args) const
  {
    if (m_impl)
    {
      (*m_impl)(args...);
    }
  }

private:
  TracedCallback<Ts...>& Impl()
  {
    if (!m_impl)
    {
      m_impl = std::make_unique<TracedCallback<Ts...>>();
    }
    return *m_impl;
  }

  std::unique_ptr<TracedCallback<Ts...>> m_impl;
};

} // namespace ns3

#endif

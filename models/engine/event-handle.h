// What an object keeps of an event it may cancel, in 8 bytes: the event itself. ns3::EventId
// takes 24 (the event, its time, context and number), which the simulator needs to say whether
// the event is still pending. An object whose handler clears the handle as it starts knows that
// from the handle alone (an MRC QP's timers, millions in a large run); cancelling an event that
// has already run, or is running, changes nothing.
#ifndef MRCSIM_MODELS_ENGINE_EVENT_HANDLE_H
#define MRCSIM_MODELS_ENGINE_EVENT_HANDLE_H

#include "ns3/event-id.h"
#include "ns3/event-impl.h"
#include "ns3/ptr.h"

namespace ns3
{

/// \brief An event that may be cancelled (see the file comment).
class EventHandle
{
public:
  EventHandle() = default;
  /// \brief Holds the event `id` names (as assigning an EventId would).
  EventHandle& operator=(const EventId& id)
  {
    m_event = id.PeekEventImpl();
    return *this;
  }
  /// \brief Cancels the event if it has not run, and lets it go.
  void Cancel()
  {
    if (m_event)
    {
      m_event->Cancel();
      m_event = nullptr;
    }
  }
  /// \brief Lets the event go without cancelling it. The event's handler calls this first: the
  /// event has run, and its memory is freed once the simulator lets it go too.
  void Clear() { m_event = nullptr; }
  /// \brief Whether an event is held: set, and neither cancelled nor cleared. With the handler
  /// clearing it first, that is whether the event is pending (EventId::IsRunning, without asking
  /// the simulator).
  bool IsPending() const { return m_event != nullptr; }

private:
  Ptr<EventImpl> m_event;
};

} // namespace ns3

#endif

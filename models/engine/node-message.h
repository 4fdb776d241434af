// Typed messages between a model's nodes, or from a node to the global events, whatever the
// partitions and ranks: a model declares the message (a trivially copyable struct, plus an
// optional byte tail for what has no fixed size), the function that receives it, and sends it;
// the engine carries it as bytes between partitions and processes (FabricParallelSimulatorImpl's
// handlers) and makes the event on the receiving side. No model writes or reads those bytes, or
// knows how many partitions or ranks there are.
#ifndef MRCSIM_MODELS_ENGINE_NODE_MESSAGE_H
#define MRCSIM_MODELS_ENGINE_NODE_MESSAGE_H

#include "models/engine/fabric-parallel-simulator.h"

#include "ns3/abort.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ns3
{

namespace node_message
{

/// \brief `message` then `tail`, as one buffer.
template<typename Message>
std::vector<uint8_t>
Pack(const Message& message, std::string_view tail)
{
  static_assert(std::is_trivially_copyable_v<Message>, "a node message crosses processes as its bytes");
  std::vector<uint8_t> bytes(sizeof(Message) + tail.size());
  std::memcpy(bytes.data(), &message, sizeof(Message));
  if (!tail.empty()) // an empty view's data() may be null, which memcpy may not be given
  {
    std::memcpy(bytes.data() + sizeof(Message), tail.data(), tail.size());
  }
  return bytes;
}

/// \brief The message at the front of `bytes`, and the tail after it.
template<typename Message>
Message
Unpack(const std::vector<uint8_t>& bytes, std::string_view& tail)
{
  NS_ABORT_MSG_IF(bytes.size() < sizeof(Message),
                  "a node message of " << bytes.size() << " bytes, expected at least " << sizeof(Message));
  Message message;
  std::memcpy(&message, bytes.data(), sizeof(Message));
  tail = std::string_view(reinterpret_cast<const char*>(bytes.data()) + sizeof(Message), bytes.size() - sizeof(Message));
  return message;
}

/// \brief The handler kind, registered at load time, that unpacks a `Message` and runs
/// `Receive(context, message, tail)`: what NodeMessage and BarrierMessage send by.
template<typename Message, void (*Receive)(uint32_t context, const Message& message, std::string_view tail)>
class LoadTimeKind
{
public:
  static uint32_t Kind() { return s_kind; }

private:
  static void Dispatch(void*, uint32_t context, const std::vector<uint8_t>& bytes)
  {
    std::string_view tail;
    const Message message = Unpack<Message>(bytes, tail);
    Receive(context, message, tail);
  }

  static inline const uint32_t s_kind = FabricParallelSimulatorImpl::AddHandlerAtLoad(&Dispatch);
};

} // namespace node_message

/// \brief A message of type `Message` to node events: `Receive(context, message, tail)` runs as
/// an event of node `context` (the receiver's partition and rank). One kind per message type and
/// receiver, registered at load time so that every rank numbers it alike.
template<typename Message, void (*Receive)(uint32_t context, const Message& message, std::string_view tail)>
class NodeMessage
{
public:
  /// \brief `message` (and `tail`) to node `node`, `delay` from now: at least a lookahead when the
  /// node is in another partition (FabricParallelSimulatorImpl::ScheduleRemote).
  static void Send(uint32_t node, const Time& delay, const Message& message, std::string_view tail = {})
  {
    FabricParallelSimulatorImpl::ScheduleRemote(node_message::LoadTimeKind<Message, Receive>::Kind(),
                                                node,
                                                delay,
                                                node_message::Pack(message, tail));
  }
};

/// \brief A message of type `Message` handed over at a window's barrier: from a barrier task (a
/// link's hand-over of the frames sent in the window), `Receive(context, message, tail)` runs at
/// this window's barrier on the rank of node `context`, at once if that is this rank
/// (FabricParallelSimulatorImpl::SendToRank). Messages from one rank arrive in the order sent.
template<typename Message, void (*Receive)(uint32_t context, const Message& message, std::string_view tail)>
class BarrierMessage
{
public:
  static void Send(uint32_t node, const Message& message, std::string_view tail = {})
  {
    FabricParallelSimulatorImpl::SendToRank(node_message::LoadTimeKind<Message, Receive>::Kind(),
                                            node,
                                            node_message::Pack(message, tail));
  }
};

/// \brief A message of type `Message` from a node to the global events, received by an object
/// made at set-up (a service of the run): `Receive(object, message, tail)` runs as a global event
/// on every rank (FabricParallelSimulatorImpl::ScheduleEverywhere). Every rank makes the kind at
/// the same point of its set-up.
template<typename Object, typename Message, void (Object::*Receive)(const Message& message, std::string_view tail)>
class GlobalMessage
{
public:
  /// \brief Registers the kind on the run's simulator, delivering to `object`.
  explicit GlobalMessage(Object* object)
    : m_kind(FabricParallelSimulatorImpl::Get()->AddHandler(&Dispatch, object))
  {
  }

  /// \brief `message` (and `tail`) from node `node`'s event (or from set-up or a global event
  /// touching that node), `delay` from now.
  void Send(uint32_t node, const Time& delay, const Message& message, std::string_view tail = {}) const
  {
    FabricParallelSimulatorImpl::ScheduleEverywhere(node, m_kind, delay, node_message::Pack(message, tail));
  }

private:
  static void Dispatch(void* object, uint32_t, const std::vector<uint8_t>& bytes)
  {
    std::string_view tail;
    const Message message = node_message::Unpack<Message>(bytes, tail);
    (static_cast<Object*>(object)->*Receive)(message, tail);
  }

  uint32_t m_kind;
};

} // namespace ns3

#endif

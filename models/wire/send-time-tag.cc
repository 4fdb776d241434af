#include "models/wire/send-time-tag.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SendTimeTag");

NS_OBJECT_ENSURE_REGISTERED(SendTimeTag);

TypeId
SendTimeTag::GetTypeId()
{
  static TypeId tid = TypeId("ns3::SendTimeTag").SetParent<Tag>().AddConstructor<SendTimeTag>();
  return tid;
}

} // namespace ns3

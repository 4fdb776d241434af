#include "models/wire/send-time-tag.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(SendTimeTag);

TypeId
SendTimeTag::GetTypeId()
{
  static TypeId tid = TypeId("ns3::SendTimeTag").SetParent<Tag>().AddConstructor<SendTimeTag>();
  return tid;
}

} // namespace ns3

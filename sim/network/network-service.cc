#include "sim/network/network-service.h"

#include "sim/network/transport-types.h"

#include "models/engine/fabric-parallel-simulator.h"
#include "models/engine/splitmix.h"
#include "models/rdma/rdma-connect.h"
#include "models/rdma/rdma-nic.h"

#include "ns3/callback.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <chrono>
#include <memory>

namespace mrcsim
{

using ns3::Ptr;
using ns3::Time;

void
NetworkService::RecvComplete(ns3::RdmaQueuePair& qp, uint64_t, uint64_t, Time)
{
  Notify(qp, kRecvNotice, std::string());
}

void
NetworkService::Failed(ns3::RdmaQueuePair& qp, const std::string& cause)
{
  Notify(qp, kErrorNotice, "QP " + std::to_string(qp.GetQpn()) + ": " + cause);
}

uint32_t
NetworkService::SideOf(const ns3::RdmaQueuePair& qp)
{
  const uint32_t gpu = qp.GetNic()->GetGpu();
  const uint32_t peer = qp.GetRemoteGpu();
  if (const std::optional<Connection> c = m_connections.Find(std::min(gpu, peer), std::max(gpu, peer)))
  {
    for (uint32_t s = c->first; s < c->first + 2 * c->pairs; ++s)
      if (ns3::PeekPointer(m_sides[s].qp) == &qp)
        return s;
  }
  throw std::logic_error("NetworkService: QP " + std::to_string(qp.GetQpn()) + " of GPU " + std::to_string(gpu) +
                         " is none of its connections'");
}

NetworkService::NetworkService(ns3::FabricNetwork& net, const TransportSpec& transport)
  : m_net(net)
  , m_transport(transport)
{
  ns3::FabricParallelSimulatorImpl* sim = ns3::FabricParallelSimulatorImpl::Get();
  if (!sim)
    throw std::runtime_error("NetworkService: needs the simulator ns3::FabricParallelSimulatorImpl");
  m_notices.emplace(this);
}

void
NetworkService::Notify(ns3::RdmaQueuePair& qp, uint32_t kind, const std::string& cause)
{
  // The workloads' state is shared by all GPUs: the host's reaction runs as a global event (alone,
  // between a parallel run's windows; on every rank of a run across processes), which is why a
  // parallel run needs a positive CompletionLatency of at least its lookahead. With none (one
  // partition), a receive completes at once; an error stays an event of its own, as the QP fails
  // in the middle of its own work.
  const uint32_t side = SideOf(qp);
  const Time latency = qp.GetNic()->CompletionLatency();
  if (kind == kRecvNotice && !latency.IsStrictlyPositive())
  {
    OnRecvComplete(PeerOf(side).sent);
    return;
  }
  m_notices->Send(qp.NodeId(), latency, Notice{ kind, side }, cause);
}

void
NetworkService::OnNotice(const Notice& notice, std::string_view cause)
{
  if (notice.index >= m_sides.size())
    throw std::logic_error("NetworkService: a notice for QP side " + std::to_string(notice.index) + " of " +
                           std::to_string(m_sides.size()));
  if (notice.kind == kRecvNotice)
    OnRecvComplete(PeerOf(notice.index).sent);
  else
    OnQpError(m_sides[notice.index], std::string(cause));
}

NetworkService::~NetworkService()
{
  for (Side& side : m_sides)
    if (side.qp)
      side.qp->SetListener(nullptr); // a QP may outlive the service (when its NIC still holds it)
}

void
NetworkService::Send(uint32_t src, uint32_t dst, uint64_t bytes, std::function<void()> done)
{
  if (m_scaleUp && m_scaleUp->SameDomain(src, dst))
  {
    // Never a NIC: no connection, no QP, not in the fair-share reference (its own crossbar's
    // max-min sharing is the domain's model).
    ++m_outstanding;
    m_scaleUp->Transfer(src,
                        dst,
                        bytes,
                        [this, done = std::move(done)]
                        {
                          --m_outstanding;
                          done();
                          Progressed();
                        });
    return;
  }
  ++m_fabricMessages;
  m_fabricBytes += bytes;
  const Connection c = Get(src, dst);
  const Time post = ns3::GetOrCreateNic(m_net, src)->PostLatency();
  ++m_outstanding; // until the receiver's host learns of the last part (Notify, Finish)
  if (m_fair)
  {
    // Here, in the workload's event, which every rank runs: the reference is the same on all.
    std::vector<std::pair<FairReference::Route, uint64_t>> parts;
    for (const auto& [side, partBytes] : Writes(c, src, bytes))
      parts.emplace_back(side->route, partBytes);
    m_fair->AddMessage(src, dst, bytes, ns3::Simulator::Now(), parts);
  }
  if (post.IsStrictlyPositive())
  {
    Defer(c, src, bytes, std::move(done), post);
    return;
  }
  Post(c, src, bytes, std::move(done));
}

void
NetworkService::Defer(Connection c, uint32_t src, uint64_t bytes, std::function<void()> done, Time latency)
{
  using Sim = ns3::FabricParallelSimulatorImpl;
  const Time due = ns3::Simulator::Now() + latency;
  if (ns3::Simulator::GetContext() != ns3::Simulator::NO_CONTEXT)
  {
    // A node's event (a completion with no CompletionLatency): its events are numbered apart.
    ns3::Simulator::Schedule(latency,
                             [this, c, src, bytes, done = std::move(done)]() mutable
                             { Post(c, src, bytes, std::move(done)); });
    return;
  }
  if (!m_openBatch || m_openBatch->due != due || m_openBatch->stamp != Sim::GlobalEventsScheduled())
  {
    m_batches.emplace_back();
    const auto batch = std::prev(m_batches.end());
    batch->due = due;
    ns3::Simulator::Schedule(latency, [this, batch] { RunBatch(batch); });
    batch->stamp = Sim::GlobalEventsScheduled();
    m_openBatch = &*batch;
  }
  m_openBatch->posts.push_back(PendingPost{ c, src, bytes, std::move(done) });
}

void
NetworkService::RunBatch(std::list<PostBatch>::iterator batch)
{
  if (m_openBatch == &*batch)
    m_openBatch = nullptr;
  std::deque<PendingPost> posts = std::move(batch->posts);
  m_batches.erase(batch);
  for (PendingPost& p : posts)
    Post(p.connection, p.src, p.bytes, std::move(p.done));
}

std::vector<std::pair<NetworkService::Side*, uint64_t>>
NetworkService::Writes(Connection c, uint32_t src, uint64_t bytes)
{
  // The sender's QPs: the even sides of the connection's pairs for its lower GPU, else the odd.
  const uint32_t own = src == c.a ? 0 : 1;
  // RoCEv2 with several QPs per connection: the message is split evenly over them (as NCCL
  // splits over channels) and completes with its last part; a part above the largest RDMA write
  // is posted as several writes.
  const uint64_t qps = std::min<uint64_t>(c.pairs, bytes);
  std::vector<std::pair<Side*, uint64_t>> writes;
  for (uint64_t i = 0; i < qps; ++i)
  {
    Side* sender = &m_sides[c.first + 2 * i + own];
    uint64_t part = bytes / qps + (i < bytes % qps ? 1 : 0);
    for (; part > kMaxRdmaWriteBytes; part -= kMaxRdmaWriteBytes)
      writes.emplace_back(sender, kMaxRdmaWriteBytes);
    writes.emplace_back(sender, part);
  }
  return writes;
}

void
NetworkService::Post(Connection c, uint32_t src, uint64_t bytes, std::function<void()> done)
{
  const std::vector<std::pair<Side*, uint64_t>> writes = Writes(c, src, bytes);
  std::vector<Pending> pending(writes.size());
  if (writes.size() == 1)
    pending[0] = std::move(done);
  else
  {
    const auto whole = m_wholes.insert(m_wholes.end(), Whole{ writes.size(), false, std::move(done) });
    for (Pending& part : pending)
      part = PartOf{ whole };
  }
  for (std::size_t i = 0; i < writes.size(); ++i)
  {
    Side* side = writes[i].first;
    if (side->failed)
    {
      Finish(std::move(pending[i]), false); // a QP in error accepts no work: the part fails at once
      continue;
    }
    side->sent.push_back(std::move(pending[i]));
    if (side->qp) // else another MPI rank runs it (and posts the write there)
      side->qp->PostWrite(writes[i].second);
  }
}

void
NetworkService::Finish(Pending part, bool ok)
{
  const PartOf* of = part.target<PartOf>();
  if (!of)
  {
    if (ok)
      Complete(part);
    else
      Fail();
    return;
  }
  const auto at = of->whole;
  Whole& whole = *at;
  --whole.left;
  if (!whole.failed)
  {
    if (!ok)
    {
      whole.failed = true;
      Fail();
    }
    else if (whole.left == 0)
      Complete(whole.done);
  }
  if (whole.left == 0)
    m_wholes.erase(at);
}

void
NetworkService::Complete(const std::function<void()>& done)
{
  --m_outstanding;
  done();
  Progressed();
}

void
NetworkService::Fail()
{
  --m_outstanding;
  ++m_failedMessages;
}

void
NetworkService::OnRecvComplete(PendingQueue& queue)
{
  // A QP in error has failed what it had sent; its peer may still complete one of those (the
  // data arrived, the acknowledgements did not): that message stays failed.
  if (queue.empty())
    return;
  Pending part = queue.take_front();
  if (queue.empty())
    queue.clear(); // idle: the ring gives its slots back (before the completion posts again)
  Finish(std::move(part), true);
}

void
NetworkService::OnQpError(Side& side, const std::string& cause)
{
  m_errors.push_back(cause);
  if (side.failed)
    return;
  side.failed = true;
  // As a QP in error flushes its work requests with error completions: every part it was
  // sending fails now.
  PendingQueue flushed = std::move(side.sent);
  while (!flushed.empty())
    Finish(flushed.take_front(), false);
}

NetworkService::Connection
NetworkService::Get(uint32_t src, uint32_t dst)
{
  const uint32_t b = std::max(src, dst);
  if (const std::optional<Connection> c = m_connections.Find(std::min(src, dst), b))
  {
    return *c;
  }
  const auto start = std::chrono::steady_clock::now();
  Connection c;
  c.a = std::min(src, dst);
  for (ConnectionObserver* o : m_observers)
    o->OnConnection(c.a, b);
  if (!m_connect)
    m_connect = TransportTypes().Get(m_transport.type).connector(m_net, m_transport);
  const std::vector<QpPair> pairs = m_connect(c.a, b);
  c.first = static_cast<uint32_t>(m_sides.size());
  c.pairs = static_cast<uint32_t>(pairs.size());
  m_connections.Add(c, b);
  for (const QpPair& qp : pairs)
    Add(qp.first, qp.second);
  m_connectSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

std::size_t
NetworkService::ConnectionTable::Home(uint64_t key) const
{
  uint64_t state = key;
  return ns3::SplitMix64(state) & (m_slots.size() - 1);
}

std::optional<NetworkService::Connection>
NetworkService::ConnectionTable::Find(uint32_t a, uint32_t b) const
{
  if (m_slots.empty())
    return std::nullopt;
  const uint64_t key = Key(a, b);
  for (std::size_t i = Home(key);; i = (i + 1) & (m_slots.size() - 1))
  {
    const Slot& slot = m_slots[i];
    if (slot.key == key)
      return Connection{ a, slot.first, slot.pairs };
    if (slot.key == kEmpty)
      return std::nullopt;
  }
}

void
NetworkService::ConnectionTable::Add(const Connection& c, uint32_t b)
{
  if (4 * (m_size + 1) > 3 * m_slots.size())
  {
    std::vector<Slot> old(std::max<std::size_t>(16, 2 * m_slots.size()));
    old.swap(m_slots);
    m_size = 0;
    for (const Slot& slot : old)
      if (slot.key != kEmpty)
        Add(Connection{ uint32_t(slot.key >> 32), slot.first, slot.pairs }, uint32_t(slot.key));
  }
  const uint64_t key = Key(c.a, b);
  std::size_t i = Home(key);
  while (m_slots[i].key != kEmpty)
    i = (i + 1) & (m_slots.size() - 1);
  m_slots[i] = Slot{ key, c.first, c.pairs };
  ++m_size;
}

void
NetworkService::Add(Ptr<ns3::RdmaQueuePair> x, Ptr<ns3::RdmaQueuePair> y)
{
  Side* sx = &m_sides.emplace_back();
  Side* sy = &m_sides.emplace_back();
  for (auto [side, qp] : { std::make_pair(sx, x), std::make_pair(sy, y) })
  {
    // This QP's GPU is the one its peer QP sends to.
    const uint32_t gpu = (qp == x ? y : x)->GetRemoteGpu();
    const Ptr<ns3::RdmaNic> nic = ns3::GetOrCreateNic(m_net, gpu);
    side->route = FairReference::RouteOf(*qp);
    // A QP its NIC does not hold is another MPI rank's (ConnectQueuePairs adds a QP to its NIC on
    // its GPU's rank only): not kept here; its rank runs it and tells every rank of its
    // completions and errors.
    if (nic->GetQueuePair(qp->GetQpn()) != qp)
    {
      if (ns3::FabricParallelSimulatorImpl::RunsHere(nic->GetNodeId()))
        throw std::logic_error("transport '" + m_transport.type + "': its connector made a QP of GPU " +
                               std::to_string(gpu) + " that its NIC does not hold (connect QPs with "
                               "ConnectQueuePairs)");
      continue;
    }
    side->qp = qp; // its NIC holds it too
    qp->SetListener(this);
    ++m_qpCount;
    for (ConnectionObserver* o : m_observers)
      o->OnQp(qp);
  }
}

} // namespace mrcsim

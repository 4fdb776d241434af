// The workloads' MessageService on one transport's ns-3 network: QPs are connected on a pair's
// first message, messages complete when their receiver holds them, and messages on a QP that
// went into error fail (counted) instead of waiting forever. Completions and QP errors reach the
// workloads as global events (FabricParallelSimulatorImpl): in a partitioned run the workloads'
// shared state is touched by one thread, between windows.
#ifndef MRCSIM_SIM_NETWORK_NETWORK_SERVICE_H
#define MRCSIM_SIM_NETWORK_NETWORK_SERVICE_H

#include "sim/network/scale-up-fabric.h"
#include "sim/network/transport-types.h"
#include "sim/references/fair-reference.h"
#include "sim/scenario/scenario-spec.h"
#include "sim/workloads/workload.h"

#include "models/engine/node-message.h"
#include "models/engine/ring-queue.h"
#include "models/fabric/fabric-network.h"
#include "models/rdma/rdma-queue-pair.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <optional>
#include <string>
#include <vector>

namespace mrcsim
{

/// \brief The largest RDMA write the service posts: 2^31 bytes, InfiniBand's largest message
/// (IBTA Vol. 1, 9.4: a message is at most 2^31 bytes; the RETH's DMA length is 32 bits). A
/// larger workload message is posted as several writes and completes with the last of them, as a
/// communication library splits a large buffer.
constexpr uint64_t kMaxRdmaWriteBytes = uint64_t(1) << 31;

/// \brief Told of the connections and QPs a NetworkService makes, as it makes them (the run's
/// metric collectors subscribe to their trace sources; sim/run/run-metrics.h).
class ConnectionObserver
{
public:
  virtual ~ConnectionObserver() = default;
  /// \brief GPUs a < b are connected for the first time; their QPs are made next.
  virtual void OnConnection(uint32_t a, uint32_t b) {}
  /// \brief A QP of this process was made (each of a connection's that this process runs, after
  /// OnConnection: in a run across MPI ranks, those of its own GPUs).
  virtual void OnQp(ns3::Ptr<ns3::RdmaQueuePair> qp) {}
};

/// \brief Workloads' messages on the QPs of one transport.
class NetworkService : public MessageService, private ns3::RdmaQpListener
{
public:
  /// \param transport its type connects the GPUs (sim/network/transport-types.h)
  NetworkService(ns3::FabricNetwork& net, const TransportSpec& transport);
  ~NetworkService() override;

  /// The NICs' host latencies (RdmaNic PostLatency and CompletionLatency) bracket the message:
  /// its QPs have it PostLatency after the post, and the receiver sees it CompletionLatency after
  /// its last byte arrived.
  void Send(uint32_t src, uint32_t dst, uint64_t bytes, std::function<void()> done) override;

  /// \brief Runs after every completed message and on Progressed() (the runner checks whether
  /// all work is done).
  void SetOnProgress(std::function<void()> callback) { m_onProgress = std::move(callback); }
  /// \brief Tells `observer` (which must outlive the service's connections) of every connection
  /// and QP made from now on.
  void AddObserver(ConnectionObserver* observer) { m_observers.push_back(observer); }
  void Progressed() override
  {
    if (m_onProgress)
      m_onProgress();
  }

  /// \brief Carries every message between two GPUs of one scale-up domain on `scaleUp` (which
  /// must outlive the service's messages) instead of through their NICs: no QP, no packet.
  void SetScaleUp(ScaleUpFabric* scaleUp) { m_scaleUp = scaleUp; }
  /// \brief Messages posted through the NICs (each leg of a relayed message counts) and their
  /// bytes; those on the scale-up domains are ScaleUpFabric's.
  uint64_t FabricMessages() const { return m_fabricMessages; }
  uint64_t FabricBytes() const { return m_fabricBytes; }
  /// \brief Connections made (a pair of GPUs, both directions, whatever its QPs), and the wall
  /// time spent making them (the transport's connect and the observers'), for the run's
  /// wall-clock figures.
  std::size_t Connections() const { return m_connections.Size(); }
  double ConnectSeconds() const { return m_connectSeconds; }

  /// \brief Tells `fair` (which must outlive the service's messages) of every message posted
  /// from now on, with the QPs that carry its parts (sim/references/fair-reference.h).
  void SetFairReference(FairReference* fair) { m_fair = fair; }

  /// \brief Calls `f(qp)` for each QP this process runs, in the order they were made: every QP,
  /// but in a run across MPI ranks only those of the rank's own GPUs (a connection's other QP
  /// lives on its GPU's rank alone). The sides hold them; the service keeps no list of its own
  /// (8.5 M QPs in the largest runs).
  template <typename F>
  void ForEachQp(F f) const
  {
    for (const Side& side : m_sides)
      if (side.qp)
        f(*side.qp);
  }
  /// \brief How many QPs this process runs (ForEachQp).
  uint64_t QpCount() const { return m_qpCount; }
  /// \brief "QP n: cause" of every QP that went into error, in order.
  const std::vector<std::string>& Errors() const { return m_errors; }
  /// \brief Messages that failed: some part was posted on (or waiting on) a QP in error.
  uint64_t FailedMessages() const { return m_failedMessages; }
  /// \brief Messages posted and neither complete nor failed.
  uint64_t OutstandingMessages() const { return m_outstanding; }

private:
  /// What the parts of a message of several writes share: the parts left, whether one failed,
  /// and the workload's completion.
  struct Whole
  {
    std::size_t left;
    bool failed = false;
    std::function<void()> done;
  };
  /// A part of a message of several writes, in the place of its completion: never called
  /// (Finish finds its Whole through it).
  struct PartOf
  {
    std::list<Whole>::iterator whole;
    void operator()() const {}
  };
  /// A message part waiting for its receiver (Finish): the message's completion when it is its
  /// one part, else a PartOf. 32 bytes, the completion or PartOf held in place (a workload's
  /// completion is made small enough to be): millions of messages wait at once in a large step.
  using Pending = std::function<void()>;
  /// Parts waiting on one receiving QP, in posting order (RDMA completes a QP's messages in
  /// order). A ring: 16 bytes while empty (a std::deque takes ~600 even then), and a large run
  /// has millions of QPs.
  using PendingQueue = ns3::RingQueue<Pending>;

  /// One QP of a connection: the QP (null when another MPI rank runs it), the queue of parts it
  /// sends (completed by its peer), its route for the fair-share reference, and whether it is in
  /// error. The sides are the workloads' state, the same in every process: a connection's QP
  /// pairs are consecutive pairs of sides (even index: the lower GPU's QP), so a side's peer is
  /// the other of its pair. 32 bytes: every process holds one per QP of the run.
  struct Side
  {
    /// Null when another MPI rank runs it. A reference: the run disposes the NICs
    /// (Simulator::Destroy) while the service still lives, and its destructor lets go of the QPs.
    ns3::Ptr<ns3::RdmaQueuePair> qp;
    PendingQueue sent;                ///< parts this QP sent, completed at the peer's receive
    FairReference::Route route;
    bool failed = false;
  };
  // The service listens to the QPs it runs, and finds a QP's side through its connection.
  void RecvComplete(ns3::RdmaQueuePair& qp, uint64_t id, uint64_t bytes, ns3::Time firstArrival) override;
  void Failed(ns3::RdmaQueuePair& qp, const std::string& cause) override;
  /// \brief The index in m_sides of a QP this process runs.
  uint32_t SideOf(const ns3::RdmaQueuePair& qp);

  /// The QPs between two GPUs, both directions (a QP pair carries data both ways): `pairs`
  /// pairs of sides from m_sides[first] (Side). Fixed once made: passed by value.
  struct Connection
  {
    uint32_t a = 0; ///< the lower GPU
    uint32_t first = 0;
    uint32_t pairs = 0;
  };
  /// Connections by GPU pair: open addressing with linear probing, 16 bytes a slot and at most
  /// 3/4 of the slots used (a node-based map took about 56 bytes a connection, every process
  /// holding every connection).
  class ConnectionTable
  {
  public:
    /// \brief The connection of GPUs a < b, if made.
    std::optional<Connection> Find(uint32_t a, uint32_t b) const;
    /// \brief Adds the connection of c.a < b (not yet in the table).
    void Add(const Connection& c, uint32_t b);
    std::size_t Size() const { return m_size; }

  private:
    struct Slot
    {
      uint64_t key = kEmpty; ///< Key(a, b)
      uint32_t first = 0;
      uint32_t pairs = 0;
    };
    static constexpr uint64_t kEmpty = UINT64_MAX; ///< no pair a < b has it
    static uint64_t Key(uint32_t a, uint32_t b) { return (uint64_t(a) << 32) | b; }
    std::size_t Home(uint64_t key) const;
    std::vector<Slot> m_slots; ///< a power of two of them, or none
    std::size_t m_size = 0;
  };
  Side& PeerOf(uint32_t side) { return m_sides[side ^ 1]; }

  void Post(Connection c, uint32_t src, uint64_t bytes, std::function<void()> done);
  /// A message waiting out its NIC's PostLatency.
  struct PendingPost
  {
    Connection connection;
    uint32_t src;
    uint64_t bytes;
    std::function<void()> done;
  };
  /// Messages posted by global events (a workload's step) that are due at the same time, with no
  /// other global event scheduled between them: one event posts them all, in order, as their
  /// events one by one would have (FabricParallelSimulatorImpl::GlobalEventsScheduled). An
  /// all-to-all step posts a message per peer of every GPU at once: an event each would hold
  /// one closure and one scheduler slot per message until then, and leave the event queue as
  /// large as that burst for the rest of the run.
  struct PostBatch
  {
    ns3::Time due;
    uint64_t stamp = 0; ///< GlobalEventsScheduled() after its event was scheduled
    std::deque<PendingPost> posts;
  };
  /// \brief Posts `bytes` from `src` after `latency`, in a batch with the posts before it when it can.
  void Defer(Connection c, uint32_t src, uint64_t bytes, std::function<void()> done, ns3::Time latency);
  void RunBatch(std::list<PostBatch>::iterator batch);
  /// The writes a message from `src` is posted as: its parts over the sender's QPs, each split
  /// at the largest RDMA write.
  std::vector<std::pair<Side*, uint64_t>> Writes(Connection c, uint32_t src, uint64_t bytes);
  /// \brief The connection of `src` and `dst`, made at their first message.
  Connection Get(uint32_t src, uint32_t dst);
  void Add(ns3::Ptr<ns3::RdmaQueuePair> x, ns3::Ptr<ns3::RdmaQueuePair> y);
  void OnRecvComplete(PendingQueue& queue);
  /// \brief A part ends: completed (`ok`) or failed with its QP.
  void Finish(Pending part, bool ok);
  /// \brief A message completed: the workload learns of it, then the runner (Progressed).
  void Complete(const std::function<void()>& done);
  /// \brief A message failed (a part was on a QP in error).
  void Fail();
  void OnQpError(Side& side, const std::string& cause);
  /// \brief What a QP side tells the host: a completion or an error (whose cause follows as the
  /// message's tail).
  struct Notice
  {
    uint32_t kind;  ///< kRecvNotice or kErrorNotice
    uint32_t index; ///< the side's index in m_sides
  };
  static constexpr uint32_t kRecvNotice = 0;
  static constexpr uint32_t kErrorNotice = 1;
  /// \brief A completion or QP error, as a global event every rank runs (see Notify).
  void OnNotice(const Notice& notice, std::string_view cause);
  /// \brief Tells the host of `qp` (which this process runs) of a completion or error, its NIC's
  /// CompletionLatency from now (at once when that is 0, which a run in one partition allows).
  void Notify(ns3::RdmaQueuePair& qp, uint32_t kind, const std::string& cause);
  std::optional<ns3::GlobalMessage<NetworkService, Notice, &NetworkService::OnNotice>> m_notices;

  ns3::FabricNetwork& m_net;
  const TransportSpec& m_transport;
  Connector m_connect; ///< the transport's, made at the first connection (TransportType::connector)
  ConnectionTable m_connections;
  std::list<Whole> m_wholes; ///< of the messages of several writes in flight (stable: PartOf names them)
  std::list<PostBatch> m_batches; ///< waiting for their events (stable: the events name them)
  PostBatch* m_openBatch = nullptr; ///< the latest, which later posts may join
  double m_connectSeconds = 0;
  std::deque<Side> m_sides; ///< stable addresses
  uint64_t m_qpCount = 0; ///< sides with a QP of this process
  std::vector<std::string> m_errors;
  std::function<void()> m_onProgress;
  std::vector<ConnectionObserver*> m_observers;
  FairReference* m_fair = nullptr;
  ScaleUpFabric* m_scaleUp = nullptr;
  uint64_t m_fabricMessages = 0;
  uint64_t m_fabricBytes = 0;
  uint64_t m_outstanding = 0;
  uint64_t m_failedMessages = 0;
};

} // namespace mrcsim

#endif

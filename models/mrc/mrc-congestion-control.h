// The congestion controller of an MRC queue pair: a window clocked by acknowledgements and,
// optionally, a pace. A small interface so that other controllers can be added next to NSCC
// (NsccCongestionControl); docs/EXTENDING.md walks through adding one.
// The contract: the QP makes the controller from its type (MrcQueuePair::CongestionControl),
// calls Init once, before anything else, with what it knows of its path (MrcCcPath), reads
// GetWindow before each data packet and reports every acknowledgement, trim and loss. A
// controller that paces says so once (EnablePacing): the sender then tells it of every data
// packet sent (OnSent) and sends none before NotBefore(), asking the NIC to come back then. A
// controller needs no attribute of any particular name: its own settings are its attributes.
// Leaves out: receiver-driven credit (MRC's credit-based flow control).
#ifndef MRCSIM_MODELS_MRC_CONGESTION_CONTROL_H
#define MRCSIM_MODELS_MRC_CONGESTION_CONTROL_H

#include "models/engine/light-object.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/// \brief What a congestion controller is told of its queue pair once, at set-up (Init).
struct MrcCcPath
{
  Time baseRtt;      ///< an uncongested round trip on the QP's paths
  DataRate lineRate; ///< the QP's NIC rate, summed over its ports (planes)
  uint32_t mtu = 0;  ///< payload bytes of a full data packet (RdmaNic::Mtu), the unit windows count in
};

/// \brief Window-based congestion control for one MRC queue pair, optionally paced (see the
/// file comment). A LightObject (one per QP): made from its type by Build, or CreateLight.
class MrcCongestionControl : public LightObject<MrcCongestionControl>
{
public:
  static TypeId GetTypeId();

  /// \brief Called once, before any other call, with the QP's path.
  virtual void Init(const MrcCcPath& path) = 0;
  /// \brief Bytes the QP may have in flight.
  virtual uint64_t GetWindow() const = 0;
  /// \brief `bytes` newly acknowledged; `rtt` measured on the packet that triggered the ACK;
  /// `ecn` whether that packet was marked.
  virtual void OnAck(uint64_t bytes, Time rtt, bool ecn) = 0;
  /// \brief A packet was trimmed (its NACK came back). Called once per packet declared lost so.
  virtual void OnTrim() = 0;
  /// \brief A packet was declared lost without a trim (RACK, tail-loss probe or timeout). Not
  /// called for packets resent because their port or path failed: that is no congestion.
  virtual void OnLoss() = 0;

  /// \brief Whether the controller paces (EnablePacing): only then is OnSent called and
  /// NotBefore honoured, so a controller that does not pace costs the sender nothing.
  bool Paces() const { return m_paces; }
  /// \brief The earliest time the QP's next data packet may leave (a pacing controller's).
  Time NotBefore() const { return m_notBefore; }
  /// \brief A data packet of `bytes` (on the wire) left at `now`; called only if Paces(). A
  /// pacing controller typically sets the next NotBefore here.
  virtual void OnSent(uint32_t bytes, Time now) {}
  /// \brief A new controller configured as this one, which Init was not called on: what a QP
  /// copied from a prototype (MrcQueuePair::CreatePrototype) uses instead of building one
  /// attribute by attribute. Null (the default) where the type has no copy: such a QP builds
  /// its controller from the CongestionControl type, as any other QP does.
  virtual Ptr<MrcCongestionControl> Copy() const { return nullptr; }

protected:
  /// \brief Declares that this controller paces (in its constructor or Init).
  void EnablePacing() { m_paces = true; }
  /// \brief No data packet leaves before `at` (honoured if Paces()).
  void SetNotBefore(Time at) { m_notBefore = at; }

private:
  bool m_paces = false; ///< first: it fits beside the LightObject's type id
  Time m_notBefore;
};

} // namespace ns3

#endif

// Per-packet choice of an entropy value among a NIC port's usable ones (a port serves one plane): a small policy chosen by
// type name (ns3::RoundRobinEvSelector, ns3::RandomEvSelector, ns3::PenaltyEvSelector, each in
// its own file).
#ifndef MRCSIM_MODELS_EV_SELECTOR_H
#define MRCSIM_MODELS_EV_SELECTOR_H

#include "models/engine/light-object.h"
#include "models/mrc/mrc-ev.h"

#include <vector>

namespace ns3
{

/// \brief Feedback about an EV that a selector may use.
enum class EvFeedback : uint8_t
{
  Acked, ///< a packet on it was acknowledged without a mark
  Ecn,   ///< ECN echo
  Trim,  ///< trimmed (NACK)
  Loss,  ///< lost without a trim
};

/// \brief Picks the EV for the next packet a NIC port sends (a port serves one plane). A
/// LightObject (one per QP): made from its type by Build, or CreateLight.
class EvSelector : public LightObject<EvSelector>
{
public:
  static TypeId GetTypeId();
  /// \param evs the QP's EV table (EV states by id)
  /// \param candidates ids of the port's active EVs; the selector may skip SKIP EVs (and
  ///        should turn them back to GOOD as it passes them, by Recover)
  /// \param port the NIC port being served (index of the QP's NIC ports; its plane is the
  ///        port's, MrcEvTable::EvPlane)
  /// \return an index into evs of a GOOD EV, or -1 if none
  virtual int Select(MrcEvStates& evs, MrcEvIds candidates, int port) = 0;
  /// \brief Feedback about EV `id`.
  virtual void OnFeedback(uint16_t id, EvFeedback feedback) {}
  /// \brief Called once before the first Select with a number that identifies the QP stably
  /// (its GPU and QP number): a selector that draws random numbers seeds its own stream from it
  /// and the run's seed, so that QPs draw independent sequences and a rerun draws the same ones.
  virtual void SetStream(uint64_t stream) {}
  /// \brief A new selector configured as this one, which was never used: what a QP copied from
  /// a prototype (MrcQueuePair::CreatePrototype) uses instead of building one attribute by
  /// attribute. Null (the default) where the type has no copy: such a QP builds its selector
  /// from the EvSelector type, as any other QP does.
  virtual Ptr<EvSelector> Copy() const { return nullptr; }

  /// \brief What turns an EV's state, set by the QP's EV table: every change goes through it, so
  /// that the EvState trace and the run's ev_transitions see each one.
  using StateSetter = void (*)(void* table, uint16_t id, EvState state);
  void SetStateSetter(StateSetter setter, void* table)
  {
    m_setState = setter;
    m_table = table;
  }

protected:
  /// \brief A SKIP EV (`id` in `evs`) passed over once becomes GOOD again (through the EV
  /// table's setter).
  void Recover(MrcEvStates& evs, uint16_t id)
  {
    if (m_setState)
      m_setState(m_table, id, EvState::Good);
    else
      evs.Set(id, EvState::Good);
  }

private:
  StateSetter m_setState = nullptr;
  void* m_table = nullptr;
};

} // namespace ns3

#endif

// The settings of the library's failure types, each type's own (FailureSpec::params): its reader
// makes them from its keys (failure-types.cc) and its scheduler reads them (ParamsOf).
#ifndef MRCSIM_SIM_FAILURES_FAILURE_PARAMS_H
#define MRCSIM_SIM_FAILURES_FAILURE_PARAMS_H

#include "sim/scenario/scenario-spec.h"
#include "sim/scenario/type-registry.h"

#include <cstdint>
#include <string>

namespace mrcsim
{

/// \brief link_down, link_up, port_down, port_up (a NIC port is its link).
struct LinkParams : TypeParams
{
  LinkSelector link;
};

/// \brief link_flap: down for half a period, then up, `count` times.
struct LinkFlapParams : LinkParams
{
  double periodUs = 0;
  uint32_t count = 0;
};

/// \brief gray: a link's loss and rate, both directions.
struct GrayParams : LinkParams
{
  double lossRate = 0;   ///< per-packet loss probability
  double rateFactor = 1; ///< fraction of the line rate left
};

/// \brief switch_down, switch_up.
struct SwitchParams : TypeParams
{
  int plane = -1;
  int tier = -1;
  uint32_t index = 0;
};

/// \brief plane_down, plane_up.
struct PlaneParams : TypeParams
{
  int plane = -1;
};

/// \brief random_links: links of a class fail and recover at random.
struct RandomLinksParams : TypeParams
{
  std::string linkClass; ///< "gpu-t0" or "t0-t1"
  double mtbfUs = 0;     ///< mean time between failures per link
  double mttrUs = 0;     ///< mean time to repair
  double untilUs = 0;    ///< no new failure after this time
};

} // namespace mrcsim

#endif

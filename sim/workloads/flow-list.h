// Traffic brought from outside: a list of flows (source, destination, size, start time or the
// flows it waits for), read from an htsim connection matrix or from a CSV or JSON flow list, so a
// trace or another simulator's scenario replays as it is (the "flows" workload).
//
// htsim connection matrices (uet-htsim, sim/datacenter/connection_matrix.cpp): a header
// ("Nodes N", "Connections C", optionally "Triggers T"), then one line per flow,
//   SRC->DST [id K] (start US | trigger T) size BYTES [send_done_trigger T] [recv_done_trigger T]
// and one line per trigger, "trigger id T (oneshot | barrier count C)". A flow with "trigger T"
// starts when trigger T fires; a flow with send_done_trigger T or recv_done_trigger T activates T
// when it completes. A oneshot trigger fires at its first activation, a barrier at its C-th.
// mrcsim reports a message complete when its receiver holds it, so both kinds of "done" are that
// instant; multishot triggers (one target per activation), flow priorities (prio) and message
// ids (msg) are not modelled and refused.
//
// CSV (a header line naming the columns, in any order): src, dst, bytes, and optionally id,
// start_us and after (ids of flows, separated by spaces or semicolons, that must all complete
// before this one starts; a flow with both starts at the later of the two). JSON: a list of
// objects with the same keys ("after" a list of ids).
#ifndef MRCSIM_SIM_WORKLOADS_FLOW_LIST_H
#define MRCSIM_SIM_WORKLOADS_FLOW_LIST_H

#include <cstdint>
#include <string>
#include <vector>

namespace mrcsim
{

/// \brief One flow: a message from `src` to `dst` (node indices of the file).
struct FlowEntry
{
  uint32_t src = 0;
  uint32_t dst = 0;
  uint64_t bytes = 0;
  double startUs = 0; ///< relative to the workload's start_us; with dependencies, the earliest
  /// Flows (indices into FlowList::flows) whose completions count towards this one's start.
  std::vector<uint32_t> after;
  /// How many completions among `after` it waits for: all of them (a flow list, a barrier) or
  /// one (a oneshot trigger).
  uint32_t need = 0;
  uint32_t line = 0; ///< where it is in the file, for messages
};

/// \brief A file's flows, in file order.
struct FlowList
{
  std::string file;
  std::string format;   ///< "htsim", "csv" or "json"
  uint32_t nodes = 0;   ///< htsim: its "Nodes"; otherwise one more than the largest node index
  std::vector<FlowEntry> flows;
};

/// \brief The formats ReadFlowList takes, and the one a file name implies ("htsim" for .cm and
/// .tm, "csv", "json"; "" if none).
std::string FlowFormatOf(const std::string& file);

/// \brief Reads `file` in `format` ("htsim", "csv" or "json"). Throws SpecError "FILE:LINE: what
/// is wrong; what is allowed" on anything it cannot read: unknown tokens or columns, missing or
/// repeated fields, sizes of 0, a node or id that does not exist, a dependency cycle (no flow
/// could start), counts in the header that disagree with the lines.
FlowList ReadFlowList(const std::string& file, const std::string& format);

} // namespace mrcsim

#endif

// The boundary of a parallel run on a link: when a link's two ends run in different partitions
// (FabricParallelSimulatorImpl), the frames one end sends in a window wait here and reach the
// wire at the window's end, in send order with their arrival times (FabricChannel::SetHandover).
// Everything a parallel run needs of a link is here; a link within one partition has none.
#ifndef MRCSIM_MODELS_FABRIC_CHANNEL_HANDOVER_H
#define MRCSIM_MODELS_FABRIC_CHANNEL_HANDOVER_H

#include "models/engine/ring-queue.h"
#include "models/fabric/fabric-channel.h"

#include <array>
#include <utility>
#include <vector>

namespace ns3
{

/// \brief Frames of one window per direction of a link between partitions (see the file
/// comment). Written only by the sender's partition; released at the window's end.
class FabricChannel::Handover
{
public:
  /// \brief Keeps `frame`, arriving at `arrival`, for direction `dir`. Returns true for the
  /// window's first frame of the direction: the caller defers its release to the barrier.
  bool Hold(uint8_t dir, FramePtr frame, Time arrival)
  {
    Buffer& b = m_buffers[dir];
    const uint32_t gap = NextGap(b.frames.empty(), b.first, b.last, arrival);
    if (gap == kFarGap)
    {
      b.far.push_back(arrival);
    }
    b.frames.push_back(InFlight{ std::move(frame), gap });
    return b.frames.size() == 1;
  }

  /// \brief Hands direction `dir`'s frames over in send order: deliver(frame, arrival).
  template<typename Deliver>
  void Release(uint8_t dir, Deliver&& deliver)
  {
    Buffer& b = m_buffers[dir];
    Time arrival = b.first;
    std::size_t far = 0;
    for (bool first = true; !b.frames.empty(); first = false)
    {
      InFlight f = b.frames.take_front();
      if (!first)
      {
        arrival = f.gap == kFarGap ? b.far[far++] : arrival + TimeStep(f.gap);
      }
      deliver(std::move(f.frame), arrival);
    }
    b.far.clear();
  }

  /// \brief Whether a catch-up of direction `dir`'s sender is deferred to the window's end
  /// (FabricChannel::CatchUpLater).
  bool& CatchUpPending(uint8_t dir) { return m_catchUpPending[dir]; }

private:
  /// One direction's frames, their arrivals kept as on the wire (gaps).
  struct Buffer
  {
    RingQueue<InFlight> frames; ///< emptied, not freed, at the window's end
    Time first;                 ///< arrival of the first
    Time last;                  ///< arrival of the last
    std::vector<Time> far;      ///< arrivals of frames whose gap is kFarGap
  };
  std::array<Buffer, 2> m_buffers;
  std::array<bool, 2> m_catchUpPending{};
};

} // namespace ns3

#endif

#include "sim/run/run-watchdog.h"

#include "ns3/simulator.h"

#include <atomic>
#include <csignal>

namespace mrcsim
{

namespace
{

std::atomic<bool> g_stopRequested{ false };
std::atomic<int> g_stopSignal{ 0 };
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free,
              "RequestStop runs in signal handlers");

} // namespace

void
RequestStop(int signal)
{
  g_stopSignal = signal;
  g_stopRequested = true;
}

bool
StopRequested()
{
  return g_stopRequested;
}

bool
ClearStopRequest()
{
  return g_stopRequested.exchange(false);
}

const std::vector<std::string>&
WatchdogReasons()
{
  static const std::vector<std::string> reasons{ "wall_time limit", "interrupted (SIGINT)", "interrupted (SIGTERM)",
                                                 "interrupted (SIGHUP)", "interrupted" };
  return reasons;
}

std::string
InterruptReason()
{
  switch (g_stopSignal.load())
  {
  case SIGINT:
    return WatchdogReasons()[1];
  case SIGTERM:
    return WatchdogReasons()[2];
  case SIGHUP:
    return WatchdogReasons()[3];
  default:
    return WatchdogReasons()[4];
  }
}

RunWatchdog::RunWatchdog(std::chrono::steady_clock::time_point deadline)
  : m_deadline(deadline)
{
  m_thread = std::thread(&RunWatchdog::Watch, this);
}

RunWatchdog::~RunWatchdog()
{
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_done = true;
  }
  m_wake.notify_all();
  m_thread.join();
}

void
RunWatchdog::Watch()
{
  // A signal handler may only set a flag: poll it, often enough that Ctrl-C feels immediate.
  constexpr auto kPoll = std::chrono::milliseconds(20);
  std::unique_lock<std::mutex> lock(m_mutex);
  while (!m_done)
  {
    m_wake.wait_for(lock, kPoll);
    if (m_done)
      return;
    std::string reason;
    if (StopRequested())
      reason = InterruptReason();
    else if (std::chrono::steady_clock::now() >= m_deadline)
      reason = WatchdogReasons()[0];
    else
      continue;
    // Scheduled while holding the lock, so never after the destructor began: the event runs at
    // the current simulated time, between two events, on the simulation's thread.
    ns3::Simulator::ScheduleWithContext(ns3::Simulator::NO_CONTEXT,
                                        ns3::Time(0),
                                        [this, reason]
                                        {
                                          m_reason = reason;
                                          ns3::Simulator::Stop();
                                        });
    return;
  }
}

} // namespace mrcsim

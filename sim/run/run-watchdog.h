// Stops a running simulation from outside its event loop: on the wall-time limit and on a
// signal, checked on the wall clock whatever the simulated time or the sampling interval does.
#ifndef MRCSIM_SIM_RUN_RUN_WATCHDOG_H
#define MRCSIM_SIM_RUN_RUN_WATCHDOG_H

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace mrcsim
{

/// \brief A thread that watches the wall clock and g_interrupted while ns-3 runs. When the
/// deadline passes or a signal arrived, it hands the simulator (ns-3's DefaultSimulatorImpl
/// takes events from other threads, applied between two events) one event that stops the run.
/// Nothing is scheduled otherwise, so a run's events and results do not depend on it.
class RunWatchdog
{
public:
  /// \param deadline when the run must stop (the run's wall-time limit)
  explicit RunWatchdog(std::chrono::steady_clock::time_point deadline);
  /// \brief Joins the thread; call after Simulator::Run() returned.
  ~RunWatchdog();
  RunWatchdog(const RunWatchdog&) = delete;
  RunWatchdog& operator=(const RunWatchdog&) = delete;

  /// \brief Why the watchdog stopped the run ("wall_time limit", "interrupted (SIGTERM)"), or
  /// empty. Read on the simulation's thread once its stop event ran.
  const std::string& Reason() const { return m_reason; }

private:
  void Watch();

  std::chrono::steady_clock::time_point m_deadline;
  std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_done = false;
  std::string m_reason; ///< written by the stop event, on the simulation's thread
  std::thread m_thread;
};

/// \brief Asks the running scenario to stop (within a few milliseconds, RunWatchdog), keeping
/// what it measured: the signal handlers' one action (SIGINT, SIGTERM, SIGHUP; async-signal-safe:
/// two lock-free atomic stores). `signal` 0: a request that is not a signal (tests).
void RequestStop(int signal = 0);
/// \brief Whether a stop was requested since the last ClearStopRequest().
bool StopRequested();
/// \brief Forgets a stop request, returning whether there was one (before a new run).
bool ClearStopRequest();

/// \brief "interrupted (SIGINT)" for the signal that requested the stop (0: "interrupted").
std::string InterruptReason();

/// \brief Every reason a watchdog may give, most telling first (ranks of an MPI run agree on one
/// by its index here).
const std::vector<std::string>& WatchdogReasons();

} // namespace mrcsim

#endif

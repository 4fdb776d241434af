// One writer per results directory: an advisory lock (flock) on DIR/.mrcsim.lock, held by a run
// for as long as it writes there, and the run's id. Leaves out NFS without lock support (flock
// there may lock only locally) and any writer that does not take the lock.
#ifndef MRCSIM_SIM_RUN_OUTPUT_DIRECTORY_LOCK_H
#define MRCSIM_SIM_RUN_OUTPUT_DIRECTORY_LOCK_H

#include <stdexcept>
#include <string>

namespace mrcsim
{

/// \brief The results directory is held by another run (or a reader): mrcsim run exits 2,
/// Python raises mrcsim.OutputDirectoryBusy.
class OutputDirectoryBusy : public std::runtime_error
{
public:
  using std::runtime_error::runtime_error;
};

/// \brief An exclusive flock on `dir`/.mrcsim.lock (the directory and the file are created),
/// taken without waiting and held until destruction. The lock file stays (removing it would let
/// a waiting process and a new one lock two different files). Locks are per open file, so two
/// threads of one process exclude each other too.
class OutputDirectoryLock
{
public:
  /// Lock file name inside the results directory.
  static constexpr const char* kFileName = ".mrcsim.lock";

  /// \brief Throws OutputDirectoryBusy naming `dir` when another holds the lock, and
  /// std::runtime_error naming the file when it cannot be created.
  explicit OutputDirectoryLock(const std::string& dir);
  ~OutputDirectoryLock();
  OutputDirectoryLock(const OutputDirectoryLock&) = delete;
  OutputDirectoryLock& operator=(const OutputDirectoryLock&) = delete;

  /// \brief Lets the lock go now (the destructor does too); idempotent.
  void Release();
  bool Held() const { return m_fd >= 0; }
  /// \brief Whether this lock is on `dir` (the same directory, however spelled).
  bool Covers(const std::string& dir) const;
  const std::string& Directory() const { return m_dir; }

private:
  std::string m_dir;
  int m_fd = -1;
};

/// \brief A new run id, unique per run on this machine: the wall clock (ns, hex), the process id
/// and a counter of the runs in this process ("18c5d2e0a1b2c3d4-12345-1"). It identifies a
/// results directory's files (summary.json's run_id) and enters no simulated result.
std::string NewRunId();

} // namespace mrcsim

#endif

// mrcsim: packet-level simulation of MRC and RoCEv2 on multiplane AI fabrics (command line).
#include "sim/parallel/mpi-ranks.h"
#include "sim/cli/cli-args.h"
#include "sim/cli/commands.h"
#include "sim/run/output-directory-lock.h"
#include "topologies/json-reader.h"

#include "ns3/nstime.h"

#include <malloc.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>

#include <unistd.h>

namespace
{

const char* kUsage = R"(usage: mrcsim <command> [options]
commands:
  topo      build a fabric (preset, spec file or GraphML) and print its figures
  run       run a scenario file (MRC and/or RoCEv2), write results and a comparison table
  validate  check a scenario file without running it
  attributes  list the ns-3 attributes a scenario may set (defaults, ranges, documentation)
  bench     benchmarks: topology | forwarding | perm-8192
run `mrcsim <command> --help` for its options; `mrcsim --version` prints the version.
)";

#ifndef MRCSIM_TCMALLOC
/// \brief Re-executes this program with glibc's malloc asking for transparent huge pages
/// (glibc.malloc.hugetlb=1), unless that tunable is already set or MRCSIM_HUGE_PAGES=0. It marks
/// the new process (MRCSIM_HUGE_PAGES=requested), so it re-executes once at most.
///
/// A large fabric's packet-hops touch memory spread over hundreds of megabytes: with 4 KiB pages
/// most touches also miss the TLB, and each prefetch waits for a page walk. Huge pages made
/// perm-8192 about 5% faster (interleaved runs). Kernels whose THP mode is "madvise" (Debian's
/// default) need the request; with "always" it changes nothing, with "never" nothing either.
/// Results do not depend on it. If the re-execution fails, the run goes on as it is.
void
RequestHugePages(char** argv)
{
  const char* opt = std::getenv("MRCSIM_HUGE_PAGES");
  if (opt && (std::string(opt) == "0" || std::string(opt) == "requested"))
  {
    return; // opted out, or this is the re-executed program (whatever became of the tunable)
  }
  const char* current = std::getenv("GLIBC_TUNABLES");
  std::string tunables = current ? current : "";
  if (tunables.find("glibc.malloc.hugetlb") != std::string::npos)
  {
    return;
  }
  tunables += (tunables.empty() ? "" : ":") + std::string("glibc.malloc.hugetlb=1");
  if (setenv("GLIBC_TUNABLES", tunables.c_str(), 1) == 0 && setenv("MRCSIM_HUGE_PAGES", "requested", 1) == 0)
  {
    execv("/proc/self/exe", argv);
  }
}
#endif

} // namespace

int
main(int argc, char** argv)
{
#ifndef MRCSIM_TCMALLOC
  // With glibc's malloc (MRCSIM_MALLOC=system): huge pages, and one malloc arena for all
  // threads. A parallel run's partitions grow rings that the main thread allocated at set-up;
  // with an arena per thread, each arena keeps the other's freed buffers as slack (perm-8192, two
  // partitions: 1.5-1.8 MiB more at the peak). The run allocates little once under way (run
  // times in interleaved runs were within their noise). tcmalloc needs neither.
  RequestHugePages(argv);
  mallopt(M_ARENA_MAX, 1);
#endif
  if (argc < 2)
  {
    std::cerr << "mrcsim: expected a command\n" << kUsage;
    return 2;
  }
  // Picosecond resolution: a 4 KB frame at 100 Gb/s takes 335.2 ns, not a rounded 335.
  ns3::Time::SetResolution(ns3::Time::PS);
  std::string command = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  // Under mpirun or srun: MPI runs while the command does (sim/parallel/mpi-ranks.h); an error on one rank
  // ends them all (the others may be waiting for it).
  std::unique_ptr<mrcsim::MpiSession> mpi;
  // What a command printed must have reached its destination (a full disk, a closed pipe):
  // otherwise the status says it failed.
  const auto written = [](int status)
  {
    std::cout.flush();
    if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout))
    {
      std::cerr << "mrcsim: error: cannot write the standard output: " << std::strerror(errno) << "\n";
      return status == 0 ? 1 : status;
    }
    return status;
  };
  try
  {
    mpi = std::make_unique<mrcsim::MpiSession>(&argc, &argv);
    if (command == "topo")
      return written(mrcsim::TopoCommand(args));
    if (command == "bench")
      return written(mrcsim::BenchCommand(args));
    if (command == "run")
      return written(mrcsim::RunCommand(args));
    if (command == "validate")
      return written(mrcsim::ValidateCommand(args));
    if (command == "attributes")
      return written(mrcsim::AttributesCommand(args));
    if (command == "--version" || command == "version")
    {
      // The same string as summary.json's "version" and the Python module's __version__.
      std::cout << "mrcsim " << MRCSIM_VERSION << " (ns-3 " << MRCSIM_NS3_VERSION << ")\n";
      return 0;
    }
    if (command == "--help" || command == "help")
    {
      std::cout << kUsage;
      return 0;
    }
    throw mrcsim::UsageError("unknown command \"" + command + "\"");
  }
  catch (const mrcsim::RanksDisagree& e)
  {
    // Every rank stopped at the same point with this message: rank 0 reports it.
    if (!mrcsim::MpiLink() || mrcsim::MpiLink()->Rank() == 0)
      std::cerr << "mrcsim: error: " << e.what() << "\n";
    return 2;
  }
  catch (const mrcsim::UsageError& e)
  {
    std::cerr << "mrcsim: " << e.what() << "\n" << kUsage;
    mrcsim::AbortRanks(2);
    return 2;
  }
  catch (const mrcsim::OutputDirectoryBusy& e)
  {
    std::cerr << "mrcsim: error: " << e.what() << "\n";
    mrcsim::AbortRanks(2);
    return 2;
  }
  catch (const mrcsim::SpecError& e)
  {
    std::cerr << "mrcsim: error: " << e.what() << "\n";
    mrcsim::AbortRanks(1);
    return 1;
  }
  catch (const std::exception& e)
  {
    std::cerr << "mrcsim: error: " << e.what() << "\n";
    mrcsim::AbortRanks(1);
    return 1;
  }
}

// Catch2 main for tests of ns-3 models: the same picosecond time resolution as the mrcsim CLI.
#define CATCH_CONFIG_RUNNER
#include "ns3/nstime.h"

#include <catch2/catch.hpp>

int
main(int argc, char* argv[])
{
  ns3::Time::SetResolution(ns3::Time::PS);
  return Catch::Session().run(argc, argv);
}

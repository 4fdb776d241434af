// The fabric's own limits (planes a NIC can have, tiers and switches a uSID can name), fabrics
// without GPUs, and routing on paths longer than its distance tables hold: refused or handled,
// never a crash or a silently wrong table.
#include "fabric-fixtures.h"
#include "topologies/fabric-figures.h"
#include "topologies/fabric-routing.h"

#include <catch2/catch.hpp>

#include <sstream>

using namespace mrcsim;

TEST_CASE("a switch outside the planes and tiers a fabric can name is refused, leaving the fabric as it was",
          "[topology]")
{
  Fabric f;
  f.AddSwitch(kMaxPlanes - 1, kMaxTiers - 1);
  CHECK_THROWS_AS(f.AddSwitch(kMaxPlanes, 0), std::invalid_argument);
  CHECK_THROWS_AS(f.AddSwitch(65536, 0), std::invalid_argument);
  CHECK_THROWS_AS(f.AddSwitch(0, kMaxTiers), std::invalid_argument);
  CHECK_THROWS_AS(f.AddSwitch(-1, 0), std::invalid_argument);
  CHECK(f.NumPlanes() == kMaxPlanes);
  CHECK(f.NumTiers() == kMaxTiers);
  CHECK(f.NumSwitches() == 1);
}

TEST_CASE("a fabric without a GPU fails validation, and its figures do not crash", "[topology]")
{
  Fabric empty;
  CHECK_THROWS_WITH(empty.Validate(), Catch::Contains("no GPU"));
  Fabric switches;
  VertexId a = switches.AddSwitch(0, 0);
  VertexId b = switches.AddSwitch(0, 1);
  switches.AddLink(a, b, 100000000000, 1000);
  CHECK_THROWS_WITH(switches.Validate(), Catch::Contains("no GPU"));

  // Figures are computed from whatever they are given (the Python module and `mrcsim topo`
  // validate first; a library caller may not).
  for (const Fabric* f : { &empty, &switches })
  {
    FabricRouting routing(*f);
    FabricFigures figures = ComputeFigures(*f, routing, "graphml", PowerModel{});
    CHECK(figures.gpus == 0);
    CHECK(figures.gpuBandwidthGbps == 0);
    CHECK(figures.pathsTotal == 0);
    std::ostringstream table;
    PrintFigures(figures, table);
    CHECK_THAT(table.str(), Catch::Contains("GPUs"));
  }
}

TEST_CASE("switches farther than the distance tables hold are unreachable, not wrapped around", "[routing]")
{
  // A line of 300 leaves in one plane, a GPU at each end: the far end is 299 switch hops away,
  // beyond the 8-bit distances (254 at most), which used to wrap to 0.
  Fabric f;
  std::vector<VertexId> line;
  for (int i = 0; i < 300; ++i)
  {
    line.push_back(f.AddSwitch(0, 0));
    if (i > 0)
      f.AddLink(line[i - 1], line[i], 100000000000, 1000);
  }
  f.AddLink(f.AddGpu(), line.front(), 100000000000, 1000);
  f.AddLink(f.AddGpu(), line.back(), 100000000000, 1000);
  f.Validate();
  FabricRouting routing(f);
  CHECK(routing.Distance(line[254], 0) == 254);
  for (int i = 255; i < 300; ++i)
  {
    INFO("switch " << i);
    CHECK(routing.Distance(line[i], 0) == -1);
  }
  CHECK_FALSE(routing.Reachable(0, 1, 0));
  CHECK(routing.Path(0, 1, 0, 0).empty());
  CHECK(routing.CountPaths(0, 1, 0) == 0);
}

TEST_CASE("a GPU without a port in one of the planes fails validation, naming the GPU and the plane", "[topology]")
{
  // Two planes of one leaf each; GPU 1 is wired into plane 0 only (a GraphML fabric can say so).
  // The models address a port of every GPU in every plane, so the fabric is refused rather than
  // left to a NIC without the port a queue pair is dealt.
  Fabric f;
  VertexId leaf0 = f.AddSwitch(0, 0);
  VertexId leaf1 = f.AddSwitch(1, 0);
  VertexId g0 = f.AddGpu();
  VertexId g1 = f.AddGpu();
  f.AddLink(g0, leaf0, 100000000000, 1000);
  f.AddLink(g0, leaf1, 100000000000, 1000);
  f.AddLink(g1, leaf0, 100000000000, 1000);
  CHECK_THROWS_WITH(f.Validate(), Catch::Contains("gpu1 has no port in plane 1, where other GPUs have theirs"));
  f.AddLink(g1, leaf1, 100000000000, 1000);
  CHECK_NOTHROW(f.Validate());
}

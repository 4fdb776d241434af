// MRC's shared path sets (MrcPathSet, MrcPathSets): what a QP reads from them is exactly what
// FabricRouting::Path and Usids give for each EV's path index, QPs between the same T0s share one
// set, and a set made before a link changed stays with the QPs that took it while new QPs get
// paths of the new tables.
#include "models/mrc/mrc-path-set.h"

#include "topologies/fabric-routing.h"
#include "topologies/fabric-spec.h"

#include <catch2/catch.hpp>

using namespace mrcsim;
using namespace ns3;

namespace
{

/// The uSIDs FabricRouting gives for path index `choice` (empty if there is no path).
UsidList
Expected(const FabricRouting& routing, uint32_t src, uint32_t dst, int plane, uint64_t choice)
{
  const auto path = routing.Path(src, dst, plane, choice);
  return path.empty() ? UsidList() : UsidList(routing.Usids(path, dst, plane));
}

bool
Same(const UsidList& a, const UsidList& b)
{
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

/// A QP's ports, one per plane, as an MRC QP's EV table takes them (8 EVs a port).
std::vector<MrcPortPaths>
PortsOf(const Fabric& fabric, const FabricRouting& routing, uint32_t src, uint32_t dst, uint64_t offset)
{
  std::vector<MrcPortPaths> p;
  for (int plane = 0; plane < fabric.NumPlanes(); ++plane)
    p.push_back(MrcPathSets::Get(routing, src, dst, plane, offset, 8));
  return p;
}

} // namespace

TEST_CASE("mrc path sets: every EV's uSIDs are the routing's for its path index", "[mrc][paths]")
{
  const Fabric fabric = BuildFabric(PresetSpec("multiplane-64"));
  const FabricRouting routing(fabric);
  const uint64_t offsets[] = { 0, 5, 123456789, (uint64_t(1) << 47) + 3 };
  for (uint32_t src : { 0u, 7u, 40u })
  {
    for (uint32_t dst : { 1u, 33u, 63u, src })
    {
      for (int plane = 0; plane < fabric.NumPlanes(); ++plane)
      {
        for (uint64_t offset : offsets)
        {
          const MrcPortPaths paths = MrcPathSets::Get(routing, src, dst, plane, offset, 24);
          for (uint32_t k = 0; k < 24; ++k)
          {
            const UsidList expected = Expected(routing, src, dst, plane, offset + k);
            INFO("gpu " << src << " -> " << dst << ", plane " << plane << ", offset " << offset << ", EV " << k);
            CHECK(Same(paths.Usids(k), expected));
            CHECK((paths.PathOf(k) >= 0) == !expected.empty());
          }
        }
      }
    }
  }
}

TEST_CASE("mrc path sets: a path index's path repeats with the routing's period", "[mrc][paths]")
{
  const Fabric fabric = BuildFabric(PresetSpec("multiplane-64"));
  const FabricRouting routing(fabric);
  const uint64_t period = routing.PathPeriod(0, 63, 0, 1 << 20);
  REQUIRE(period > 1);
  CHECK(routing.PathPeriod(0, 63, 0, period - 1) == 0); // beyond the cap
  CHECK(routing.PathPeriod(5, 5, 0, 1 << 20) == 1);     // no path to itself
  for (uint64_t c = 0; c < 3 * period; ++c)
  {
    CHECK(Same(Expected(routing, 0, 63, 0, c), Expected(routing, 0, 63, 0, c % period)));
  }
}

TEST_CASE("mrc path sets: QPs between the same T0s share one set, with their own destination uSIDs",
          "[mrc][paths]")
{
  const Fabric fabric = BuildFabric(PresetSpec("multiplane-64"));
  const FabricRouting routing(fabric);
  // GPUs 0 and 1 under one T0, 62 and 63 under another (of every plane).
  REQUIRE(routing.Attach(0, 0).leaf == routing.Attach(1, 0).leaf);
  REQUIRE(routing.Attach(62, 0).leaf == routing.Attach(63, 0).leaf);
  REQUIRE(routing.Attach(0, 0).leaf != routing.Attach(63, 0).leaf);
  const MrcPortPaths a = MrcPathSets::Get(routing, 0, 62, 0, 11, 8);
  const MrcPortPaths b = MrcPathSets::Get(routing, 1, 63, 0, 999, 8);
  CHECK(a.set == b.set);
  CHECK(a.set->ByHopGroups()); // a regular two-tier plane: the T0's up-ports, then the T1's links
  CHECK(a.set->MemoryBytes() < 1024);
  CHECK(a.place.tail != b.place.tail);
  const MrcPortPaths other = MrcPathSets::Get(routing, 0, 62, 1, 11, 8); // another plane
  CHECK(other.set != a.set);
}

TEST_CASE("mrc path sets: QPs whose ports have the same sets share one block of them", "[mrc][paths]")
{
  const Fabric fabric = BuildFabric(PresetSpec("multiplane-64"));
  FabricRouting routing(fabric);
  const auto ports = [&](uint32_t src, uint32_t dst, uint64_t offset)
  { return PortsOf(fabric, routing, src, dst, offset); };
  // GPUs 0 and 1 under one T0, 62 and 63 under another, 2 under the first (of every plane).
  const auto a = MrcPathSets::Share(routing, ports(0, 62, 11));
  const auto b = MrcPathSets::Share(routing, ports(1, 63, 999));
  REQUIRE(a);
  CHECK(a == b);
  CHECK(a->size() == std::size_t(fabric.NumPlanes()));
  CHECK(MrcPathSets::Share(routing, ports(62, 0, 11)) != a); // the other way: other sets
  // A port with a set of its own (made here as a QP beyond kMaxShared gets one) is never shared.
  std::vector<MrcPortPaths> own = ports(0, 62, 11);
  own[0].set = std::make_shared<const MrcPathSet>(routing, 0, 62, 0, 11, 8);
  own[0].shared = false;
  const auto ownA = MrcPathSets::Share(routing, own);
  CHECK(ownA != a);
  CHECK(MrcPathSets::Share(routing, own) != ownA);
  // After the routing changes, the same QPs get a new block of the new sets; old QPs keep theirs.
  routing.SetLinkUp(fabric.LinkAt(routing.Attach(0, 0).leaf, FabricRouting::UsidPort(ports(0, 62, 11)[0].Usids(0)[0])).id,
                    false);
  routing.Update();
  const auto after = MrcPathSets::Share(routing, ports(0, 62, 11));
  CHECK(after != a);
  CHECK((*a)[0] != (*after)[0]);
}

TEST_CASE("mrc path sets: a QP's port places are kept in one form where its planes agree, else by port",
          "[mrc][paths]")
{
  const Fabric fabric = BuildFabric(PresetSpec("multiplane-64"));
  FabricRouting routing(fabric);
  const auto ports = [&](uint32_t src, uint32_t dst, uint64_t offset)
  { return PortsOf(fabric, routing, src, dst, offset); };
  // Every port's place is the one it was given, and each EV's uSIDs are the same through them.
  const auto same = [](const MrcPortPlaces& places, const std::vector<MrcPortPaths>& p)
  {
    for (uint16_t port = 0; port < p.size(); ++port)
    {
      if (!p[port].set)
        continue;
      INFO("port " << port);
      CHECK(places.At(port).base == p[port].place.base);
      CHECK(places.At(port).tail == p[port].place.tail);
      for (uint32_t k = 0; k < 8; ++k)
        CHECK(Same(places.At(port).Usids(p[port].set.get(), k), p[port].Usids(k)));
    }
  };
  // A multiplane fabric's planes have sets of one size, and port p of a NIC is in plane p.
  const std::vector<MrcPortPaths> regular = ports(3, 60, (uint64_t(1) << 40) + 77);
  MrcPortPlaces places;
  places.Assign(regular);
  CHECK(places.Compact());
  same(places, regular);
  // A port without a set (no path in its plane) is left out of the comparison.
  std::vector<MrcPortPaths> missing = regular;
  missing[2] = MrcPortPaths();
  places.Assign(missing);
  CHECK(places.Compact());
  same(places, missing);
  // Places that differ (a set of another size, a GPU's plane on another NIC port): by port.
  for (int variant = 0; variant < 3; ++variant)
  {
    std::vector<MrcPortPaths> other = regular;
    if (variant == 0)
      other[5].place.base += 1;
    else if (variant == 1)
      other[1].place.tail[0] += 1;
    else
      std::swap(other[0].place.tail[1], other[7].place.tail[1]);
    INFO("variant " << variant);
    places.Assign(other);
    CHECK(!places.Compact());
    same(places, other);
  }
  // Assigned again, the one form returns (and the array is given back: the sanitizer job checks).
  places.Assign(regular);
  CHECK(places.Compact());
  same(places, regular);
}

TEST_CASE("mrc path sets: a link going down gives new QPs new paths and leaves old ones theirs", "[mrc][paths]")
{
  const Fabric fabric = BuildFabric(PresetSpec("multiplane-64"));
  FabricRouting routing(fabric);
  const MrcPortPaths before = MrcPathSets::Get(routing, 0, 63, 0, 0, 16);
  const UsidList first = before.Usids(0);
  REQUIRE(!first.empty());
  // The source T0's up-link that EV 0 takes goes down.
  const Attachment& a = routing.Attach(0, 0);
  const uint32_t link = fabric.LinkAt(a.leaf, FabricRouting::UsidPort(first[0])).id;
  const uint64_t version = routing.Version();
  routing.SetLinkUp(link, false);
  routing.Update();
  CHECK(routing.Version() != version);
  const MrcPortPaths after = MrcPathSets::Get(routing, 0, 63, 0, 0, 16);
  CHECK(after.set != before.set);
  CHECK(Same(before.Usids(0), first)); // the old QP keeps what it took
  for (uint32_t k = 0; k < 16; ++k)
  {
    CHECK(Same(after.Usids(k), Expected(routing, 0, 63, 0, k)));
    CHECK((after.Usids(k).empty() || after.Usids(k)[0] != first[0]));
  }
}

TEST_CASE("mrc path sets: a set of rows gives the routing's uSIDs for its indices", "[mrc][paths]")
{
  // The form for planes whose groups differ by branch (and a QP's own paths beyond kMaxShared).
  const Fabric fabric = BuildFabric(PresetSpec("multiplane-64"));
  const FabricRouting routing(fabric);
  const MrcPathSet rows(routing, 3, 60, 5, 1000, 40);
  REQUIRE(rows.Size() == 40);
  CHECK_FALSE(rows.ByHopGroups());
  const Attachment& dst = routing.Attach(60, 5);
  for (uint32_t i = 0; i < 40; ++i)
  {
    REQUIRE(rows.HasPath(i));
    uint16_t usids[UsidList::kCapacity];
    const uint32_t n = rows.Write(i, usids);
    usids[n] = FabricRouting::PortUsid(dst.leafPort);
    usids[n + 1] = FabricRouting::PortUsid(dst.gpuPort);
    CHECK(Same(UsidList(usids, usids + n + 2), Expected(routing, 3, 60, 5, 1000 + i)));
  }
}

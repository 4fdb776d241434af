// SharedConfig (models/engine/shared-config.h): the attributes of the millions of QPs and
// controllers a large run copies from one prototype, held once. A copy shares its original's
// configuration until either writes; a write never reaches another holder; the last holder frees
// it. Through ns-3's attribute system, an object's SetAttribute is such a write.
#include "models/engine/shared-config.h"
#include "models/mrc/mrc-queue-pair.h"

#include "ns3/uinteger.h"

#include <catch2/catch.hpp>

#include <vector>

using namespace ns3;

namespace
{

/// Counts the configurations alive, to see that the last holder frees its own.
struct Counted
{
  static int alive;
  uint32_t value = 0;
  Counted() { ++alive; }
  Counted(const Counted& other) : value(other.value) { ++alive; }
  ~Counted() { --alive; }
};
int Counted::alive = 0;

} // namespace

TEST_CASE("shared config: copies share until a write, which stays the writer's", "[shared-config]")
{
  REQUIRE(Counted::alive == 0);
  {
    SharedConfig<Counted> a;
    CHECK(a->value == 0); // value-initialized, as a fresh object's attributes before SetAttribute
    a.Mutable().value = 7;
    SharedConfig<Counted> b = a;
    SharedConfig<Counted> c = b;
    CHECK(&*a == &*b);
    CHECK(&*b == &*c);
    CHECK(Counted::alive == 1);

    b.Mutable().value = 9; // shared: b gets its own first
    CHECK(Counted::alive == 2);
    CHECK(a->value == 7);
    CHECK(b->value == 9);
    CHECK(c->value == 7);
    CHECK(&*a == &*c);

    b.Mutable().value = 10; // b's own now: written in place
    CHECK(Counted::alive == 2);

    c = b; // c leaves a's configuration for b's
    CHECK(c->value == 10);
    CHECK(&*c == &*b);
    a.Mutable().value = 8; // a alone now: in place
    CHECK(Counted::alive == 2);
    c = c;
    CHECK(c->value == 10);

    std::vector<SharedConfig<Counted>> many(1000, a);
    CHECK(Counted::alive == 2);
    many.clear();
    CHECK(a->value == 8);
  }
  CHECK(Counted::alive == 0);
}

TEST_CASE("shared config: a copied QP's attribute write leaves its prototype's", "[shared-config]")
{
  Ptr<MrcQueuePair> prototype = MrcQueuePair::CreatePrototype();
  UintegerValue before;
  prototype->GetAttribute("SackEvery", before);
  Ptr<MrcQueuePair> copy = prototype->Copy();
  Ptr<MrcQueuePair> other = prototype->Copy();
  copy->SetAttribute("SackEvery", UintegerValue(before.Get() + 3));
  UintegerValue v;
  copy->GetAttribute("SackEvery", v);
  CHECK(v.Get() == before.Get() + 3);
  prototype->GetAttribute("SackEvery", v);
  CHECK(v.Get() == before.Get());
  other->GetAttribute("SackEvery", v);
  CHECK(v.Get() == before.Get());
}

// Unit tests of the 24-bit PSN arithmetic in models/wire/psn.h.
#include "models/wire/psn.h"

#include <catch2/catch.hpp>

using namespace ns3;

TEST_CASE("PSN mask and validity", "[psn]")
{
  CHECK(kPsnMask == 0xFFFFFFu);
  CHECK(IsValidPsn(0));
  CHECK(IsValidPsn(0xFFFFFF));
  CHECK_FALSE(IsValidPsn(0x1000000));
}

TEST_CASE("PsnAdd wraps modulo 2^24", "[psn]")
{
  CHECK(PsnAdd(0xFFFFFF, 1) == 0);
  CHECK(PsnAdd(0xFFFFFE, 5) == 3);
  CHECK(PsnAdd(2, -3) == 0xFFFFFF);
  CHECK(PsnAdd(100, 0) == 100);
}

TEST_CASE("PsnDiff is the signed serial distance", "[psn]")
{
  CHECK(PsnDiff(10, 3) == 7);
  CHECK(PsnDiff(3, 10) == -7);
  CHECK(PsnDiff(0x000002, 0xFFFFFE) == 4);
  CHECK(PsnDiff(0xFFFFFE, 0x000002) == -4);
  CHECK(PsnDiff(5, 5) == 0);
  // The half-range boundary: exactly 2^23 apart reads as -2^23.
  CHECK(PsnDiff(0x800000, 0) == -0x800000);
  CHECK(PsnDiff(0x7FFFFF, 0) == 0x7FFFFF);
}

TEST_CASE("PsnLess orders across the wrap", "[psn]")
{
  CHECK(PsnLess(1, 2));
  CHECK_FALSE(PsnLess(2, 1));
  CHECK_FALSE(PsnLess(7, 7));
  CHECK(PsnLess(0xFFFFF0, 0x000010));
  CHECK_FALSE(PsnLess(0x000010, 0xFFFFF0));
  CHECK(PsnLessOrEqual(7, 7));
  CHECK(PsnLessOrEqual(0xFFFFFF, 0));
  CHECK_FALSE(PsnLessOrEqual(0, 0xFFFFFF));
}

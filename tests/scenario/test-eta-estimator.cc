// The progress lines' ETA: from the recent rate, not the rate since the start, and only once
// two successive estimates agree.
#include "sim/run/eta-estimator.h"

#include <catch2/catch.hpp>

using namespace mrcsim;

TEST_CASE("eta: a slow start does not skew the estimate", "[eta]")
{
  // 3 s of set-up with nothing done, then 10 % of the work every 2 s: 20 s of work in all.
  EtaEstimator eta;
  CHECK_FALSE(eta.Add(3, 0.0));
  CHECK_FALSE(eta.Add(5, 0.1)); // one estimate: nothing to agree with yet
  const auto left = eta.Add(7, 0.2);
  REQUIRE(left);
  CHECK(*left == Approx(16.0)); // 80 % at 5 %/s; since the start it would be 0.2 / 7 s: 28 s
  for (int k = 3; k <= 9; ++k)
  {
    const auto next = eta.Add(3 + 2.0 * k, 0.1 * k);
    REQUIRE(next);
    CHECK(*next == Approx(20 - 2.0 * k));
  }
  CHECK(*eta.Add(23, 1.0) == 0);
}

TEST_CASE("eta: estimating until two successive estimates agree", "[eta]")
{
  EtaEstimator eta(4, 0.25);
  CHECK_FALSE(eta.Add(3, 0.01));
  CHECK_FALSE(eta.Add(5, 0.02));
  // The rate triples: each estimate is far below the one before, so none is shown yet.
  CHECK_FALSE(eta.Add(7, 0.08));
  CHECK_FALSE(eta.Add(9, 0.20));
  // This one agrees with the previous one (moved on by 2 s) within 25 %: shown.
  const auto settled = eta.Add(11, 0.32);
  REQUIRE(settled);
  CHECK(*settled == Approx(0.68 / (0.31 / 8)));
}

TEST_CASE("eta: no recent progress, no estimate", "[eta]")
{
  EtaEstimator eta(2);
  eta.Add(3, 0.1);
  eta.Add(5, 0.2);
  REQUIRE(eta.Add(7, 0.3));
  // Stalled for the whole window: no rate, so no estimate, and it starts afresh afterwards.
  CHECK_FALSE(eta.Add(9, 0.3));
  CHECK_FALSE(eta.Add(11, 0.3));
  CHECK_FALSE(eta.Add(13, 0.4));
  CHECK_FALSE(eta.Add(15, 0.5));
  const auto resumed = eta.Add(17, 0.6);
  REQUIRE(resumed);
  CHECK(*resumed == Approx(8.0));
}

// Quantiles (type 7) and normal quantiles of the interval methods.
#include <gtest/gtest.h>

#include <vector>

#include "judgestat/bootstrap.hpp"

using namespace judgestat;

TEST(Intervals, QuantileType7MatchesNumpy) {
  // numpy.percentile([1, 2, 4, 8, 16], [2.5, 50, 97.5]) = [1.1, 4.0, 15.2]
  const std::vector<double> sorted{1, 2, 4, 8, 16};
  EXPECT_NEAR(quantile_type7(sorted, 0.025), 1.1, 1e-15);
  EXPECT_DOUBLE_EQ(quantile_type7(sorted, 0.5), 4.0);
  EXPECT_NEAR(quantile_type7(sorted, 0.975), 15.2, 1e-14);
  EXPECT_DOUBLE_EQ(quantile_type7(sorted, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile_type7(sorted, 1.0), 16.0);
}

TEST(Intervals, NormalQuantileAgreesWithScipy) {
  // scipy.special.ndtri(0.975) = 1.959963984540054, ndtri(0.001) = -3.090232306167813
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-13);
  EXPECT_NEAR(normal_quantile(0.001), -3.090232306167813, 1e-12);
  EXPECT_NEAR(normal_quantile(0.5), 0.0, 1e-15);
  EXPECT_NEAR(normal_cdf(normal_quantile(0.3)), 0.3, 1e-15);
}

// Combining a subject's rounds: lowest latency, median bandwidth, and a
// round that failed leaves the others' figures standing.
#include "rounds.h"
#include "subject_rows.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace railyard::bench {
namespace {

// One round's figures: latency at 8 B, bandwidth at 64 KiB and 1 MiB.
SubjectResult round_of(const char* name, double latency_8, double bandwidth) {
  return testing::subject(name, latency_8, bandwidth);
}

SubjectResult failed(const char* name, const char* why) {
  SubjectResult out;
  out.name = name;
  out.error = why;
  return out;
}

TEST(CombineRounds, TakesTheLowestLatencyAndTheMedianBandwidth) {
  const auto combined = combine_rounds({{round_of("openmpi", 6.5, 477.0)},
                                        {round_of("openmpi", 6.1, 478.1)},
                                        {round_of("openmpi", 7.9, 477.6)}});
  ASSERT_EQ(combined.size(), 1U);
  EXPECT_TRUE(combined[0].error.empty());
  EXPECT_TRUE(combined[0].round_failures.empty());
  EXPECT_DOUBLE_EQ(row_for(combined[0], 8)->latency_us, 6.1);
  EXPECT_DOUBLE_EQ(row_for(combined[0], 1 << 20)->bandwidth_mbps, 477.6);
  EXPECT_EQ(row_for(combined[0], 4096), nullptr);
}

TEST(CombineRounds, ARoundThatFailedIsLeftOutAndNamed) {
  const auto combined =
      combine_rounds({{round_of("striping", 5.0, 478.0), failed("openmpi", "mpirun crashed")},
                      {round_of("striping", 5.2, 477.0), round_of("openmpi", 6.4, 477.9)},
                      {round_of("striping", 4.9, 476.0), round_of("openmpi", 6.2, 478.1)}});
  ASSERT_EQ(combined.size(), 2U);
  const SubjectResult& openmpi = combined[1];
  EXPECT_EQ(openmpi.name, "openmpi");
  EXPECT_TRUE(openmpi.error.empty()) << openmpi.error;
  ASSERT_EQ(openmpi.round_failures.size(), 1U);
  EXPECT_EQ(openmpi.round_failures[0], "round 1 of 3: mpirun crashed");
  // The failed round's (absent) rows do not count: median of two is the upper.
  EXPECT_DOUBLE_EQ(row_for(openmpi, 1 << 20)->bandwidth_mbps, 478.1);
  EXPECT_DOUBLE_EQ(row_for(openmpi, 8)->latency_us, 6.2);
  EXPECT_DOUBLE_EQ(row_for(combined[0], 1 << 20)->bandwidth_mbps, 477.0);
}

TEST(CombineRounds, KeepsEveryRoundsOwnRowsInRoundOrder) {
  const auto combined = combine_rounds({{round_of("fixed", 9.4, 477.0)},
                                        {failed("fixed", "crashed")},
                                        {round_of("fixed", 8.1, 476.5)}});
  ASSERT_EQ(combined.size(), 1U);
  ASSERT_EQ(combined[0].round_rows.size(), 3U);
  ASSERT_NE(row_for(combined[0].round_rows[0], 8), nullptr);
  EXPECT_TRUE(combined[0].round_rows[1].empty());  // the failed round keeps its place
  ASSERT_NE(row_for(combined[0].round_rows[2], 8), nullptr);
  EXPECT_DOUBLE_EQ(row_for(combined[0].round_rows[0], 8)->latency_us, 9.4);
  EXPECT_DOUBLE_EQ(row_for(combined[0].round_rows[2], 8)->latency_us, 8.1);
  EXPECT_DOUBLE_EQ(row_for(combined[0], 8)->latency_us, 8.1);
}

TEST(PairedLatencyRatio, IsTheMedianOfEachRoundsOwnRatio) {
  // Both subjects slow in round 2: each one's lowest and median over the
  // run are far apart, the ratio within each round is not.
  const auto combined =
      combine_rounds({{round_of("fixed", 8.0, 477.0), round_of("raw", 7.0, 478.0)},
                      {round_of("fixed", 16.0, 470.0), round_of("raw", 15.0, 470.0)},
                      {round_of("fixed", 8.8, 477.0), round_of("raw", 8.0, 478.0)}});
  const SubjectResult& fixed = combined[0];
  const SubjectResult& raw = combined[1];
  const auto ratio = paired_latency_ratio({&fixed}, raw, 8);
  ASSERT_TRUE(ratio.has_value());
  EXPECT_DOUBLE_EQ(*ratio, 8.8 / 8.0);  // the median of 8/7, 16/15 and 1.1
  EXPECT_FALSE(paired_latency_ratio({&fixed}, raw, 4096).has_value());
}

TEST(PairedLatencyRatio, PairsOnlyRoundsBothFinishedAndTakesTheBestNumerator) {
  const auto combined = combine_rounds(
      {{round_of("fixed", 9.0, 477.0), round_of("striping", 8.0, 477.0), failed("raw", "crashed")},
       {round_of("fixed", 8.0, 477.0), round_of("striping", 12.0, 477.0),
        round_of("raw", 10.0, 478.0)},
       {failed("fixed", "crashed"), round_of("striping", 7.0, 477.0),
        round_of("raw", 5.0, 478.0)}});
  // Round 1 has no raw figure; round 2's best is fixed's 8.0; round 3 only striping's 7.0.
  const SubjectResult& fixed = combined[0];
  const SubjectResult& striping = combined[1];
  const auto ratio = paired_latency_ratio({&fixed, &striping}, combined[2], 8);
  ASSERT_TRUE(ratio.has_value());
  EXPECT_DOUBLE_EQ(*ratio, 1.4);  // of two, the upper (tools::median)
}

TEST(CombineRounds, TheMedianLatencyIsTheMiddleRoundsAndLeavesBandwidthAlone) {
  const auto combined = combine_rounds({{round_of("openmpi", 9.9, 477.0)},
                                        {round_of("openmpi", 7.9, 478.0)},
                                        {round_of("openmpi", 8.4, 476.0)}});
  const auto medians = with_median_latency(combined);
  ASSERT_EQ(medians.size(), 1U);
  EXPECT_DOUBLE_EQ(row_for(medians[0], 8)->latency_us, 8.4);
  EXPECT_DOUBLE_EQ(row_for(combined[0], 8)->latency_us, 7.9);
  EXPECT_DOUBLE_EQ(row_for(medians[0], 1 << 20)->bandwidth_mbps,
                   row_for(combined[0], 1 << 20)->bandwidth_mbps);
}

TEST(CombineRounds, ASubjectThatFailedInEveryRoundIsFailed) {
  const auto combined =
      combine_rounds({{failed("ofi_mrail", "hung")}, {failed("ofi_mrail", "hung again")}});
  ASSERT_EQ(combined.size(), 1U);
  EXPECT_EQ(combined[0].error, "hung again");
  EXPECT_TRUE(combined[0].rows.empty());
}

// One round's latencies at 8 B and 1 KiB.
SubjectResult latencies_of(const char* name, double latency_8, double latency_1k) {
  SubjectResult out;
  out.name = name;
  out.rows.push_back(Measurement{8, latency_8, 2.0});
  out.rows.push_back(Measurement{1024, latency_1k, 200.0});
  out.rows.push_back(Measurement{65536, -1, 477.0});
  return out;
}

TEST(SlowLaunches, CountsTheRoundsSlowAtMostSizes) {
  const auto combined = combine_rounds({{latencies_of("raw", 5.6, 6.0)},
                                        {latencies_of("raw", 7.6, 8.3)},  // slow at both
                                        {latencies_of("raw", 5.7, 8.2)},  // at one of two
                                        {failed("raw", "crashed")},
                                        {latencies_of("raw", 5.9, 6.1)},
                                        {latencies_of("raw", 6.8, 7.3)}});  // at both
  const SlowLaunches launches = slow_launches(combined.at(0), 1.2);
  EXPECT_EQ(launches.measured, 5U);
  EXPECT_EQ(launches.slow, 2U);
  // A looser threshold counts only the slowest.
  EXPECT_EQ(slow_launches(combined.at(0), 1.3).slow, 1U);
}

TEST(SlowLaunches, ASubjectWithoutLatencyHasNoLaunchesToJudge) {
  const auto combined =
      combine_rounds({{round_of("parallel", -1, 478.0)}, {round_of("parallel", -1, 477.0)}});
  const SlowLaunches launches = slow_launches(combined.at(0), 1.2);
  EXPECT_EQ(launches.measured, 0U);
  EXPECT_EQ(launches.slow, 0U);
}

}  // namespace
}  // namespace railyard::bench

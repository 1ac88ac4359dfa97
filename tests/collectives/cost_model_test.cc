// The cost model's arithmetic: what each step charges for, and that every
// algorithm prices a call, from two ranks to thousands.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "railyard/collectives/cost_model.h"
#include "railyard/collectives/registry.h"

namespace railyard::collectives {
namespace {

CostQuery query_of(std::uint64_t bytes, int hosts, int per_host) {
  return CostQuery{.bytes = bytes, .ranks = hosts * per_host, .shape = HostShape{hosts, per_host}};
}

TEST(CostModel, ABigMessageBetweenHostsTakesEveryRail) {
  const CostQuery query = query_of(0, 2, 1);
  const FabricModel& fabric = query.fabric;
  const double bytes = 1 << 20;
  EXPECT_DOUBLE_EQ(shift_step_us(query, bytes, 1),
                   fabric.latency_us + bytes / (fabric.rails * fabric.rail_bytes_per_us));
  // Below the stripe size one message has one rail.
  const double small = 4096;
  EXPECT_DOUBLE_EQ(shift_step_us(query, small, 1),
                   fabric.latency_us + small / fabric.rail_bytes_per_us);
}

TEST(CostModel, RanksOfOneHostShareItsRails) {
  // 2 hosts x 4: a shift by 4 sends every rank's block off its host, four
  // messages through one host's rails; a shift by 1 sends one.
  const CostQuery query = query_of(0, 2, 4);
  const double bytes = 1 << 20;
  const double one = shift_step_us(query, bytes, 1);
  const double four = shift_step_us(query, bytes, 4);
  const double transfer = bytes / (query.fabric.rails * query.fabric.rail_bytes_per_us);
  EXPECT_NEAR(four - query.fabric.latency_us, 4 * transfer, 1e-6);
  EXPECT_NEAR(one - query.fabric.latency_us, transfer, 1e-6);
  // 7 ranks on 2 hosts (4 and 3), priced rank by rank: a shift by 4
  // sends 3 blocks off each host and brings 3 in.
  const CostQuery uneven{.bytes = 0, .ranks = 7, .shape = HostShape{2, 0}};
  EXPECT_NEAR(shift_step_us(uneven, bytes, 4) - query.fabric.latency_us, 3 * transfer, 1e-6);
}

TEST(CostModel, RecursiveDoublingCrossesHostsOnlyFromTheHostSize) {
  const CostQuery query = query_of(0, 2, 4);
  const FabricModel& fabric = query.fabric;
  const double bytes = 1 << 20;
  // Partners 1 and 2 apart stay on the host: four copies share its memory.
  const double within = fabric.host_latency_us + bytes / (fabric.host_copy_bytes_per_us / 4);
  EXPECT_NEAR(xor_step_us(query, bytes, 1), within, 1e-6);
  EXPECT_NEAR(xor_step_us(query, bytes, 2), within, 1e-6);
  // 4 apart, all four ranks of a host send through its rails.
  EXPECT_NEAR(xor_step_us(query, bytes, 4),
              fabric.latency_us + 4 * bytes / (fabric.rails * fabric.rail_bytes_per_us), 1e-6);
}

TEST(CostModel, TheBinomialTreeCrossesBetweenTwoHostsOnce) {
  // 2 hosts x 2: rank 0 sends to rank 2 across, then 0 to 1 and 2 to 3
  // within each host.
  const CostQuery query = query_of(0, 2, 2);
  const FabricModel& fabric = query.fabric;
  const double bytes = 1 << 20;
  EXPECT_NEAR(tree_step_us(query, bytes, 2),
              fabric.latency_us + bytes / (fabric.rails * fabric.rail_bytes_per_us), 1e-6);
  EXPECT_LT(tree_step_us(query, bytes, 1),
            fabric.latency_us + bytes / fabric.copy_bytes_per_us + 1);
}

TEST(CostModel, TheRootsLinkCarriesAFan) {
  const CostQuery query = query_of(0, 4, 1);
  const double block = 1 << 20;
  EXPECT_NEAR(fan_step_us(query, block),
              query.fabric.latency_us +
                  3 * block / (query.fabric.rails * query.fabric.rail_bytes_per_us) +
                  2 * query.fabric.message_gap_us,  // the root posts three sends
              1e-6);
}

TEST(CostModel, LogarithmsOfRankCounts) {
  EXPECT_EQ(ceil_log2(1), 0);
  EXPECT_EQ(ceil_log2(2), 1);
  EXPECT_EQ(ceil_log2(5), 3);
  EXPECT_EQ(floor_pow2(1), 1);
  EXPECT_EQ(floor_pow2(6), 4);
  EXPECT_EQ(floor_pow2(4096), 4096);
}

TEST(CostModel, EveryAlgorithmPricesEveryShapeItServes) {
  for (const Algorithm* algorithm : all_algorithms()) {
    SCOPED_TRACE(std::string(algorithm->name) + " of " +
                 std::string(to_string(algorithm->collective)));
    for (const auto& [hosts, per_host] :
         {std::pair{2, 1}, std::pair{3, 2}, std::pair{64, 16}, std::pair{512, 8}}) {
      const double small = algorithm->cost(query_of(8, hosts, per_host));
      const double large = algorithm->cost(query_of(std::uint64_t{64} << 20, hosts, per_host));
      if (algorithm->name == "shared_segment") {
        EXPECT_TRUE(std::isinf(small));  // one host only
        continue;
      }
      if (algorithm->name == "split_rail" && per_host == 1) {
        EXPECT_TRUE(std::isinf(small));  // several ranks a host only
        continue;
      }
      EXPECT_GT(small, 0.0);
      EXPECT_TRUE(std::isfinite(large));
      // A barrier moves no vector; everything else takes longer for more.
      if (algorithm->collective != Collective::kBarrier) {
        EXPECT_GT(large, small);
      }
    }
  }
}

TEST(CostModel, SharedSegmentServesOneHost) {
  const Algorithm* segment = find_algorithm(Collective::kAllreduce, "shared_segment");
  ASSERT_NE(segment, nullptr);
  const double one_host = segment->cost(query_of(1 << 20, 1, 4));
  EXPECT_TRUE(std::isfinite(one_host));
  EXPECT_GT(one_host, 0.0);
}

TEST(CostModel, BandwidthBoundRingBeatsRecursiveDoublingOnManyHosts) {
  // The classic result the model must reproduce: at 64 MiB on 16 hosts the
  // ring moves 2(p-1)/p of the vector, recursive doubling log2 p of it.
  const CostQuery query = query_of(std::uint64_t{64} << 20, 16, 1);
  const Algorithm* ring = find_algorithm(Collective::kAllreduce, "ring");
  const Algorithm* doubling = find_algorithm(Collective::kAllreduce, "recursive_doubling");
  ASSERT_NE(ring, nullptr);
  ASSERT_NE(doubling, nullptr);
  EXPECT_LT(ring->cost(query), doubling->cost(query) / 1.5);
  // And at 8 bytes, latency rules: log2 p steps beat 2(p-1).
  const CostQuery tiny = query_of(8, 16, 1);
  EXPECT_LT(doubling->cost(tiny), ring->cost(tiny) / 3);
}

}  // namespace
}  // namespace railyard::collectives

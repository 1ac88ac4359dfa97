// Open MPI's choices as the projection models them: the algorithm its
// fixed decisions name for a communicator size and a size, priced with
// railyard's steps, from two ranks to thousands.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "railyard/collectives/registry.h"
#include "tools/railyard_info/openmpi_model.h"

namespace railyard::info {
namespace {

using collectives::Collective;
using collectives::CostQuery;
using collectives::HostShape;

constexpr std::uint64_t kKiB = 1024;

CostQuery query_of(std::uint64_t bytes, int hosts, int per_host) {
  return CostQuery{.bytes = bytes, .ranks = hosts * per_host, .shape = HostShape{hosts, per_host}};
}

TEST(OpenMpiModel, NamesTheAlgorithmOpenMpisDecisionPicks) {
  // Sizes are railyard's: the whole vector; Open MPI measures allgather,
  // alltoall and the rooted vector collectives by one rank's block.
  const auto picked = [](Collective collective, std::uint64_t bytes, int hosts, int per_host) {
    return std::string(openmpi_choice(collective, query_of(bytes, hosts, per_host)).algorithm);
  };
  EXPECT_EQ(picked(Collective::kAllreduce, 1 << 20, 2, 8), "rabenseifner");
  EXPECT_EQ(picked(Collective::kAllreduce, 1024, 2, 8), "recursive_doubling");
  EXPECT_EQ(picked(Collective::kAllreduce, 1024, 64, 8), "nonoverlapping");
  EXPECT_EQ(picked(Collective::kAllreduce, 100 << 10, 1, 2), "segmented_ring");
  EXPECT_EQ(picked(Collective::kBcast, 1 << 20, 8, 8), "knomial");
  EXPECT_EQ(picked(Collective::kBcast, 1 << 20, 512, 8), "scatter_allgather");
  EXPECT_EQ(picked(Collective::kBcast, 1 << 20, 2, 4), "basic_linear");
  EXPECT_EQ(picked(Collective::kBcast, 1 << 20, 2, 2), "chain");
  EXPECT_EQ(picked(Collective::kBarrier, 0, 32, 8), "tree");
  EXPECT_EQ(picked(Collective::kBarrier, 0, 64, 8), "bruck");
  EXPECT_EQ(picked(Collective::kAllgather, 2 << 20, 2, 1), "two_proc");
  EXPECT_EQ(picked(Collective::kAllgather, kKiB * 64 * 4, 8, 8), "neighbor");
  EXPECT_EQ(picked(Collective::kAlltoall, kKiB * 512 * 512, 64, 8), "pairwise");
  EXPECT_EQ(picked(Collective::kAlltoall, std::uint64_t{256} * 512, 64, 8), "modified_bruck");
  EXPECT_EQ(picked(Collective::kReduceScatter, kKiB * 16, 2, 8), "recursive_halving");
  EXPECT_EQ(picked(Collective::kScatter, kKiB * 1024 * 64, 8, 8), "linear_nb");
  EXPECT_EQ(picked(Collective::kGather, kKiB * 64, 8, 8), "binomial");
  // A v-form is priced as its equal form.
  EXPECT_EQ(picked(Collective::kAllgatherv, kKiB * 64 * 4, 8, 8), "neighbor");
}

TEST(OpenMpiModel, EveryAlgorithmADecisionNamesIsPriced) {
  // Every communicator size band and every size band of every decision:
  // the bands' bounds are powers of two.
  for (const Collective collective :
       {Collective::kBarrier, Collective::kBcast, Collective::kAllreduce, Collective::kAllgather,
        Collective::kReduceScatter, Collective::kReduce, Collective::kAlltoall, Collective::kGather,
        Collective::kScatter}) {
    for (const int ranks : {2,   3,   4,   6,   8,   12,  16,   24,   32,   48,   64,   96,
                            128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 8192}) {
      for (std::uint64_t block = 1; block <= (std::uint64_t{1} << 23); block *= 2) {
        const CostQuery query{.bytes = block * static_cast<std::uint64_t>(ranks),
                              .ranks = ranks,
                              .shape = HostShape{(ranks + 7) / 8, std::min(ranks, 8)}};
        const OpenMpiChoice choice = openmpi_choice(collective, query);
        ASSERT_TRUE(std::isfinite(choice.predicted_us) && choice.predicted_us > 0.0)
            << collectives::to_string(collective) << " on " << ranks << " ranks, " << query.bytes
            << " B: " << choice.algorithm << " priced " << choice.predicted_us;
        if (collective == Collective::kBarrier) {
          break;
        }
      }
    }
  }
}

TEST(OpenMpiModel, AnAlgorithmBothHaveCostsTheSame) {
  // Open MPI's segmented ring and railyard's ring take the same steps.
  const CostQuery query = query_of(100 << 10, 1, 2);
  const collectives::Algorithm* ring = collectives::find_algorithm(Collective::kAllreduce, "ring");
  ASSERT_NE(ring, nullptr);
  EXPECT_DOUBLE_EQ(openmpi_choice(Collective::kAllreduce, query).predicted_us, ring->cost(query));
}

TEST(OpenMpiModel, AnUnsegmentedChainPaysEveryHopInFull) {
  // 2 x 3 ranks at 2 MiB: Open MPI's chain passes the whole vector down 5
  // hops, one between the hosts; railyard's pipelined chain overlaps them.
  const CostQuery query = query_of(2 << 20, 2, 3);
  const auto& fabric = query.fabric;
  const double bytes = 2 << 20;
  const double expected =
      collectives::network_us(fabric, 1, bytes) + 4 * collectives::on_host_us(fabric, 1, bytes);
  const OpenMpiChoice chain = openmpi_choice(Collective::kBcast, query);
  ASSERT_EQ(chain.algorithm, "chain");
  EXPECT_NEAR(chain.predicted_us, expected, 1e-6);
  const collectives::Algorithm* pipeline =
      collectives::find_algorithm(Collective::kBcast, "pipeline");
  ASSERT_NE(pipeline, nullptr);
  EXPECT_LT(pipeline->cost(query), chain.predicted_us);
}

}  // namespace
}  // namespace railyard::info

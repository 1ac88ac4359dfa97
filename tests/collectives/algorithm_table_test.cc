// The algorithm table: every algorithm listed once with a description, the
// built-in choice, RAILYARD_ALGO's overrides and its errors.
#include "railyard/collectives/registry.h"
#include "railyard/collectives/selection.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

#include "railyard/common/error.h"

namespace railyard::collectives {
namespace {

TEST(AlgorithmTable, EveryAlgorithmHasAUniqueNameAndADescription) {
  std::set<std::pair<Collective, std::string_view>> seen;
  for (const Algorithm* entry : all_algorithms()) {
    const Algorithm& algorithm = *entry;
    EXPECT_TRUE(seen.emplace(algorithm.collective, algorithm.name).second) << algorithm.name;
    EXPECT_FALSE(algorithm.description.empty()) << algorithm.name;
    EXPECT_NE(algorithm.run, nullptr) << algorithm.name;
    EXPECT_EQ(&AlgorithmTable::named(algorithm.collective, algorithm.name), &algorithm);
  }
  for (const Collective collective :
       {Collective::kBarrier, Collective::kBcast, Collective::kAllreduce, Collective::kAllgather,
        Collective::kReduceScatter, Collective::kReduce, Collective::kAlltoall}) {
    EXPECT_EQ(collective_named(to_string(collective)), collective);
  }
}

TEST(AlgorithmTable, TheBuiltInChoiceGoesBySizeAndRanks) {
  const AlgorithmTable table;
  EXPECT_EQ(table.choose(Collective::kAllreduce, 8, 8).name, "recursive_doubling");
  EXPECT_EQ(table.choose(Collective::kAllreduce, 64 << 20, 8).name, "ring");
  EXPECT_EQ(table.choose(Collective::kAllreduce, 64 << 10, 8).name, "rabenseifner");
  EXPECT_EQ(table.choose(Collective::kAllreduce, 64 << 10, 2).name, "recursive_doubling");
  // Two ranks: the ring's two steps move what one swap moves.
  EXPECT_EQ(table.choose(Collective::kAllreduce, 64 << 20, 2).name, "recursive_doubling");
  EXPECT_EQ(table.choose(Collective::kBarrier, 0, 5).name, "dissemination");
  EXPECT_EQ(table.choose(Collective::kBcast, 1 << 20, 5).name, "scatter_allgather");
  EXPECT_EQ(table.choose(Collective::kBcast, 1 << 20, 2).name, "binomial");
  EXPECT_EQ(table.choose(Collective::kBcast, 1024, 5).name, "binomial");
  // Over several hosts a long vector goes down the pipelined chain; on one
  // host the ranks keep the scatter and allgather.
  EXPECT_EQ(table.choose(Collective::kBcast, 1 << 20, 4, HostShape{2, 2}).name, "pipeline");
  EXPECT_EQ(table.choose(Collective::kBcast, 1 << 20, 4, HostShape{4, 1}).name, "pipeline");
  EXPECT_EQ(table.choose(Collective::kBcast, 1 << 20, 5, HostShape{2, 0}).name, "pipeline");
  // From 64 KiB on three hosts or more, 128 KiB on two.
  EXPECT_EQ(table.choose(Collective::kBcast, 64 << 10, 4, HostShape{4, 1}).name, "pipeline");
  EXPECT_EQ(table.choose(Collective::kBcast, 64 << 10, 4, HostShape{2, 2}).name, "binomial");
  EXPECT_EQ(table.choose(Collective::kBcast, 128 << 10, 4, HostShape{2, 2}).name, "pipeline");
  EXPECT_EQ(table.choose(Collective::kBcast, 1 << 20, 4, HostShape{1, 4}).name,
            "scatter_allgather");
  // Short allgathers: pairs r xor d with one rank a host, Bruck's shifts
  // with several.
  EXPECT_EQ(table.choose(Collective::kAllgather, 1024, 5).name, "bruck");
  EXPECT_EQ(table.choose(Collective::kAllgather, 1024, 4, HostShape{4, 1}).name,
            "recursive_doubling");
  EXPECT_EQ(table.choose(Collective::kAllgather, 1024, 4, HostShape{2, 2}).name, "bruck");
  EXPECT_EQ(table.choose(Collective::kAllgather, 1 << 20, 5).name, "ring");
  // With one rank on each of 4 hosts the doubling exchanges carry on up
  // to 1 MiB; on 3, the ring takes over from 64 KiB.
  EXPECT_EQ(table.choose(Collective::kAllgather, 256 << 10, 4, HostShape{4, 1}).name,
            "recursive_doubling");
  EXPECT_EQ(table.choose(Collective::kAllgather, 256 << 10, 3, HostShape{3, 1}).name, "ring");
  EXPECT_EQ(table.choose(Collective::kAllgather, 256 << 10, 4, HostShape{2, 2}).name, "ring");
  EXPECT_EQ(table.choose(Collective::kAllgather, 1 << 20, 4, HostShape{4, 1}).name, "ring");
  EXPECT_EQ(table.choose(Collective::kReduce, 1 << 20, 5).name, "binomial");
  EXPECT_EQ(table.choose(Collective::kAlltoall, 1 << 20, 5).name, "pairwise");
  // Rows by one rank's block: 4 KiB on 4 ranks is 1 KiB a block.
  EXPECT_EQ(table.choose(Collective::kReduceScatter, 4096, 4).name, "recursive_halving");
  EXPECT_EQ(table.choose(Collective::kReduceScatter, 64 << 10, 4).name, "ring");
  EXPECT_EQ(table.choose(Collective::kAlltoall, 512, 4).name, "bruck");
  EXPECT_EQ(table.choose(Collective::kAlltoall, 4096, 4).name, "pairwise");
  EXPECT_EQ(table.choose(Collective::kGather, std::size_t{64} * 100, 64).name, "binomial");
  EXPECT_EQ(table.choose(Collective::kGather, std::size_t{64} * 100, 8).name, "linear");
  EXPECT_EQ(table.choose(Collective::kScatter, std::size_t{512} * 4096, 512).name, "binomial");
  EXPECT_EQ(table.choose(Collective::kScatter, std::size_t{512} * 8192, 512).name, "linear");
}

TEST(AlgorithmTable, PastTheTestbedTheRowsFollowTheCostModel) {
  const AlgorithmTable table;
  // The chain fills a segment's time per host: on 512 hosts from 4 MiB.
  EXPECT_EQ(table.choose(Collective::kBcast, 1 << 20, 4096, HostShape{512, 8}).name, "binomial");
  EXPECT_EQ(table.choose(Collective::kBcast, 8 << 20, 4096, HostShape{512, 8}).name, "pipeline");
  EXPECT_EQ(table.choose(Collective::kBcast, 512 << 10, 64, HostShape{8, 8}).name, "pipeline");
  EXPECT_EQ(table.choose(Collective::kBcast, 512 << 10, 512, HostShape{64, 8}).name, "binomial");
  // Split-rail from 16 KiB up to 4 ranks a host, from 1 MiB beyond.
  EXPECT_EQ(table.choose(Collective::kAllreduce, 64 << 10, 16, HostShape{4, 4}).name, "split_rail");
  EXPECT_EQ(table.choose(Collective::kAllreduce, 64 << 10, 64, HostShape{8, 8}).name,
            "rabenseifner");
  EXPECT_EQ(table.choose(Collective::kAllreduce, 2 << 20, 64, HostShape{8, 8}).name, "split_rail");
  EXPECT_EQ(table.choose(Collective::kAllreduce, 8 << 10, 64, HostShape{8, 8}).name,
            "rabenseifner");
}

TEST(AlgorithmTable, OverridesApplyToTheirRangesOnly) {
  const AlgorithmTable table("RAILYARD_ALGO",
                             "allreduce:0-8k:ring; allreduce:8k-inf:recursive_doubling;");
  EXPECT_EQ(table.choose(Collective::kAllreduce, 0, 4).name, "ring");
  EXPECT_EQ(table.choose(Collective::kAllreduce, 8191, 4).name, "ring");
  EXPECT_EQ(table.choose(Collective::kAllreduce, 8192, 4).name, "recursive_doubling");
  EXPECT_EQ(table.choose(Collective::kAllreduce, std::size_t{1} << 40, 4).name,
            "recursive_doubling");
  // Other collectives keep the built-in choice.
  EXPECT_EQ(table.choose(Collective::kBcast, 8, 4).name, "binomial");
}

void expect_refused(const std::string& spec, const std::string& part) {
  try {
    (void)AlgorithmTable("RAILYARD_ALGO", spec);
    ADD_FAILURE() << "accepted " << spec;
  } catch (const ConfigError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("RAILYARD_ALGO"), std::string::npos) << message;
    EXPECT_NE(message.find(part), std::string::npos) << message;
  }
}

TEST(AlgorithmTable, EveryBadEntryIsRefusedNamingIt) {
  expect_refused("allreduce:0-8k", "not COLLECTIVE:FROM-TO:ALGORITHM");
  expect_refused("allreduse:0-8k:ring", "no collective 'allreduse'");
  expect_refused("allreduce:0-8k:rign",
                 "no allreduce algorithm 'rign'; there are rabenseifner, recursive_doubling, ring");
  expect_refused("allreduce:8k-8k:ring", "range '8k-8k'");
  expect_refused("allreduce:8k-1k:ring", "range '8k-1k'");
  expect_refused("allreduce:x-1k:ring", "range 'x-1k'");
  expect_refused("allreduce:0-:ring", "range '0-'");
  expect_refused("bcast:0-inf:ring", "no bcast algorithm 'ring'; there are binomial, pipeline");
}

TEST(AlgorithmTable, AnUnknownNameAskedByACallIsAUsageErrorListingTheOthers) {
  try {
    (void)AlgorithmTable::named(Collective::kAllgather, "neighbor");
    ADD_FAILURE() << "found neighbor";
  } catch (const UsageError& error) {
    EXPECT_NE(
        std::string(error.what())
            .find("allgather has no algorithm 'neighbor'; it has bruck, recursive_doubling, ring"),
        std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace railyard::collectives

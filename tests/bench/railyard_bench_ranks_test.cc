// railyard-bench's sweep on ranks as threads over the rails: every
// operation measured and checked, out of place and in place, on rank
// counts that are not powers of two, and the rows' figures consistent.
#include <gtest/gtest.h>

#include <string>

#include "railyard/common/error.h"
#include "railyard_bench_comm.h"
#include "sweep.h"
#include "thread_ranks.h"

namespace railyard::bench {
namespace {

using collectives::DataType;
using collectives::ReduceOp;

void expect_checked_clean(const Measurement& measured) {
  ASSERT_TRUE(measured.wrong.has_value());
  EXPECT_EQ(*measured.wrong, 0U);
  EXPECT_GT(measured.time_us, 0.0);
  // The slowest rank's time is at least the ranks' average (to rounding).
  EXPECT_GE(measured.max_time_us * (1 + 1e-9), measured.time_us);
}

TEST(BenchSweepOnRanks, EveryOperationChecksCleanInAndOutOfPlace) {
  for (const int ranks : {1, 3, 5}) {
    SCOPED_TRACE(ranks);
    testing::expect_clean(testing::run_ranks(ranks, [&](comm::Communicator& world) {
      RailyardBenchComm bench(world, "");
      for (const Operation operation :
           {Operation::kAllreduce, Operation::kBcast, Operation::kReduce, Operation::kAllgather,
            Operation::kReduceScatter, Operation::kAlltoall, Operation::kBarrier,
            Operation::kSendrecv, Operation::kGather, Operation::kScatter, Operation::kAllgatherv,
            Operation::kAlltoallv, Operation::kReduceScatterv}) {
        SweepOptions options{.operation = operation,
                             .type = DataType::kBfloat16,
                             .op = ReduceOp::kMax,
                             .root = ranks - 1,
                             .iterations = 2,
                             .warmup = 1,
                             .check = true};
        Sweep sweep(bench, options, 70000);
        for (const std::size_t bytes :
             {std::size_t{0}, std::size_t{14}, std::size_t{8198}, std::size_t{70000}}) {
          const Row row = sweep.measure(bytes);
          SCOPED_TRACE(std::string(to_string(operation)) + " " + std::to_string(bytes));
          expect_checked_clean(row.out_of_place);
          EXPECT_EQ(row.in_place.has_value(), has_in_place(operation));
          if (row.in_place) {
            expect_checked_clean(*row.in_place);
          }
          EXPECT_NEAR(row.out_of_place.busbw_gbps,
                      row.out_of_place.algbw_gbps * bus_factor(operation, ranks), 1e-12);
        }
      }
    }));
  }
}

TEST(BenchSweepOnRanks, EveryCallNamesTheAlgorithmGiven) {
  testing::expect_clean(testing::run_ranks(3, [&](comm::Communicator& world) {
    RailyardBenchComm bench(world, "recursive_doubling");
    Sweep sweep(bench, SweepOptions{.iterations = 1, .warmup = 0}, 1 << 20);
    expect_checked_clean(sweep.measure(1 << 20).out_of_place);
    EXPECT_EQ(bench.library(), "railyard");
    EXPECT_NE(bench.paths().find("rails "), std::string::npos);
    // A name the collective lacks reaches the library, which refuses it.
    RailyardBenchComm unknown(world, "no_such_algorithm");
    Sweep refused(unknown, SweepOptions{.iterations = 1, .warmup = 0}, 64);
    EXPECT_THROW((void)refused.measure(64), railyard::UsageError);
  }));
}

}  // namespace
}  // namespace railyard::bench

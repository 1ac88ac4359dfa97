// Every collective algorithm, forced by name, on ranks run as threads of
// this process (each with its own endpoint on two loopback rails), for
// several rank counts (powers of two and not) and vector lengths (empty, one
// element, odd, and past the rendezvous threshold), in place and not,
// blocking and not, against a reference computed here.
#include "railyard/comm/collectives.h"
#include "railyard/collectives/registry.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "railyard/collectives/allreduce/recursive_doubling.h"
#include "railyard/collectives/allreduce/split_rail.h"
#include "railyard/collectives/detail/ring.h"
#include "railyard/common/error.h"
#include "thread_ranks.h"

namespace railyard::comm {
namespace {

using testing::expect_clean;
using testing::run_ranks;
using namespace std::chrono_literals;

// Lengths in elements: empty, one, odd, and 1 MiB of floats plus 3 (past
// the rendezvous threshold, and not a multiple of any rank count here).
constexpr std::size_t kCounts[] = {0, 1, 7, 1027, (std::size_t{1} << 18) + 3};

// A value every rank can compute for (rank, element), exact in float so that
// any order of summing gives the same sum.
float value(int rank, std::size_t i) {
  return static_cast<float>((rank + 1) * static_cast<int>(i % 13) - rank);
}

// An algorithm on a number of ranks, which talk over shared memory (the
// ranks share this host) or, with `rails`, over the loopback rails.
struct Case {
  std::string algorithm;
  int ranks;
  bool rails = false;

  [[nodiscard]] CollectiveOptions forced() const { return CollectiveOptions{algorithm}; }
  [[nodiscard]] CommunicatorOptions communicator() const {
    CommunicatorOptions options;
    // A rank that fails a check leaves; the others then end with an error
    // instead of waiting for it until the test's own timeout.
    options.timeout = std::chrono::seconds(60);
    options.shared_memory = rails ? SharedMemoryMode::kOff : SharedMemoryMode::kAuto;
    return options;
  }
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return info.param.algorithm + "_" + std::to_string(info.param.ranks) + "ranks" +
         (info.param.rails ? "_rails" : "");
}

// An allreduce of `count` floats summed, out of place (its send buffer left
// as it was), and of `count` int32 maxima, in place through the
// non-blocking form, against the reference (stops at the first wrong
// element).
void expect_sums_and_maxima(const Communicator& comm, std::size_t count,
                            const CollectiveOptions& options) {
  std::vector<float> in(count);
  for (std::size_t i = 0; i < count; ++i) {
    in[i] = value(comm.rank(), i);
  }
  std::vector<float> out(count, -1.0F);
  allreduce(comm, in.data(), out.data(), count, DataType::kFloat32, ReduceOp::kSum, options);
  std::vector<std::int32_t> maxima(count);
  for (std::size_t i = 0; i < count; ++i) {
    maxima[i] = static_cast<std::int32_t>(value(comm.rank(), i));
  }
  Request pending =
      iallreduce(comm, kInPlace, maxima.data(), count, DataType::kInt32, ReduceOp::kMax, options);
  pending.wait();
  for (std::size_t i = 0; i < count; ++i) {
    float sum = 0;
    std::int32_t top = INT32_MIN;
    for (int r = 0; r < comm.size(); ++r) {
      sum += value(r, i);
      top = std::max(top, static_cast<std::int32_t>(value(r, i)));
    }
    ASSERT_EQ(out[i], sum) << "count " << count << ", element " << i;
    ASSERT_EQ(maxima[i], top) << "count " << count << ", element " << i;
    // Out of place, the send buffer is only read.
    ASSERT_EQ(in[i], value(comm.rank(), i)) << "count " << count << ", send element " << i;
  }
}

class AllreduceAlgorithm : public ::testing::TestWithParam<Case> {};

TEST_P(AllreduceAlgorithm, SumsAndMaximaMatchTheReferenceInPlaceAndNot) {
  const Case c = GetParam();
  const CollectiveOptions options = c.forced();
  expect_clean(run_ranks(
      c.ranks,
      [&](Communicator& comm) {
        for (const std::size_t count : kCounts) {
          expect_sums_and_maxima(comm, count, options);
        }
      },
      c.communicator()));
}

// Vectors whose ring blocks span several segments (kRingSegmentBytes),
// with blocks of unequal length: the ring allreduce and reduce-scatter,
// out of place and in place, against the reference.
TEST(RingSegments, LargeVectorsReduceInSegmentsToTheReference) {
  for (const int ranks : {2, 3}) {
    SCOPED_TRACE(ranks);
    const std::size_t per_rank = (collectives::detail::kRingSegmentBytes / sizeof(float)) * 2 + 5;
    const std::size_t count = per_rank * static_cast<std::size_t>(ranks) + 1;
    expect_clean(run_ranks(ranks, [&](Communicator& comm) {
      const CollectiveOptions ring{"ring"};
      std::vector<float> in(count);
      for (std::size_t i = 0; i < count; ++i) {
        in[i] = value(comm.rank(), i);
      }
      const auto expected = [&](std::size_t i) {
        float sum = 0;
        for (int r = 0; r < ranks; ++r) {
          sum += value(r, i);
        }
        return sum;
      };
      std::vector<float> out(count, -1.0F);
      allreduce(comm, in.data(), out.data(), count, DataType::kFloat32, ReduceOp::kSum, ring);
      std::vector<float> in_place = in;
      allreduce(comm, kInPlace, in_place.data(), count, DataType::kFloat32, ReduceOp::kSum, ring);
      for (std::size_t i = 0; i < count; ++i) {
        ASSERT_EQ(out[i], expected(i)) << "element " << i;
        ASSERT_EQ(in_place[i], expected(i)) << "element " << i << ", in place";
      }
      std::vector<float> block(per_rank, -1.0F);
      reduce_scatter(comm, in.data(), block.data(), per_rank, DataType::kFloat32, ReduceOp::kSum,
                     ring);
      const std::size_t first = per_rank * static_cast<std::size_t>(comm.rank());
      for (std::size_t i = 0; i < per_rank; ++i) {
        ASSERT_EQ(block[i], expected(first + i)) << "element " << i << " of the block";
      }
    }));
  }
}

// Recursive doubling swaps long vectors (from kSegmentedSwapFrom) in
// segments of kRingSegmentBytes, each reduced as it arrives: a vector of
// many segments and a short last one, out of place and in place, on 2 ranks
// (one swap) and 4 (two), and on 3 (a folded rank), against the reference.
TEST(DoublingSegments, LongVectorsSwapInSegmentsToTheReference) {
  for (const int ranks : {2, 3, 4}) {
    SCOPED_TRACE(ranks);
    const std::size_t count =
        (collectives::detail::kSegmentedSwapFrom + collectives::detail::kRingSegmentBytes / 2) /
            sizeof(float) +
        5;
    expect_clean(run_ranks(ranks, [&](Communicator& comm) {
      const CollectiveOptions doubling{"recursive_doubling"};
      std::vector<float> in(count);
      for (std::size_t i = 0; i < count; ++i) {
        in[i] = value(comm.rank(), i);
      }
      std::vector<float> out(count, -1.0F);
      allreduce(comm, in.data(), out.data(), count, DataType::kFloat32, ReduceOp::kSum, doubling);
      std::vector<float> in_place = in;
      allreduce(comm, kInPlace, in_place.data(), count, DataType::kFloat32, ReduceOp::kSum,
                doubling);
      for (std::size_t i = 0; i < count; ++i) {
        float sum = 0;
        for (int r = 0; r < ranks; ++r) {
          sum += value(r, i);
        }
        ASSERT_EQ(out[i], sum) << "element " << i;
        ASSERT_EQ(in_place[i], sum) << "element " << i << ", in place";
      }
    }));
  }
}

// Ranks run as threads that stand for ranks of several hosts
// (CommunicatorOptions::host_id): ranks of one host talk over shared
// memory, the hosts over the loopback rails. `hosts` x `per_host` ranks,
// host h holding ranks h*per_host .. (h+1)*per_host-1, or, with
// `interleaved`, ranks h, h+hosts, h+2*hosts, ...
struct HostLayout {
  int hosts;
  int per_host;
  bool interleaved = false;

  [[nodiscard]] int ranks() const { return hosts * per_host; }
  [[nodiscard]] int host_of(int rank) const { return interleaved ? rank % hosts : rank / per_host; }
};

// The split-rail allreduce on 2x2, 3x2 and 2x3 ranks (and 2x2 with the
// hosts' ranks interleaved), with vectors that are empty, odd, and long
// enough for several pipeline segments per lane: sums and maxima against
// the reference, in place, non-blocking; random floats bitwise equal on
// every rank; the built-in table choosing it from 1 MiB only there.
TEST(SplitRail, HostsWithSeveralRanksEachReduceToTheReferenceWithTheSameBits) {
  constexpr std::size_t kSegmentFloats =
      collectives::detail::kSplitRailSegmentBytes / sizeof(float);
  // The last: two segments for every lane, and a short one.
  const std::size_t counts[] = {0,
                                1,
                                7,
                                1027,
                                (std::size_t{1} << 18) + 3,
                                kSegmentFloats * collectives::detail::kSplitRailLanes * 2 + 11};
  for (const HostLayout layout :
       {HostLayout{2, 2}, HostLayout{3, 2}, HostLayout{2, 3}, HostLayout{2, 2, true}}) {
    SCOPED_TRACE(fmt::format("{} hosts x {} ranks{}", layout.hosts, layout.per_host,
                             layout.interleaved ? ", interleaved" : ""));
    const CollectiveOptions split{"split_rail"};
    std::vector<std::vector<std::uint32_t>> bits(static_cast<std::size_t>(layout.ranks()));
    CommunicatorOptions options;
    options.timeout = std::chrono::seconds(120);
    expect_clean(run_ranks(
        layout.ranks(),
        [&](Communicator& comm) {
          ASSERT_EQ(comm.host_count(), layout.hosts);
          ASSERT_EQ(comm.ranks_per_host(), layout.per_host);
          const collectives::HostShape shape{comm.host_count(), comm.ranks_per_host()};
          EXPECT_EQ(comm.options()
                        .algorithms
                        .choose(collectives::Collective::kAllreduce, std::size_t{16} << 10,
                                comm.size(), shape)
                        .name,
                    "split_rail");
          EXPECT_NE(comm.options()
                        .algorithms
                        .choose(collectives::Collective::kAllreduce, std::size_t{8} << 10,
                                comm.size(), shape)
                        .name,
                    "split_rail");
          for (int peer = 0; peer < comm.size(); ++peer) {
            if (peer != comm.rank()) {
              EXPECT_EQ(comm.shares_memory_with(peer),
                        layout.host_of(peer) == layout.host_of(comm.rank()))
                  << "peer " << peer;
            }
          }
          for (const std::size_t count : counts) {
            expect_sums_and_maxima(comm, count, split);
          }
          std::mt19937 random(static_cast<unsigned>(comm.rank()) + 1U);
          std::uniform_real_distribution<float> any(-1e3F, 1e3F);
          std::vector<float> data(kSegmentFloats + 40009);
          for (float& x : data) {
            x = any(random);
          }
          allreduce(comm, kInPlace, data.data(), data.size(), DataType::kFloat32, ReduceOp::kSum,
                    split);
          auto& mine = bits[static_cast<std::size_t>(comm.rank())];
          for (const float x : data) {
            mine.push_back(std::bit_cast<std::uint32_t>(x));
          }
        },
        options, [&](int rank) { return layout.host_of(rank); }));
    for (std::size_t r = 1; r < bits.size(); ++r) {
      EXPECT_EQ(bits[r], bits[0]) << "rank " << r;
    }
  }
}

// Hosts with different numbers of ranks have no split: the table keeps the
// flat algorithms, and split_rail forced runs the flat one, to the same
// result.
TEST(SplitRail, UnevenHostsFallBackToTheFlatAllreduce) {
  const auto host_of = [](int rank) { return rank < 2 ? 0 : 1; };
  expect_clean(run_ranks(
      3,
      [&](Communicator& comm) {
        EXPECT_EQ(comm.host_count(), 2);
        EXPECT_EQ(comm.ranks_per_host(), 0);
        EXPECT_NE(
            comm.options()
                .algorithms
                .choose(collectives::Collective::kAllreduce, std::size_t{8} << 20, comm.size(),
                        collectives::HostShape{comm.host_count(), comm.ranks_per_host()})
                .name,
            "split_rail");
        const std::size_t count = (std::size_t{1} << 18) + 3;
        std::vector<float> data(count);
        for (std::size_t i = 0; i < count; ++i) {
          data[i] = value(comm.rank(), i);
        }
        allreduce(comm, kInPlace, data.data(), count, DataType::kFloat32, ReduceOp::kSum,
                  CollectiveOptions{"split_rail"});
        for (std::size_t i = 0; i < count; ++i) {
          ASSERT_EQ(data[i], value(0, i) + value(1, i) + value(2, i)) << "element " << i;
        }
      },
      CommunicatorOptions{}, host_of));
}

// Bytes a rank moved over the network rails: what it sent, and what it read
// (a rendezvous message's data is counted once, by the rank that reads it).
std::uint64_t network_bytes(const Communicator& comm) {
  std::uint64_t bytes = 0;
  for (const auto& rail : comm.counters().rails) {
    if (!rail.host_only) {
      bytes += rail.rail.bytes_sent + rail.rail.bytes_read + rail.rail.bytes_written;
    }
  }
  return bytes;
}

// Rabenseifner's halving takes the nearest partner first. On 2 hosts x 2
// ranks numbered host by host (as launchers number them), the halves of the
// vector then cross within each host and only quarters cross the network:
// each rank moves half the vector over the network rails. The farthest
// partner first had each move the whole vector.
TEST(Rabenseifner, OnTwoHostsOfTwoRanksOnlyQuartersOfTheVectorCrossTheNetwork) {
  constexpr std::size_t kCount = std::size_t{1} << 19;  // 2 MiB of floats
  constexpr std::uint64_t kBytes = kCount * sizeof(float);
  expect_clean(run_ranks(
      4,
      [&](Communicator& comm) {
        ASSERT_EQ(comm.host_count(), 2);
        std::vector<float> data(kCount);
        for (std::size_t i = 0; i < kCount; ++i) {
          data[i] = value(comm.rank(), i);
        }
        const std::uint64_t before = network_bytes(comm);
        allreduce(comm, kInPlace, data.data(), kCount, DataType::kFloat32, ReduceOp::kSum,
                  CollectiveOptions{"rabenseifner"});
        const std::uint64_t moved = network_bytes(comm) - before;
        EXPECT_GE(moved, kBytes / 2) << "rank " << comm.rank();
        EXPECT_LT(moved, kBytes * 3 / 4) << "rank " << comm.rank();
        for (std::size_t i = 0; i < kCount; ++i) {
          ASSERT_EQ(data[i], value(0, i) + value(1, i) + value(2, i) + value(3, i))
              << "element " << i;
        }
      },
      CommunicatorOptions{}, [](int rank) { return rank / 2; }));
}

// Random floats, whose sum depends on the order of adding: every rank must
// still get the same bits.
TEST_P(AllreduceAlgorithm, FloatResultsAreBitwiseEqualOnEveryRank) {
  const Case c = GetParam();
  constexpr std::size_t kCount = 40009;
  std::vector<std::vector<std::uint32_t>> results(static_cast<std::size_t>(c.ranks));
  expect_clean(run_ranks(
      c.ranks,
      [&](Communicator& comm) {
        std::mt19937 random(static_cast<unsigned>(comm.rank()) + 1U);
        std::uniform_real_distribution<float> any(-1e3F, 1e3F);
        std::vector<float> data(kCount);
        for (float& x : data) {
          x = any(random);
        }
        allreduce(comm, kInPlace, data.data(), kCount, DataType::kFloat32, ReduceOp::kSum,
                  c.forced());
        auto& mine = results[static_cast<std::size_t>(comm.rank())];
        for (const float x : data) {
          mine.push_back(std::bit_cast<std::uint32_t>(x));
        }
      },
      c.communicator()));
  for (int r = 1; r < c.ranks; ++r) {
    EXPECT_EQ(results[static_cast<std::size_t>(r)], results[0]) << "rank " << r;
  }
}

std::vector<Case> cases_of(collectives::Collective collective) {
  std::vector<Case> out;
  for (const collectives::Algorithm* entry : collectives::all_algorithms()) {
    const collectives::Algorithm& algorithm = *entry;
    if (algorithm.collective == collective) {
      for (const int ranks : {1, 2, 3, 5, 8}) {
        out.push_back(Case{std::string(algorithm.name), ranks});
      }
      for (const int ranks : {3, 4}) {
        out.push_back(Case{std::string(algorithm.name), ranks, true});
      }
    }
  }
  return out;
}

// Per-rank block lengths of the block collectives: empty, one, odd, and
// past the rendezvous threshold.
constexpr std::size_t kBlockCounts[] = {0, 1, 1027, 70001};

// Runs check(case, comm, count, in_place) on the case's ranks for every
// block length, out of place and in place.
template <typename Check>
void for_each_block_and_placement(const Case& c, Check check) {
  expect_clean(run_ranks(
      c.ranks,
      [&](Communicator& comm) {
        for (const std::size_t count : kBlockCounts) {
          for (const bool in_place : {false, true}) {
            check(c, comm, count, in_place);
          }
        }
      },
      c.communicator()));
}

// Runs check(case, comm, root, count) on the case's ranks for the first,
// last and middle rank as the root and every vector length.
template <typename Check>
void for_each_root_and_count(const Case& c, Check check) {
  expect_clean(run_ranks(
      c.ranks,
      [&](Communicator& comm) {
        for (const int root : {0, comm.size() - 1, comm.size() / 2}) {
          for (const std::size_t count : kCounts) {
            check(c, comm, root, count);
          }
        }
      },
      c.communicator()));
}

INSTANTIATE_TEST_SUITE_P(Collectives, AllreduceAlgorithm,
                         ::testing::ValuesIn(cases_of(collectives::Collective::kAllreduce)),
                         case_name);

class BcastAlgorithm : public ::testing::TestWithParam<Case> {};

TEST_P(BcastAlgorithm, EveryRankGetsTheRootsVectorFromAnyRoot) {
  for_each_root_and_count(
      GetParam(), [](const Case& c, Communicator& comm, int root, std::size_t count) {
        const auto expected = [root](std::size_t i) {
          return static_cast<std::uint8_t>(i * 7 + static_cast<std::size_t>(root));
        };
        std::vector<std::uint8_t> data(count, 0);
        if (comm.rank() == root) {
          for (std::size_t i = 0; i < count; ++i) {
            data[i] = expected(i);
          }
        }
        bcast(comm, data.data(), count, DataType::kUint8, root, c.forced());
        for (std::size_t i = 0; i < count; ++i) {
          ASSERT_EQ(data[i], expected(i)) << "root " << root << ", count " << count << ", i " << i;
        }
      });
}

INSTANTIATE_TEST_SUITE_P(Collectives, BcastAlgorithm,
                         ::testing::ValuesIn(cases_of(collectives::Collective::kBcast)), case_name);

class AllgatherAlgorithm : public ::testing::TestWithParam<Case> {};

TEST_P(AllgatherAlgorithm, EveryRankGetsEveryBlockInRankOrder) {
  for_each_block_and_placement(
      GetParam(), [](const Case& c, Communicator& comm, std::size_t count, bool in_place) {
        const auto size = static_cast<std::size_t>(comm.size());
        std::vector<std::uint64_t> mine(count);
        std::vector<std::uint64_t> all(count * size, 0);
        for (std::size_t i = 0; i < count; ++i) {
          mine[i] = (static_cast<std::uint64_t>(comm.rank()) << 32) | i;
        }
        if (in_place) {
          std::copy(mine.begin(), mine.end(),
                    all.begin() +
                        static_cast<std::ptrdiff_t>(count * static_cast<std::size_t>(comm.rank())));
        }
        Request pending = iallgather(comm, in_place ? kInPlace : mine.data(), all.data(), count,
                                     DataType::kUint64, c.forced());
        pending.wait();
        for (std::size_t r = 0; r < size; ++r) {
          for (std::size_t i = 0; i < count; ++i) {
            ASSERT_EQ(all[r * count + i], (r << 32) | i) << "block " << r << ", count " << count;
          }
        }
      });
}

INSTANTIATE_TEST_SUITE_P(Collectives, AllgatherAlgorithm,
                         ::testing::ValuesIn(cases_of(collectives::Collective::kAllgather)),
                         case_name);

class ReduceScatterAlgorithm : public ::testing::TestWithParam<Case> {};

TEST_P(ReduceScatterAlgorithm, RankRGetsBlockROfTheSum) {
  for_each_block_and_placement(GetParam(), [](const Case& c, Communicator& comm, std::size_t count,
                                              bool in_place) {
    const auto size = static_cast<std::size_t>(comm.size());
    std::vector<std::int64_t> in(count * size);
    for (std::size_t j = 0; j < in.size(); ++j) {
      in[j] = static_cast<std::int64_t>(j) * (comm.rank() + 1);
    }
    std::vector<std::int64_t> out(in_place ? 0 : count);
    std::int64_t* result = in_place ? in.data() : out.data();
    reduce_scatter(comm, in_place ? kInPlace : in.data(), result, count, DataType::kInt64,
                   ReduceOp::kSum, c.forced());
    const auto ranks = static_cast<std::int64_t>(size);
    for (std::size_t i = 0; i < count; ++i) {
      const auto j = static_cast<std::int64_t>(static_cast<std::size_t>(comm.rank()) * count + i);
      ASSERT_EQ(result[i], j * ranks * (ranks + 1) / 2) << "count " << count << ", i " << i;
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Collectives, ReduceScatterAlgorithm,
                         ::testing::ValuesIn(cases_of(collectives::Collective::kReduceScatter)),
                         case_name);

class ReduceAlgorithm : public ::testing::TestWithParam<Case> {};

TEST_P(ReduceAlgorithm, TheRootGetsTheReductionFromAnyRoot) {
  for_each_root_and_count(
      GetParam(), [](const Case& c, Communicator& comm, int root, std::size_t count) {
        for (const bool in_place : {false, true}) {
          std::vector<double> in(count);
          for (std::size_t i = 0; i < count; ++i) {
            in[i] = static_cast<double>(value(comm.rank(), i));
          }
          const bool at_root = comm.rank() == root;
          std::vector<double> out(at_root ? count : 0, -7.0);
          const void* send = in.data();
          if (at_root && in_place) {
            out = in;
            send = kInPlace;
          }
          Request pending = ireduce(comm, send, out.data(), count, DataType::kFloat64,
                                    ReduceOp::kSum, root, c.forced());
          pending.wait();
          for (std::size_t i = 0; i < out.size(); ++i) {
            double sum = 0;
            for (int r = 0; r < comm.size(); ++r) {
              sum += value(r, i);
            }
            ASSERT_EQ(out[i], sum) << "root " << root << ", count " << count << ", i " << i;
          }
        }
      });
}

INSTANTIATE_TEST_SUITE_P(Collectives, ReduceAlgorithm,
                         ::testing::ValuesIn(cases_of(collectives::Collective::kReduce)),
                         case_name);

class AlltoallAlgorithm : public ::testing::TestWithParam<Case> {};

TEST_P(AlltoallAlgorithm, BlockROfEveryRankReachesRankR) {
  for_each_block_and_placement(
      GetParam(), [](const Case& c, Communicator& comm, std::size_t count, bool in_place) {
        const auto size = static_cast<std::size_t>(comm.size());
        // Element i of the block from rank `from` for rank `to`.
        const auto element = [](std::size_t from, std::size_t to, std::size_t i) {
          return static_cast<std::uint32_t>((from << 24) ^ (to << 16) ^ i);
        };
        const auto me = static_cast<std::size_t>(comm.rank());
        std::vector<std::uint32_t> in(count * size);
        for (std::size_t r = 0; r < size; ++r) {
          for (std::size_t i = 0; i < count; ++i) {
            in[r * count + i] = element(me, r, i);
          }
        }
        std::vector<std::uint32_t> out(count * size, 0);
        if (in_place) {
          out = in;
        }
        alltoall(comm, in_place ? kInPlace : in.data(), out.data(), count, DataType::kUint32,
                 c.forced());
        for (std::size_t r = 0; r < size; ++r) {
          for (std::size_t i = 0; i < count; ++i) {
            ASSERT_EQ(out[r * count + i], element(r, me, i))
                << "from " << r << ", count " << count << ", i " << i;
          }
        }
      });
}

INSTANTIATE_TEST_SUITE_P(Collectives, AlltoallAlgorithm,
                         ::testing::ValuesIn(cases_of(collectives::Collective::kAlltoall)),
                         case_name);

class BarrierAlgorithm : public ::testing::TestWithParam<Case> {};

// No rank leaves a barrier before every rank has arrived at it.
TEST_P(BarrierAlgorithm, NoRankLeavesBeforeAllHaveArrived) {
  const Case c = GetParam();
  std::atomic<int> arrived{0};
  expect_clean(run_ranks(
      c.ranks,
      [&](Communicator& comm) {
        for (int round = 1; round <= 5; ++round) {
          if (comm.rank() == round % comm.size()) {
            std::this_thread::sleep_for(20ms);  // one rank late each round
          }
          arrived.fetch_add(1);
          barrier(comm, c.forced());
          EXPECT_GE(arrived.load(), round * comm.size()) << "round " << round;
          barrier(comm, c.forced());  // all have checked before the next round
        }
      },
      c.communicator()));
}

INSTANTIATE_TEST_SUITE_P(Collectives, BarrierAlgorithm,
                         ::testing::ValuesIn(cases_of(collectives::Collective::kBarrier)),
                         case_name);

// Several non-blocking collectives in flight at once, with the program's
// own messages between them: none takes another's messages.
// The value rank r puts at element i of its block (uniquely its own).
std::uint32_t tagged(int rank, std::size_t i) {
  return (static_cast<std::uint32_t>(rank) << 24) | static_cast<std::uint32_t>(i);
}

class GatherAlgorithm : public ::testing::TestWithParam<Case> {};

TEST_P(GatherAlgorithm, TheRootGetsEveryBlockInRankOrderAndScatterHandsThemBack) {
  expect_clean(run_ranks(
      GetParam().ranks,
      [&](Communicator& comm) {
        const Case& c = GetParam();
        const auto size = static_cast<std::size_t>(comm.size());
        for (const int root : {0, comm.size() - 1, comm.size() / 2}) {
          for (const std::size_t count : kBlockCounts) {
            for (const bool in_place : {false, true}) {
              const bool at_root = comm.rank() == root;
              std::vector<std::uint32_t> mine(count);
              for (std::size_t i = 0; i < count; ++i) {
                mine[i] = tagged(comm.rank(), i);
              }
              std::vector<std::uint32_t> all(at_root ? count * size : 0, 0);
              const std::size_t at = count * static_cast<std::size_t>(comm.rank());
              if (at_root && in_place) {
                std::copy(mine.begin(), mine.end(), all.begin() + static_cast<std::ptrdiff_t>(at));
              }
              const void* send = at_root && in_place ? kInPlace : mine.data();
              gather(comm, send, all.data(), count, DataType::kUint32, root,
                     CollectiveOptions{c.algorithm});
              // (all is empty when count is 0.)
              for (std::size_t j = 0; count != 0 && j < all.size(); ++j) {
                ASSERT_EQ(all[j], tagged(static_cast<int>(j / count), j % count))
                    << "root " << root << ", count " << count << ", element " << j;
              }
              // And back: the root's blocks to their ranks.
              std::vector<std::uint32_t> back(count, 0);
              void* recv = at_root && in_place ? const_cast<void*>(kInPlace) : back.data();
              scatter(comm, all.data(), recv, count, DataType::kUint32, root,
                      CollectiveOptions{c.algorithm});
              if (!(at_root && in_place)) {
                ASSERT_EQ(back, mine) << "root " << root << ", count " << count;
              }
            }
          }
        }
      },
      GetParam().communicator()));
}

INSTANTIATE_TEST_SUITE_P(Collectives, GatherAlgorithm,
                         ::testing::ValuesIn(cases_of(collectives::Collective::kGather)),
                         case_name);

// Uneven blocks: rank r's is (r * 37 + base) % 97 elements (some empty),
// laid out in reverse rank order with a gap of 3 after each.
struct UnevenLayout {
  std::vector<std::size_t> counts;
  std::vector<std::size_t> displs;
  std::size_t total = 0;

  UnevenLayout(int ranks, std::size_t base) {
    for (int r = 0; r < ranks; ++r) {
      counts.push_back((static_cast<std::size_t>(r) * 37 + base) % 97);
    }
    displs.resize(counts.size());
    for (int r = ranks - 1; r >= 0; --r) {
      displs[static_cast<std::size_t>(r)] = total;
      total += counts[static_cast<std::size_t>(r)] + 3;
    }
  }
};

TEST(VCollectives, GathervScattervAllgathervAlltoallvAndReduceScattervPlaceEveryBlock) {
  for (const auto& setting : {std::pair{1, false}, std::pair{2, false}, std::pair{3, false},
                              std::pair{5, false}, std::pair{4, true}}) {
    // Named, not a structured binding: lambdas below capture them.
    const int ranks = setting.first;
    const bool rails = setting.second;
    SCOPED_TRACE(::testing::Message() << ranks << " ranks" << (rails ? " over the rails" : ""));
    Case c{"", ranks, rails};
    expect_clean(run_ranks(
        ranks,
        [&](Communicator& comm) {
          const int rank = comm.rank();
          const auto me = static_cast<std::size_t>(rank);
          for (const std::size_t base : {std::size_t{0}, std::size_t{50}, std::size_t{96}}) {
            const UnevenLayout layout(ranks, base);
            const std::size_t count = layout.counts[me];
            std::vector<std::uint32_t> mine(count);
            for (std::size_t i = 0; i < count; ++i) {
              mine[i] = tagged(rank, i);
            }
            const auto expect_blocks = [&](const std::vector<std::uint32_t>& all,
                                           const char* what) {
              for (int r = 0; r < ranks; ++r) {
                const auto q = static_cast<std::size_t>(r);
                for (std::size_t i = 0; i < layout.counts[q]; ++i) {
                  ASSERT_EQ(all[layout.displs[q] + i], tagged(r, i))
                      << what << ", base " << base << ", block " << r << ", i " << i;
                }
              }
            };
            for (const int root : {0, ranks - 1}) {
              std::vector<std::uint32_t> all(rank == root ? layout.total : 0, 0);
              gatherv(comm, mine.data(), count, all.data(), layout.counts, layout.displs,
                      DataType::kUint32, root);
              if (rank == root) {
                expect_blocks(all, "gatherv");
              }
              std::vector<std::uint32_t> back(count, 0);
              scatterv(comm, all.data(), layout.counts, layout.displs, back.data(), count,
                       DataType::kUint32, root);
              ASSERT_EQ(back, mine) << "scatterv, base " << base << ", root " << root;
            }
            for (const bool in_place : {false, true}) {
              std::vector<std::uint32_t> all(layout.total, 0);
              if (in_place) {
                std::copy(mine.begin(), mine.end(),
                          all.begin() + static_cast<std::ptrdiff_t>(layout.displs[me]));
              }
              Request pending =
                  iallgatherv(comm, in_place ? kInPlace : mine.data(), count, all.data(),
                              layout.counts, layout.displs, DataType::kUint32);
              pending.wait();
              expect_blocks(all, in_place ? "allgatherv in place" : "allgatherv");
            }
            // alltoallv: rank r sends rank q a block of (r + q + base) % 7
            // elements, packed in rank order on both sides.
            const auto length = [&](int from, int to) {
              return (static_cast<std::size_t>(from + to) + base) % 7;
            };
            std::vector<std::size_t> send_counts;
            std::vector<std::size_t> send_displs;
            std::vector<std::size_t> recv_counts;
            std::vector<std::size_t> recv_displs;
            std::size_t sent = 0;
            std::size_t received = 0;
            for (int q = 0; q < ranks; ++q) {
              send_displs.push_back(sent);
              send_counts.push_back(length(rank, q));
              sent += send_counts.back();
              recv_displs.push_back(received);
              recv_counts.push_back(length(q, rank));
              received += recv_counts.back();
            }
            std::vector<std::uint32_t> out(sent);
            for (int q = 0; q < ranks; ++q) {
              for (std::size_t i = 0; i < send_counts[static_cast<std::size_t>(q)]; ++i) {
                out[send_displs[static_cast<std::size_t>(q)] + i] =
                    tagged(rank, static_cast<std::size_t>(q) * 16 + i);
              }
            }
            std::vector<std::uint32_t> in(received, 0);
            alltoallv(comm, out.data(), send_counts, send_displs, in.data(), recv_counts,
                      recv_displs, DataType::kUint32);
            for (int q = 0; q < ranks; ++q) {
              for (std::size_t i = 0; i < recv_counts[static_cast<std::size_t>(q)]; ++i) {
                ASSERT_EQ(in[recv_displs[static_cast<std::size_t>(q)] + i], tagged(q, me * 16 + i))
                    << "alltoallv, base " << base << ", from " << q << ", i " << i;
              }
            }
            // reduce_scatterv: rank r gets block r (counts[r] elements,
            // blocks back to back) of the sum of every rank's vector.
            std::size_t total = 0;
            std::size_t first = 0;
            for (int q = 0; q < ranks; ++q) {
              if (q == rank) {
                first = total;
              }
              total += layout.counts[static_cast<std::size_t>(q)];
            }
            const auto term = [](int r, std::size_t j) {
              return static_cast<std::int64_t>(j) * (r + 1) - r;
            };
            for (const bool in_place : {false, true}) {
              std::vector<std::int64_t> vector(total);
              for (std::size_t j = 0; j < total; ++j) {
                vector[j] = term(rank, j);
              }
              std::vector<std::int64_t> block(count, -1);
              std::int64_t* result = in_place ? vector.data() : block.data();
              Request pending = ireduce_scatterv(comm, in_place ? kInPlace : vector.data(), result,
                                                 layout.counts, DataType::kInt64, ReduceOp::kSum);
              pending.wait();
              for (std::size_t i = 0; i < count; ++i) {
                std::int64_t sum = 0;
                for (int r = 0; r < ranks; ++r) {
                  sum += term(r, first + i);
                }
                ASSERT_EQ(result[i], sum) << "reduce_scatterv" << (in_place ? " in place" : "")
                                          << ", base " << base << ", i " << i;
              }
            }
          }
        },
        c.communicator()));
  }
}

TEST(VCollectives, ALayoutOfTheWrongLengthIsAUsageErrorNamingIt) {
  expect_clean(run_ranks(2, [](Communicator& comm) {
    const std::vector<std::size_t> one{1};
    std::vector<std::uint8_t> data(4);
    try {
      allgatherv(comm, data.data(), 1, data.data(), one, one, DataType::kUint8);
      ADD_FAILURE() << "no error";
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what())
                    .find("allgatherv: the receive counts and displacements "
                          "have 1 and 1 entries; expected one per rank, 2"),
                std::string::npos)
          << error.what();
    }
  }));
}

// Larger rank counts (11, 16) over shared memory, every algorithm of the
// main collectives (allreduce, allgather, bcast, reduce_scatter, alltoall)
// at a block length that is not a multiple of the rank count, and a 16 MiB
// allreduce.
TEST(ManyRanks, ElevenAndSixteenRanksRunEveryAlgorithmToTheReference) {
  for (const int ranks : {11, 16}) {
    SCOPED_TRACE(ranks);
    expect_clean(run_ranks(ranks, [&](Communicator& comm) {
      const auto size = static_cast<std::size_t>(comm.size());
      constexpr std::size_t kCount = 4099;
      for (const collectives::Algorithm* entry : collectives::all_algorithms()) {
        const collectives::Algorithm& algorithm = *entry;
        const CollectiveOptions forced{std::string(algorithm.name)};
        if (algorithm.collective == collectives::Collective::kAllreduce) {
          std::vector<float> in(kCount);
          for (std::size_t i = 0; i < kCount; ++i) {
            in[i] = value(comm.rank(), i);
          }
          std::vector<float> out(kCount, -1.0F);
          allreduce(comm, in.data(), out.data(), kCount, DataType::kFloat32, ReduceOp::kSum,
                    forced);
          for (std::size_t i = 0; i < kCount; ++i) {
            float sum = 0;
            for (int r = 0; r < ranks; ++r) {
              sum += value(r, i);
            }
            ASSERT_EQ(out[i], sum) << algorithm.name << ", element " << i;
          }
        } else if (algorithm.collective == collectives::Collective::kAllgather) {
          std::vector<std::uint32_t> mine(kCount);
          for (std::size_t i = 0; i < kCount; ++i) {
            mine[i] = tagged(comm.rank(), i);
          }
          std::vector<std::uint32_t> all(kCount * size, 0);
          allgather(comm, mine.data(), all.data(), kCount, DataType::kUint32, forced);
          for (std::size_t j = 0; j < all.size(); ++j) {
            ASSERT_EQ(all[j], tagged(static_cast<int>(j / kCount), j % kCount))
                << algorithm.name << ", element " << j;
          }
        } else if (algorithm.collective == collectives::Collective::kBcast) {
          const int root = ranks / 2;
          std::vector<std::uint8_t> data(kCount, 0);
          if (comm.rank() == root) {
            for (std::size_t i = 0; i < kCount; ++i) {
              data[i] = static_cast<std::uint8_t>(i * 7);
            }
          }
          bcast(comm, data.data(), kCount, DataType::kUint8, root, forced);
          for (std::size_t i = 0; i < kCount; ++i) {
            ASSERT_EQ(data[i], static_cast<std::uint8_t>(i * 7)) << algorithm.name << ", i " << i;
          }
        } else if (algorithm.collective == collectives::Collective::kReduceScatter) {
          std::vector<float> in(kCount * size);
          for (std::size_t i = 0; i < in.size(); ++i) {
            in[i] = value(comm.rank(), i);
          }
          std::vector<float> out(kCount, -1.0F);
          reduce_scatter(comm, in.data(), out.data(), kCount, DataType::kFloat32, ReduceOp::kSum,
                         forced);
          const std::size_t first = static_cast<std::size_t>(comm.rank()) * kCount;
          for (std::size_t i = 0; i < kCount; ++i) {
            float sum = 0;
            for (int r = 0; r < ranks; ++r) {
              sum += value(r, first + i);
            }
            ASSERT_EQ(out[i], sum) << algorithm.name << ", element " << i;
          }
        } else if (algorithm.collective == collectives::Collective::kAlltoall) {
          std::vector<std::uint32_t> in(kCount * size);
          for (std::size_t i = 0; i < in.size(); ++i) {
            in[i] = tagged(comm.rank(), i);
          }
          std::vector<std::uint32_t> out(kCount * size, 0);
          alltoall(comm, in.data(), out.data(), kCount, DataType::kUint32, forced);
          const std::size_t mine = static_cast<std::size_t>(comm.rank()) * kCount;
          for (std::size_t j = 0; j < out.size(); ++j) {
            ASSERT_EQ(out[j], tagged(static_cast<int>(j / kCount), mine + j % kCount))
                << algorithm.name << ", element " << j;
          }
        }
      }
      // 16 MiB of floats.
      constexpr std::size_t kLarge = (std::size_t{16} << 20) / sizeof(float);
      std::vector<float> large(kLarge);
      for (std::size_t i = 0; i < kLarge; ++i) {
        large[i] = value(comm.rank(), i);
      }
      allreduce(comm, kInPlace, large.data(), kLarge, DataType::kFloat32, ReduceOp::kSum);
      for (std::size_t i = 0; i < kLarge; i += 4097) {
        float sum = 0;
        for (int r = 0; r < ranks; ++r) {
          sum += value(r, i);
        }
        ASSERT_EQ(large[i], sum) << "16 MiB, element " << i;
      }
    }));
  }
}

TEST(Collectives, NonBlockingOnesOverlapEachOtherAndPointToPointTraffic) {
  expect_clean(run_ranks(4, [](Communicator& comm) {
    constexpr std::size_t kCount = 20000;
    std::vector<float> a(kCount, static_cast<float>(comm.rank()));
    std::vector<float> b(kCount, 1.0F);
    std::vector<std::uint32_t> gathered(4);
    const std::uint32_t me = 100U + static_cast<std::uint32_t>(comm.rank());
    std::array<Request, 5> requests{
        iallreduce(comm, kInPlace, a.data(), kCount, DataType::kFloat32, ReduceOp::kSum,
                   CollectiveOptions{"ring"}),
        iallreduce(comm, kInPlace, b.data(), kCount, DataType::kFloat32, ReduceOp::kSum,
                   CollectiveOptions{"recursive_doubling"}),
        iallgather(comm, &me, gathered.data(), 1, DataType::kUint32), Request(), Request()};
    // Point to point on tag 0 around the ring while they run.
    const int next = (comm.rank() + 1) % 4;
    const int previous = (comm.rank() + 3) % 4;
    int token = comm.rank();
    int from_previous = -1;
    requests[3] = comm.irecv(&from_previous, sizeof(from_previous), previous, 0);
    requests[4] = comm.isend(&token, sizeof(token), next, 0);
    Request::wait_all(requests);
    EXPECT_EQ(from_previous, previous);
    EXPECT_EQ(a[0], 6.0F);
    EXPECT_EQ(a[kCount - 1], 6.0F);
    EXPECT_EQ(b[kCount / 2], 4.0F);
    EXPECT_EQ(gathered, (std::vector<std::uint32_t>{100, 101, 102, 103}));
  }));
}

// Ranks that disagree on the count: an error, not a hang (the communicator's
// timeout bounds the ranks that wait for a message that will not come).
TEST(Collectives, RanksThatDisagreeOnTheCountGetAnErrorNotAHang) {
  CommunicatorOptions options;
  options.timeout = 5s;
  const auto errors = run_ranks(
      3,
      [](Communicator& comm) {
        const std::size_t count = comm.rank() == 1 ? 5000 : 4000;
        std::vector<float> data(count, 1.0F);
        allreduce(comm, kInPlace, data.data(), count, DataType::kFloat32, ReduceOp::kSum,
                  CollectiveOptions{"ring"});
      },
      options);
  bool named = false;
  for (const std::string& error : errors) {
    EXPECT_FALSE(error.empty()) << "a rank finished an allreduce the others disagreed on";
    named = named || error.find("different counts") != std::string::npos ||
            error.find("longer than the receive buffer") != std::string::npos;
  }
  EXPECT_TRUE(named) << errors[0] << " | " << errors[1] << " | " << errors[2];
}

TEST(Collectives, BadArgumentsAreUsageErrorsNamingThem) {
  expect_clean(run_ranks(1, [](Communicator& comm) {
    float x = 0;
    EXPECT_THROW(allreduce(comm, &x, &x, 1, DataType::kFloat32, ReduceOp::kBor), UsageError);
    EXPECT_THROW(allreduce(comm, nullptr, &x, 1, DataType::kFloat32, ReduceOp::kSum), UsageError);
    try {
      bcast(comm, &x, 1, DataType::kFloat32, 3);
      ADD_FAILURE() << "root 3 of 1 rank accepted";
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find("root 3"), std::string::npos) << error.what();
    }
    EXPECT_THROW(barrier(comm, CollectiveOptions{"tournament"}), UsageError);
    // Nothing at all to do is no error.
    allreduce(comm, nullptr, nullptr, 0, DataType::kFloat32, ReduceOp::kSum);
  }));
}

}  // namespace
}  // namespace railyard::comm

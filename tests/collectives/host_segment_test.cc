// The allreduces over a host segment (allreduce_shared_segment.cc, and
// split-rail's same-host steps) on ranks run as threads of this process,
// which share one host: it sends nothing over any rail once the segment
// exists (split-rail: nothing over the host rail), leaves nothing in
// /dev/shm, runs vectors of many chunks to the reference, names ranks that
// disagree and stays usable after, and leaves the non-blocking form, and
// RAILYARD_SHM=off, to the algorithms over messages.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "railyard/comm/collectives.h"
#include "railyard/common/error.h"
#include "railyard/shm/shared_segment.h"
#include "thread_ranks.h"

namespace railyard::comm {
namespace {

using testing::expect_clean;
using testing::run_ranks;
using namespace std::chrono_literals;

const CollectiveOptions kSegment{"shared_segment"};

std::uint64_t messages_sent(const Communicator& comm) {
  std::uint64_t sent = 0;
  for (const auto& rail : comm.counters().rails) {
    sent += rail.rail.messages_sent;
  }
  return sent;
}

// Files in /dev/shm named as railyard's segments are.
std::size_t segment_files() {
  std::size_t found = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/dev/shm")) {
    found += entry.path().filename().string().starts_with(shm::kSegmentPrefix) ? 1 : 0;
  }
  return found;
}

std::int64_t term(int rank, std::size_t i, int call) {
  return static_cast<std::int64_t>(i) * (rank + 1) - rank + call;
}

// Sums `count` int64 terms of call `call` over every rank into `out` and
// checks it against the reference.
void expect_sum(const Communicator& comm, std::size_t count, int call,
                const CollectiveOptions& algorithm = kSegment) {
  std::vector<std::int64_t> data(count);
  for (std::size_t i = 0; i < count; ++i) {
    data[i] = term(comm.rank(), i, call);
  }
  allreduce(comm, kInPlace, data.data(), count, DataType::kInt64, ReduceOp::kSum, algorithm);
  for (std::size_t i = 0; i < count; ++i) {
    std::int64_t sum = 0;
    for (int r = 0; r < comm.size(); ++r) {
      sum += term(r, i, call);
    }
    ASSERT_EQ(data[i], sum) << "count " << count << ", call " << call << ", element " << i;
  }
}

TEST(HostSegment, AnAllreduceSendsNothingOverAnyRailOnceTheSegmentExists) {
  expect_clean(run_ranks(4, [](Communicator& comm) {
    expect_sum(comm, 1, 0);  // makes the segment: a few setup messages
    EXPECT_EQ(segment_files(), 0U) << "a segment's name outlived its setup";
    const std::uint64_t before = messages_sent(comm);
    expect_sum(comm, (std::size_t{1} << 17) + 3, 1);  // 1 MiB + 24 B: several chunks
    EXPECT_EQ(messages_sent(comm), before) << "rank " << comm.rank();
  }));
}

TEST(HostSegment, VectorsOfManyChunksAndEmptyOnesMatchTheReferenceCallAfterCall) {
  for (const int ranks : {2, 3, 5}) {
    SCOPED_TRACE(ranks);
    expect_clean(run_ranks(ranks, [](Communicator& comm) {
      // 5 MiB and a part (an odd number of chunks: the sets alternate
      // across calls), then empty and single elements between longer ones.
      const std::size_t counts[] = {(std::size_t{5} << 17) + 7, 0, 1, 4099, 0,
                                    (std::size_t{1} << 17)};
      int call = 0;
      for (const std::size_t count : counts) {
        expect_sum(comm, count, call++);
      }
    }));
  }
}

TEST(HostSegment, ShortAndLongVectorsInTurnMatchTheReference) {
  // Short vectors take one barrier per call, every rank reducing all of
  // them (2048 int64 on 4 ranks at most); longer ones two per chunk. In
  // turn, call after call, each kind writes the slot sets and the calls'
  // places the other just read.
  expect_clean(run_ranks(4, [](Communicator& comm) {
    const std::size_t counts[] = {1, 2048, 3, (std::size_t{1} << 16) + 5, 2049, 0, 7, 4097, 2048};
    int call = 0;
    for (int round = 0; round < 3; ++round) {
      for (const std::size_t count : counts) {
        expect_sum(comm, count, call++);
      }
    }
  }));
}

TEST(HostSegment, FloatResultsAreBitwiseEqualOnEveryRank) {
  constexpr int kRanks = 4;
  constexpr std::size_t kCount = (std::size_t{1} << 19) + 11;  // 2 MiB + 44 B of floats
  std::vector<std::vector<std::uint32_t>> results(kRanks);
  expect_clean(run_ranks(kRanks, [&](Communicator& comm) {
    std::mt19937 random(static_cast<unsigned>(comm.rank()) + 7U);
    std::uniform_real_distribution<float> any(-1e3F, 1e3F);
    std::vector<float> in(kCount);
    for (float& x : in) {
      x = any(random);
    }
    std::vector<float> out(kCount);
    allreduce(comm, in.data(), out.data(), kCount, DataType::kFloat32, ReduceOp::kSum, kSegment);
    auto& mine = results[static_cast<std::size_t>(comm.rank())];
    for (const float x : out) {
      mine.push_back(std::bit_cast<std::uint32_t>(x));
    }
  }));
  for (std::size_t r = 1; r < kRanks; ++r) {
    EXPECT_EQ(results[r], results[0]) << "rank " << r;
  }
}

// Ranks (threads, on the hosts host_of says) that each sum count_of(rank)
// int64 with `algorithm`, where some counts differ: every rank must get a
// UsageError, and then an allreduce of `agreed` elements, which all pass,
// must run to the reference. Returns the errors' texts.
std::vector<std::string> disagreeing_errors(int ranks,
                                            const std::function<std::size_t(int)>& count_of,
                                            std::size_t agreed, const CollectiveOptions& algorithm,
                                            const std::function<int(int)>& host_of = {}) {
  CommunicatorOptions options;
  options.timeout = 20s;
  std::mutex mutex;
  std::vector<std::string> errors;
  expect_clean(run_ranks(
      ranks,
      [&](Communicator& comm) {
        std::vector<std::int64_t> data(count_of(comm.rank()), 1);
        try {
          allreduce(comm, kInPlace, data.data(), data.size(), DataType::kInt64, ReduceOp::kSum,
                    algorithm);
          ADD_FAILURE() << "rank " << comm.rank()
                        << " finished an allreduce the ranks disagreed on";
        } catch (const UsageError& error) {
          const std::scoped_lock lock(mutex);
          errors.emplace_back(error.what());
        }
        expect_sum(comm, agreed, 1, algorithm);  // runs as if nothing happened
      },
      options, host_of));
  return errors;
}

TEST(HostSegment, RanksThatDisagreeGetAnErrorNamingThemAndTheSegmentStaysUsable) {
  // Rank 1 differs; rank 0 and 2 see it first, rank 1 sees rank 0.
  const auto errors = disagreeing_errors(
      3, [](int rank) { return rank == 1 ? 5000 : 4000; }, 4000, kSegment);
  ASSERT_EQ(errors.size(), 3U);
  for (const std::string& error : errors) {
    EXPECT_NE(error.find("rank 1 called it with 5000 elements of int64 (sum)"), std::string::npos)
        << error;
    EXPECT_NE(error.find("with 4000 elements"), std::string::npos) << error;
  }
}

TEST(HostSegment, AShortAndALongCallThatDisagreeGetAnErrorAndTheNextCallRuns) {
  // Rank 0's vector is short enough for one barrier, the others' are not.
  const auto errors = disagreeing_errors(
      3, [](int rank) { return rank == 0 ? 10 : 300000; }, 10, kSegment);
  ASSERT_EQ(errors.size(), 3U);
  for (const std::string& error : errors) {
    EXPECT_NE(error.find("with 10 elements of int64 (sum)"), std::string::npos) << error;
    EXPECT_NE(error.find("with 300000 elements of int64 (sum)"), std::string::npos) << error;
  }
}

TEST(HostSegment, NonBlockingCallsRunOverMessagesAndMayBeWaitedInAnyOrder) {
  expect_clean(run_ranks(3, [](Communicator& comm) {
    constexpr std::size_t kCount = 70001;
    std::vector<std::int32_t> first(kCount, comm.rank() + 1);
    std::vector<std::int32_t> second(kCount, 10 * (comm.rank() + 1));
    const std::uint64_t before = messages_sent(comm);
    Request one = iallreduce(comm, kInPlace, first.data(), kCount, DataType::kInt32, ReduceOp::kSum,
                             kSegment);
    Request two = iallreduce(comm, kInPlace, second.data(), kCount, DataType::kInt32,
                             ReduceOp::kMax, kSegment);
    two.wait();
    one.wait();
    EXPECT_GT(messages_sent(comm), before);
    for (std::size_t i = 0; i < kCount; ++i) {
      ASSERT_EQ(first[i], 6) << i;
      ASSERT_EQ(second[i], 30) << i;
    }
  }));
}

// Messages sent over the same-host rail, and over the network rails.
struct SentBy {
  std::uint64_t host = 0;
  std::uint64_t network = 0;
};
SentBy sent_by(const Communicator& comm) {
  SentBy sent;
  for (const auto& rail : comm.counters().rails) {
    (rail.host_only ? sent.host : sent.network) += rail.rail.messages_sent;
  }
  return sent;
}

// 2 hosts x 2 ranks (threads standing for them): the blocking split-rail
// allreduce takes its same-host steps through the host's segment, so only
// the network rails carry messages; the non-blocking one still uses the
// host rail.
TEST(HostSegment, SplitRailSendsNothingOverTheHostRailInBlockingCalls) {
  const CollectiveOptions split{"split_rail"};
  expect_clean(run_ranks(
      4,
      [&](Communicator& comm) {
        ASSERT_EQ(comm.host_count(), 2);
        constexpr std::size_t kCount = (std::size_t{3} << 17) + 5;  // 3 MiB + 40 B of int64
        const auto sum_of = [&](std::size_t i) {
          std::int64_t sum = 0;
          for (int r = 0; r < comm.size(); ++r) {
            sum += term(r, i, 0);
          }
          return sum;
        };
        std::vector<std::int64_t> data(kCount);
        const auto fill = [&] {
          for (std::size_t i = 0; i < kCount; ++i) {
            data[i] = term(comm.rank(), i, 0);
          }
        };
        fill();
        allreduce(comm, kInPlace, data.data(), 1, DataType::kInt64, ReduceOp::kSum, split);
        fill();
        const SentBy before = sent_by(comm);
        allreduce(comm, kInPlace, data.data(), kCount, DataType::kInt64, ReduceOp::kSum, split);
        const SentBy after = sent_by(comm);
        EXPECT_EQ(after.host, before.host) << "rank " << comm.rank();
        EXPECT_GT(after.network, before.network) << "rank " << comm.rank();
        for (std::size_t i = 0; i < kCount; ++i) {
          ASSERT_EQ(data[i], sum_of(i)) << "element " << i;
        }
        fill();
        Request pending = iallreduce(comm, kInPlace, data.data(), kCount, DataType::kInt64,
                                     ReduceOp::kSum, split);
        pending.wait();
        EXPECT_GT(sent_by(comm).host, after.host) << "rank " << comm.rank();
        for (std::size_t i = 0; i < kCount; ++i) {
          ASSERT_EQ(data[i], sum_of(i)) << "element " << i;
        }
      },
      CommunicatorOptions{}, [](int rank) { return rank / 2; }));
}

// 2 hosts x 2 ranks where the second rank of each host passes another
// count: every lane of the split-rail allreduce finds it on both hosts, all
// four ranks get an error naming the rank, and the next call runs.
TEST(HostSegment, SplitRailRanksThatDisagreeGetAnErrorAndTheNextCallRuns) {
  const auto errors = disagreeing_errors(
      4, [](int rank) { return rank % 2 == 1 ? 300001 : 300000; }, 300000,
      CollectiveOptions{"split_rail"}, [](int rank) { return rank / 2; });
  ASSERT_EQ(errors.size(), 4U);
  for (const std::string& error : errors) {
    EXPECT_NE(error.find("called it with 300001 elements of int64 (sum)"), std::string::npos)
        << error;
  }
}

// RAILYARD_SHM=off, and RAILYARD_HOST_SEGMENT=off alone (the host rail
// stays): the allreduce runs over messages.
TEST(HostSegment, WithSharedMemoryOrTheSegmentOffItRunsOverMessages) {
  CommunicatorOptions shm_off;
  shm_off.shared_memory = SharedMemoryMode::kOff;
  CommunicatorOptions segment_off;
  segment_off.host_segment = false;
  for (const CommunicatorOptions& options : {shm_off, segment_off}) {
    expect_clean(run_ranks(
        3,
        [](Communicator& comm) {
          const std::uint64_t before = messages_sent(comm);
          expect_sum(comm, 4099, 0);
          EXPECT_GT(messages_sent(comm), before);
        },
        options));
  }
}

}  // namespace
}  // namespace railyard::comm

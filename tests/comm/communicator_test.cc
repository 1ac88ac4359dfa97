// The Communicator with ranks as threads of one process, each with its own
// endpoint on two loopback rails, joined through a root bootstrap.
#include "railyard/comm/communicator.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <latch>
#include <numeric>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "last_messages.h"
#include "railyard/comm/collectives.h"
#include "railyard/common/error.h"
#include "scoped_env.h"
#include "thread_ranks.h"

namespace railyard::comm {
namespace {

using namespace std::chrono_literals;
using railyard::testing::expect_clean;
using railyard::testing::run_ranks;

class CommunicatorSizes : public ::testing::TestWithParam<int> {};

TEST_P(CommunicatorSizes, RanksPassATokenAroundTheRing) {
  const int size = GetParam();
  expect_clean(run_ranks(size, [size](Communicator& world) {
    ASSERT_EQ(world.size(), size);
    EXPECT_EQ(world.local_size(), size);  // one host
    EXPECT_EQ(world.local_rank(), world.rank());
    const int right = (world.rank() + 1) % size;
    const int left = (world.rank() + size - 1) % size;
    std::vector<int> token(1000);
    if (world.rank() == 0) {
      std::iota(token.begin(), token.end(), 0);
      world.send(token.data(), token.size() * sizeof(int), right, 3);
      const Status status = world.recv(token.data(), token.size() * sizeof(int), left, 3);
      EXPECT_EQ(status.source, left);
      EXPECT_EQ(status.tag, 3);
      EXPECT_EQ(status.bytes, token.size() * sizeof(int));
      for (std::size_t i = 0; i < token.size(); ++i) {
        ASSERT_EQ(token[i], static_cast<int>(i) + size - 1) << "at " << i;
      }
    } else {
      (void)world.recv(token.data(), token.size() * sizeof(int), left, 3);
      for (int& value : token) {
        ++value;
      }
      world.send(token.data(), token.size() * sizeof(int), right, 3);
    }
  }));
}

INSTANTIATE_TEST_SUITE_P(Sizes, CommunicatorSizes, ::testing::Values(1, 2, 3, 5, 8));

TEST(Communicator, WildcardReceivesNameTheSourceAndTag) {
  expect_clean(run_ranks(4, [](Communicator& world) {
    if (world.rank() != 0) {
      const int value = world.rank() * 100;
      world.send(&value, sizeof(value), 0, world.rank() + 10);
      return;
    }
    std::set<int> sources;
    for (int i = 0; i < 3; ++i) {
      int value = 0;
      const Status status = world.recv(&value, sizeof(value), kAnySource, kAnyTag);
      EXPECT_EQ(value, status.source * 100);
      EXPECT_EQ(status.tag, status.source + 10);
      sources.insert(status.source);
    }
    EXPECT_EQ(sources, (std::set<int>{1, 2, 3}));
  }));
}

TEST(Communicator, AFloodOfUnexpectedMessagesArrivesInOrder) {
  constexpr int kMessages = 10'000;
  expect_clean(run_ranks(2, [](Communicator& world) {
    if (world.rank() == 1) {
      std::vector<int> values(kMessages);
      std::iota(values.begin(), values.end(), 0);
      std::vector<Request> sends;
      sends.reserve(kMessages);
      for (int i = 0; i < kMessages; ++i) {
        sends.push_back(world.isend(&values[static_cast<std::size_t>(i)], sizeof(int), 0, i % 7));
      }
      Request::wait_all(sends);
      return;
    }
    // Let the sender get everything out before any receive is posted.
    std::this_thread::sleep_for(300ms);
    for (int i = 0; i < kMessages; ++i) {
      int value = -1;
      const Status status = world.recv(&value, sizeof(value), 1, kAnyTag);
      ASSERT_EQ(value, i);
      ASSERT_EQ(status.tag, i % 7);
    }
  }));
}

TEST(Communicator, TruncationCancelProbeAndTimeoutsBehaveAsDocumented) {
  expect_clean(run_ranks(2, [](Communicator& world) {
    if (world.rank() == 1) {
      const std::array<char, 16> sixteen{'p', 'r', 'o', 'b', 'e', 'd'};
      world.send(sixteen.data(), sixteen.size(), 0, 1);
      world.send(sixteen.data(), sixteen.size(), 0, 2);
      return;
    }
    const Status probed = world.probe(1, 1, 10s);
    EXPECT_EQ(probed.source, 1);
    EXPECT_EQ(probed.tag, 1);
    EXPECT_EQ(probed.bytes, 16U);
    std::array<char, 16> whole{};
    (void)world.recv(whole.data(), whole.size(), 1, 1);
    EXPECT_EQ(std::string(whole.data()), "probed");

    std::array<char, 8> small{};
    try {
      (void)world.recv(small.data(), small.size(), 1, 2);
      ADD_FAILURE() << "a truncated receive did not throw";
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find("16 bytes from rank 1"), std::string::npos)
          << error.what();
    }
    EXPECT_EQ(std::string(small.data(), 5), "probe");

    int nothing = 0;
    Request never = world.irecv(&nothing, sizeof(nothing), 1, 99);
    EXPECT_THROW((void)never.wait(50ms), TimeoutError);
    EXPECT_TRUE(never.active());  // still in flight after the timeout
    // What it waits for, for a caller's own message; nothing once it ended.
    EXPECT_NE(never.waiting_for().find("from rank 1 (tag 99"), std::string::npos)
        << never.waiting_for();
    EXPECT_TRUE(never.cancel());
    EXPECT_TRUE(never.wait().cancelled);
    EXPECT_FALSE(never.active());
    EXPECT_EQ(never.waiting_for(), "");
    EXPECT_FALSE(world.iprobe(1, 99));
  }));
}

// A wait's timeout is a lower bound, also when it spans several of the
// waits' slices; a timeout too long to place a deadline is no deadline (it
// must not wrap around into the past and end the wait at once).
TEST(Communicator, AWaitLastsItsWholeTimeoutAndAHugeOneNeverEndsIt) {
  expect_clean(run_ranks(2, [](Communicator& world) {
    const int other = 1 - world.rank();
    if (world.rank() == 0) {
      int nothing = 0;
      Request never = world.irecv(&nothing, sizeof(nothing), other, 99);
      const auto start = std::chrono::steady_clock::now();
      EXPECT_THROW((void)never.wait(170ms), TimeoutError);
      EXPECT_GE(std::chrono::steady_clock::now() - start, 170ms);
      EXPECT_TRUE(never.cancel());
      int got = 0;
      Request late = world.irecv(&got, sizeof(got), other, 3);
      world.send(&got, sizeof(got), other, 2);  // the peer sends after this
      EXPECT_EQ(late.wait(std::chrono::milliseconds::max() / 2).source, other);
      EXPECT_EQ(got, 7);
    } else {
      int go = 0;
      (void)world.recv(&go, sizeof(go), other, 2);
      std::this_thread::sleep_for(200ms);  // past the first slice of the peer's wait
      const int seven = 7;
      world.send(&seven, sizeof(seven), other, 3);
    }
  }));
}

// A blocking receive lives on its caller's stack: when the communicator's
// timeout passes, it throws, and the receive it posted is withdrawn with it,
// so the message that comes later goes to the next receive and not into the
// buffer of the call that gave up.
TEST(Communicator, ABlockingReceiveThatTimesOutTakesNothingAfterwards) {
  CommunicatorOptions options;
  options.timeout = 150ms;
  expect_clean(run_ranks(
      2,
      [](Communicator& world) {
        const int other = 1 - world.rank();
        if (world.rank() == 0) {
          int gave_up = -1;
          try {
            (void)world.recv(&gave_up, sizeof(gave_up), other, 9);
            ADD_FAILURE() << "a receive nobody answered returned";
          } catch (const TimeoutError& error) {
            const std::string what = error.what();
            EXPECT_NE(
                what.find("receive from rank 1 (tag 9, context 0) did not finish within 150 ms"),
                std::string::npos)
                << what;
            EXPECT_EQ(what.find("wait again"), std::string::npos) << what;
          }
          const int go = 1;
          world.send(&go, sizeof(go), other, 2);
          int got = 0;
          // (Bounded by more than the communicator's timeout: a loaded host.)
          Request late = world.irecv(&got, sizeof(got), other, 9);
          const Status status = late.wait(10s);
          EXPECT_EQ(got, 42);
          EXPECT_EQ(status.source, other);
          EXPECT_EQ(status.tag, 9);
          EXPECT_EQ(status.bytes, sizeof(int));
          EXPECT_EQ(gave_up, -1) << "the receive that gave up took the message";
        } else {
          int go = 0;
          Request start = world.irecv(&go, sizeof(go), other, 2);
          (void)start.wait(10s);
          const int answer = 42;
          world.send(&answer, sizeof(answer), other, 9);
        }
      },
      options));
}

// wait_all waits for all requests at once; on timeout none is touched.
TEST(Communicator, WaitAllTimesOutLeavingEveryRequestAsItWas) {
  expect_clean(run_ranks(2, [](Communicator& world) {
    const int other = 1 - world.rank();
    int sent = 40 + world.rank();
    int got = 0;
    int nothing = 0;
    std::array<Request, 3> requests{world.irecv(&got, sizeof(got), other, 5),
                                    world.isend(&sent, sizeof(sent), other, 5),
                                    world.irecv(&nothing, sizeof(nothing), other, 77)};
    try {
      Request::wait_all(requests, 300ms);
      ADD_FAILURE() << "wait_all returned with a receive nobody answers";
    } catch (const TimeoutError& error) {
      EXPECT_NE(std::string(error.what()).find("1 of 3 requests"), std::string::npos)
          << error.what();
      // The pending one is named, with whom it waits for.
      EXPECT_NE(std::string(error.what()).find(fmt::format("(receive from rank {} (tag 77", other)),
                std::string::npos)
          << error.what();
    }
    for (const Request& request : requests) {
      EXPECT_TRUE(request.active()) << "a request was finished by a wait_all that timed out";
    }
    EXPECT_TRUE(requests[2].cancel());
    Request::wait_all(requests, 10s);
    EXPECT_EQ(got, 40 + other);
    EXPECT_TRUE(requests[2].status().cancelled);
    for (const Request& request : requests) {
      EXPECT_FALSE(request.active());
    }
  }));
}

// A collective that times out says which exchange it was in and which
// ranks of it had not answered: here the one rank that never called it.
TEST(Communicator, ACollectiveThatTimesOutNamesTheRanksItWaitedFor) {
  std::atomic<bool> reported{false};
  expect_clean(run_ranks(3, [&](Communicator& world) {
    if (world.rank() == 2) {
      const auto deadline = std::chrono::steady_clock::now() + 30s;
      while (!reported.load() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(10ms);
      }
      return;
    }
    std::vector<float> values(64, 1.0F);
    Request sum = iallreduce(world, values.data(), values.data(), values.size(), DataType::kFloat32,
                             ReduceOp::kSum);
    try {
      (void)sum.wait(400ms);
      ADD_FAILURE() << "an allreduce finished without one of its ranks";
    } catch (const TimeoutError& error) {
      const std::string what = error.what();
      EXPECT_NE(what.find("allreduce (context 0) did not finish within 400 ms; at its exchange "),
                std::string::npos)
          << what;
      // Each names the ranks of its step that had not answered: rank 2, or a
      // rank that itself waits for rank 2.
      EXPECT_NE(what.find("it was still waiting to "), std::string::npos) << what;
      EXPECT_NE(what.find(" rank"), std::string::npos) << what;
    }
    // Both have looked before rank 2 leaves.
    int looked = 1;
    if (world.rank() == 1) {
      world.send(&looked, sizeof(looked), 0, 3);
    } else {
      (void)world.recv(&looked, sizeof(looked), 1, 3);
      reported = true;
    }
  }));
}

// Settings that must agree across the job, set differently on one rank:
// every rank is refused as the world forms, with one error naming the
// variable, the values and the ranks holding each, and nothing hangs.
TEST(Communicator, RanksThatDisagreeOnAJobWideSettingAreRefusedNamingThem) {
  const auto start = std::chrono::steady_clock::now();
  const auto errors = run_ranks(
      3, [](Communicator&) { ADD_FAILURE() << "a world of ranks that disagree formed"; }, {}, {},
      [](int rank, CommunicatorOptions& options) {
        if (rank == 2) {
          options.algorithms = collectives::AlgorithmTable("RAILYARD_ALGO", "allreduce:0-inf:ring");
        }
      });
  for (const std::string& error : errors) {
    EXPECT_NE(error.find("RAILYARD_ALGO="), std::string::npos) << error;
    EXPECT_NE(error.find("expected the same value on every rank"), std::string::npos) << error;
    EXPECT_NE(error.find("'(unset)' on ranks 0 and 1"), std::string::npos) << error;
    EXPECT_NE(error.find("'allreduce:0-inf:ring' on rank 2"), std::string::npos) << error;
  }
  const auto shm = run_ranks(
      2, [](Communicator&) { ADD_FAILURE() << "a world of ranks that disagree formed"; }, {}, {},
      [](int rank, CommunicatorOptions& options) {
        if (rank == 1) {
          options.shared_memory = SharedMemoryMode::kOff;
        }
      });
  for (const std::string& error : shm) {
    EXPECT_NE(error.find("RAILYARD_SHM="), std::string::npos) << error;
    EXPECT_NE(error.find("'off' on rank 1"), std::string::npos) << error;
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 20s);
}

TEST(Communicator, DupAndSplitTrafficNeverMatchesTheParents) {
  expect_clean(run_ranks(4, [](Communicator& world) {
    Communicator twin = world.dup();
    EXPECT_NE(twin.context(), world.context());
    EXPECT_EQ(twin.rank(), world.rank());
    // The twin's message, sent between two of the world's with the same tag,
    // is received first on the twin, and the world's two stay in order.
    if (world.rank() == 0) {
      const std::array<int, 3> values{10, 20, 30};
      world.send(values.data(), sizeof(int), 1, 7);
      twin.send(&values[1], sizeof(int), 1, 7);
      world.send(&values[2], sizeof(int), 1, 7);
    } else if (world.rank() == 1) {
      int value = 0;
      (void)twin.recv(&value, sizeof(int), 0, 7);
      EXPECT_EQ(value, 20);
      (void)world.recv(&value, sizeof(int), 0, 7);
      EXPECT_EQ(value, 10);
      (void)world.recv(&value, sizeof(int), 0, 7);
      EXPECT_EQ(value, 30);
    }
    // Odd and even ranks, ordered by descending world rank.
    const auto half = world.split(world.rank() % 2, -world.rank());
    ASSERT_TRUE(half);
    EXPECT_EQ(half->size(), 2);
    EXPECT_EQ(half->rank(), world.rank() < 2 ? 1 : 0);
    EXPECT_EQ(half->world_rank(half->rank()), world.rank());
    int mine = world.rank();
    int theirs = -1;
    Request receive = half->irecv(&theirs, sizeof(int), 1 - half->rank(), 0);
    half->send(&mine, sizeof(int), 1 - half->rank(), 0);
    receive.wait();
    EXPECT_EQ(theirs % 2, world.rank() % 2);
    EXPECT_NE(theirs, world.rank());
    const auto none = world.split(world.rank() == 3 ? Communicator::kUndefinedColor : 0, 0);
    EXPECT_EQ(none.has_value(), world.rank() != 3);
    if (none) {
      EXPECT_EQ(none->size(), 3);
    }
  }));
}

// The largest of the values the members of one group give, found as the MPI
// shim finds it with MPI_Allreduce: here, threads meeting at a latch.
class MaxAmongThreads {
 public:
  explicit MaxAmongThreads(int members) : arrived_(members) {}
  std::uint32_t operator()(std::uint32_t mine) {
    std::uint32_t seen = largest_.load();
    while (mine > seen && !largest_.compare_exchange_weak(seen, mine)) {
    }
    arrived_.arrive_and_wait();
    return largest_.load();
  }

 private:
  std::atomic<std::uint32_t> largest_{0};
  std::latch arrived_;
};

TEST(Communicator, AGroupFormedOutsideTheLibraryTalksApartFromItsParent) {
  MaxAmongThreads first(3);
  MaxAmongThreads second(2);
  expect_clean(run_ranks(5, [&](Communicator& world) {
    // Ranks 3, 1 and 4, in that order; ranks 0 and 2 never call.
    const std::array<int, 3> members{3, 1, 4};
    if (std::ranges::find(members, world.rank()) == members.end()) {
      return;
    }
    const Communicator group =
        world.create_group(members, [&](std::uint32_t mine) { return first(mine); });
    ASSERT_EQ(group.size(), 3);
    EXPECT_EQ(group.world_rank(group.rank()), world.rank());
    EXPECT_EQ(group.rank(), world.rank() == 3 ? 0 : world.rank() == 1 ? 1 : 2);
    EXPECT_NE(group.context(), world.context());
    // A message on the group between two of the world's with the same tag
    // is received there first; the world's stay in order.
    if (group.rank() == 0) {
      const std::array<int, 3> values{10, 20, 30};
      world.send(values.data(), sizeof(int), 1, 7);
      group.send(&values[1], sizeof(int), 1, 7);
      world.send(&values[2], sizeof(int), 1, 7);
    } else if (group.rank() == 1) {
      int value = 0;
      const Status status = group.recv(&value, sizeof(int), kAnySource, 7);
      EXPECT_EQ(value, 20);
      EXPECT_EQ(status.source, 0);
      (void)world.recv(&value, sizeof(int), 3, 7);
      EXPECT_EQ(value, 10);
      (void)world.recv(&value, sizeof(int), 3, 7);
      EXPECT_EQ(value, 30);
    }
    // A second group of two of them gets a context of its own.
    if (world.rank() != 4) {
      const std::array<int, 2> pair{1, 0};
      const Communicator inner =
          group.create_group(pair, [&](std::uint32_t mine) { return second(mine); });
      EXPECT_EQ(inner.size(), 2);
      EXPECT_NE(inner.context(), group.context());
      EXPECT_NE(inner.context(), world.context());
      EXPECT_EQ(inner.world_rank(0), 1);
    }
  }));
}

TEST(Communicator, CreateGroupRefusesListsItCannotForm) {
  expect_clean(run_ranks(2, [](Communicator& world) {
    const auto never = [](std::uint32_t) -> std::uint32_t {
      ADD_FAILURE() << "agreed on a list that should have been refused";
      return 0;
    };
    const std::array<int, 2> twice{world.rank(), world.rank()};
    const std::array<int, 1> outside{2};
    const std::array<int, 1> other{1 - world.rank()};
    for (const std::span<const int> list :
         {std::span<const int>(twice), std::span<const int>(outside),
          std::span<const int>(other)}) {
      EXPECT_THROW((void)world.create_group(list, never), UsageError);
    }
    try {
      const std::array<int, 1> self{world.rank()};
      (void)world.create_group(self, [](std::uint32_t) -> std::uint32_t { return 0; });
      ADD_FAILURE() << "an agreement below this rank's candidate was taken";
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find("context 0"), std::string::npos) << error.what();
    }
  }));
}

TEST(Communicator, WaitAnyAndReleasedRequests) {
  expect_clean(run_ranks(3, [](Communicator& world) {
    if (world.rank() != 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(world.rank() == 2 ? 0 : 200));
      const int value = world.rank();
      Request send = world.isend(&value, sizeof(value), 0, 5);
      send.wait();
      return;
    }
    std::array<int, 2> values{-1, -1};
    std::array<Request, 2> receives{world.irecv(values.data(), sizeof(int), 1, 5),
                                    world.irecv(&values[1], sizeof(int), 2, 5)};
    const auto first = Request::wait_any(receives);
    ASSERT_TRUE(first);
    EXPECT_EQ(*first, 1U);  // rank 2 sent first
    EXPECT_EQ(values[1], 2);
    EXPECT_EQ(Request::wait_any(receives), std::optional<std::size_t>(0));
    EXPECT_EQ(Request::wait_any(receives), std::nullopt);
    // A released send still arrives.
    const int released = 42;  // alive until the receive below has it
    Request gone = world.isend(&released, sizeof(int), 0, 6);
    gone.release();
    EXPECT_FALSE(gone.active());
    int got = 0;
    (void)world.recv(&got, sizeof(int), 0, 6);
    EXPECT_EQ(got, 42);
  }));
}

// wait_any with a stop condition: another thread sets it and wakes the
// waiter (as the torch backend's completion thread is told of new work);
// the requests stay as they were. Its timeout throws nothing; a request
// that finishes ends it as wait_any's does.
TEST(Communicator, WaitAnyEndsWhenItsStopConditionHolds) {
  expect_clean(run_ranks(2, [](Communicator& world) {
    if (world.rank() == 1) {
      barrier(world);
      const int value = 7;
      world.send(&value, sizeof(value), 0, 3);
      return;
    }
    int got = 0;
    std::array<Request, 1> receives{world.irecv(&got, sizeof(got), 1, 3)};
    std::atomic<bool> stop{false};
    std::thread waker([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      stop = true;
      world.wake_waiters();
    });
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(Request::wait_any(receives, std::chrono::seconds(30), [&] { return stop.load(); }),
              std::nullopt);
    waker.join();
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
    EXPECT_TRUE(receives[0].active());
    // Without the condition, the timeout passes quietly.
    const auto before = std::chrono::steady_clock::now();
    EXPECT_EQ(Request::wait_any(receives, std::chrono::milliseconds(50), [] { return false; }),
              std::nullopt);
    EXPECT_GE(std::chrono::steady_clock::now() - before, std::chrono::milliseconds(50));
    barrier(world);
    EXPECT_EQ(Request::wait_any(receives, std::chrono::seconds(30), [] { return false; }),
              std::optional<std::size_t>(0));
    EXPECT_EQ(got, 7);
    EXPECT_FALSE(receives[0].active());
  }));
}

// A request holds what its communicator was made of: destroying the
// communicator first leaves it waitable, and its status still names ranks
// of that communicator.
TEST(Communicator, ARequestOutlivesItsCommunicator) {
  expect_clean(run_ranks(3, [](Communicator& world) {
    // Rank 2 leaves the piece it splits into and reverses the ranks of the
    // other, so a source named by world rank would be wrong.
    const int color = world.rank() == 2 ? 1 : 0;
    if (world.rank() == 0) {
      int got = -1;
      Request receive;
      {
        const std::optional<Communicator> reversed = world.split(color, -world.rank());
        ASSERT_TRUE(reversed);
        ASSERT_EQ(reversed->rank(), 1);
        receive = reversed->irecv(&got, sizeof(got), kAnySource, 7);
      }
      world.send(nullptr, 0, 1, 8);  // rank 1 sends once the communicator here is gone
      const Status& status = receive.wait();
      EXPECT_EQ(got, 11);
      EXPECT_EQ(status.source, 0);  // rank 1 of the world is rank 0 there
      EXPECT_EQ(status.tag, 7);
      return;
    }
    const std::optional<Communicator> piece = world.split(color, -world.rank());
    ASSERT_TRUE(piece);
    if (world.rank() == 1) {
      (void)world.recv(nullptr, 0, 0, 8);
      const int value = 11;
      piece->send(&value, sizeof(value), 1, 7);
    }
  }));
}

TEST(Communicator, BadArgumentsAreUsageErrorsNamingThem) {
  expect_clean(run_ranks(2, [](Communicator& world) {
    int value = 0;
    try {
      (void)world.isend(&value, sizeof(int), 2, 0);
      ADD_FAILURE() << "rank 2 of 2 accepted";
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find("rank 2"), std::string::npos) << error.what();
    }
    EXPECT_THROW((void)world.isend(&value, sizeof(int), 0, -5), UsageError);
    EXPECT_THROW((void)world.irecv(&value, sizeof(int), -3, 0), UsageError);
    EXPECT_THROW((void)world.irecv(nullptr, 4, 0, 0), UsageError);
    EXPECT_THROW((void)world.split(-7, 0), UsageError);
  }));
}

// With and without the progress thread (RAILYARD_PROGRESS_THREAD).
class CommunicatorThreads : public ::testing::TestWithParam<bool> {
 protected:
  static CommunicatorOptions options() {
    CommunicatorOptions options;
    options.progress_thread = GetParam();
    return options;
  }
};

TEST_P(CommunicatorThreads, SeveralThreadsSendAndReceiveOnOneCommunicator) {
  constexpr int kThreads = 4;
  constexpr int kMessages = 200;
  expect_clean(run_ranks(
      2,
      [](Communicator& world) {
        std::vector<std::thread> threads;
        threads.reserve(kThreads);
        std::atomic<int> wrong{0};
        for (int t = 0; t < kThreads; ++t) {
          threads.emplace_back([&world, &wrong, t] {
            for (int i = 0; i < kMessages; ++i) {
              int value = t * 1000 + i;
              if (world.rank() == 0) {
                world.send(&value, sizeof(int), 1, t);
              } else {
                (void)world.recv(&value, sizeof(int), 0, t);
                wrong += value == t * 1000 + i ? 0 : 1;
              }
            }
          });
        }
        for (auto& thread : threads) {
          thread.join();
        }
        EXPECT_EQ(wrong.load(), 0);
      },
      options()));
}

// One thread of each rank sits in a wildcard receive for the whole run
// while the others exchange large (rendezvous) and small messages in both
// directions; the last message ends the wildcard receive.
TEST_P(CommunicatorThreads, AThreadBlockedInAReceiveHoldsUpNoOther) {
  constexpr int kRounds = 20;
  constexpr std::size_t kLarge = std::size_t{1} << 20;
  constexpr int kDoneTag = 99;
  expect_clean(run_ranks(
      3,
      [](Communicator& world) {
        const int right = (world.rank() + 1) % world.size();
        const int left = (world.rank() + world.size() - 1) % world.size();
        int ended_by = -1;
        Status wildcard;
        std::thread blocked(
            [&] { wildcard = world.recv(&ended_by, sizeof(int), kAnySource, kDoneTag); });
        std::vector<std::byte> out(kLarge);
        std::vector<std::byte> in(kLarge);
        int wrong = 0;
        for (int round = 0; round < kRounds; ++round) {
          std::fill(out.begin(), out.end(), static_cast<std::byte>(world.rank() * 31 + round));
          Request recv = world.irecv(in.data(), in.size(), left, round);
          world.send(out.data(), out.size(), right, round);
          (void)recv.wait();
          wrong += std::count(in.begin(), in.end(), static_cast<std::byte>(left * 31 + round)) ==
                           static_cast<std::ptrdiff_t>(kLarge)
                       ? 0
                       : 1;
        }
        EXPECT_EQ(wrong, 0);
        const int me = world.rank();
        world.send(&me, sizeof(me), right, kDoneTag);
        blocked.join();
        EXPECT_EQ(ended_by, left);
        EXPECT_EQ(wildcard.source, left);
      },
      options()));
}

INSTANTIATE_TEST_SUITE_P(ProgressThread, CommunicatorThreads, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& param) {
                           return param.param ? std::string("On") : std::string("Off");
                         });

// A rank may leave right after its last sends; the messages must still
// reach their peer when nothing but the ranks' own calls progresses the
// endpoints (no background progress; last_messages.h).
TEST(Communicator, MessagesSentJustBeforeLeavingArrive) {
  const railyard::testing::ScopedEnv no_background("RAILYARD_BACKGROUND_PROGRESS", "0");
  CommunicatorOptions options;
  options.timeout = 10s;  // a lost message fails the test instead of hanging it
  options.shared_memory = SharedMemoryMode::kOff;  // over the rails, connections and all
  expect_clean(run_ranks(
      2,
      [](Communicator& world) {
        for (const std::string& wrong : railyard::testing::exchange_last_messages(world)) {
          ADD_FAILURE() << wrong;
        }
      },
      options));
}

TEST(Communicator, AnAbortReachesARankBlockedInAReceive) {
  const auto errors = run_ranks(3, [](Communicator& world) {
    if (world.rank() == 1) {
      std::this_thread::sleep_for(100ms);
      world.abort(9, "test abort");
      throw std::runtime_error("rank 1 aborted");
    }
    int value = 0;
    try {
      (void)world.recv(&value, sizeof(int), 1, 0);
      ADD_FAILURE() << "the receive returned";
    } catch (const AbortError& error) {
      EXPECT_EQ(error.rank(), 1);
      EXPECT_EQ(error.code(), 9);
    }
  });
  EXPECT_EQ(errors[0], "");
  EXPECT_EQ(errors[1], "rank 1 aborted");
  EXPECT_EQ(errors[2], "");
}

}  // namespace
}  // namespace railyard::comm

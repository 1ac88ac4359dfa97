// The C API with ranks as threads of one process, joined through a unique
// id as a launcher of its own would (one rank makes it, the others get it),
// each with its own endpoint on two loopback rails.
#include "railyard/c_api/railyard.h"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "scoped_env.h"

namespace {

using railyard::testing::ScopedEnv;

#define EXPECT_RY(call) EXPECT_EQ((call), RAILYARD_SUCCESS) << railyard_last_error()
#define ASSERT_RY(call) ASSERT_EQ((call), RAILYARD_SUCCESS) << railyard_last_error()

// Runs body(rank, comm) on `size` threads joined through one unique id.
void run_c_ranks(int size, const std::function<void(int, railyard_comm_t)>& body) {
  const ScopedEnv rails("FI_OFI_MRAIL_ADDR", "127.0.0.1,127.0.0.2");
  const ScopedEnv where("RAILYARD_UNIQUE_ID_HOST", "127.0.0.1");
  railyard_unique_id_t id;
  ASSERT_RY(railyard_get_unique_id(&id));
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(size));
  for (int rank = 0; rank < size; ++rank) {
    threads.emplace_back([&, rank] {
      railyard_comm_t comm = nullptr;
      ASSERT_RY(railyard_comm_init_rank(&comm, size, &id, rank));
      body(rank, comm);
      EXPECT_RY(railyard_comm_destroy(comm));
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
}

TEST(CApi, RanksJoinThroughAUniqueIdAndReduce) {
  constexpr int kSize = 3;
  run_c_ranks(kSize, [&](int rank, railyard_comm_t comm) {
    int me = -1;
    int size = 0;
    EXPECT_RY(railyard_comm_rank(comm, &me));
    EXPECT_RY(railyard_comm_size(comm, &size));
    EXPECT_EQ(me, rank);
    EXPECT_EQ(size, kSize);
    std::vector<std::int32_t> values(1000);
    std::iota(values.begin(), values.end(), rank * 1000);
    std::vector<std::int32_t> sums(values.size());
    EXPECT_RY(railyard_allreduce(values.data(), sums.data(), values.size(), RAILYARD_INT32,
                                 RAILYARD_SUM, comm));
    for (std::size_t i = 0; i < sums.size(); ++i) {
      ASSERT_EQ(sums[i], 3 * static_cast<std::int32_t>(i) + 3000) << "at " << i;
    }
    // In place, with doubles: the same bits on every rank.
    std::array<double, 4> x{1.0 / (rank + 3), 0.1, 0.2, 0.3};
    EXPECT_RY(railyard_allreduce(RAILYARD_IN_PLACE, x.data(), x.size(), RAILYARD_FLOAT64,
                                 RAILYARD_MAX, comm));
    EXPECT_EQ(x[0], 1.0 / 3);
    std::array<std::uint8_t, 8> bytes{};
    if (rank == 1) {
      bytes.fill(0xab);
    }
    EXPECT_RY(railyard_bcast(bytes.data(), bytes.size(), RAILYARD_UINT8, 1, comm));
    EXPECT_EQ(bytes[7], 0xab);
    EXPECT_RY(railyard_barrier(comm));
  });
}

TEST(CApi, EveryCollectiveAndItsNonBlockingForm) {
  constexpr int kSize = 4;
  constexpr std::size_t kCount = 3000;
  run_c_ranks(kSize, [&](int rank, railyard_comm_t comm) {
    std::vector<std::int64_t> mine(kCount * kSize);
    for (std::size_t i = 0; i < mine.size(); ++i) {
      mine[i] = std::int64_t{rank} * 100000 + static_cast<std::int64_t>(i);
    }
    std::vector<std::int64_t> gathered(kCount * kSize);
    std::vector<std::int64_t> exchanged(kCount * kSize);
    std::vector<std::int64_t> scattered(kCount);
    std::vector<std::int64_t> reduced(kCount);
    std::array<railyard_request_t, 5> requests{};
    ASSERT_RY(railyard_iallgather(mine.data(), gathered.data(), kCount, RAILYARD_INT64, comm,
                                  requests.data()));
    ASSERT_RY(railyard_ialltoall(mine.data(), exchanged.data(), kCount, RAILYARD_INT64, comm,
                                 &requests[1]));
    ASSERT_RY(railyard_ireduce_scatter(mine.data(), scattered.data(), kCount, RAILYARD_INT64,
                                       RAILYARD_MAX, comm, &requests[2]));
    ASSERT_RY(railyard_ireduce(mine.data(), reduced.data(), kCount, RAILYARD_INT64, RAILYARD_MIN, 0,
                               comm, &requests[3]));
    ASSERT_RY(railyard_ibarrier(comm, &requests[4]));
    // Tested until done, then waited (a finished request is NULL).
    int done = 0;
    while (done == 0) {
      ASSERT_RY(railyard_test(&requests[4], &done, nullptr));
    }
    EXPECT_EQ(requests[4], nullptr);
    for (railyard_request_t& request : requests) {
      EXPECT_RY(railyard_wait(&request, nullptr));
      EXPECT_EQ(request, nullptr);
    }
    for (int r = 0; r < kSize; ++r) {
      for (std::size_t i = 0; i < kCount; ++i) {
        const std::size_t at = static_cast<std::size_t>(r) * kCount + i;
        ASSERT_EQ(gathered[at], std::int64_t{r} * 100000 + static_cast<std::int64_t>(i));
        ASSERT_EQ(exchanged[at],
                  std::int64_t{r} * 100000 + static_cast<std::int64_t>(rank * kCount + i));
      }
    }
    for (std::size_t i = 0; i < kCount; ++i) {
      ASSERT_EQ(scattered[i],
                std::int64_t{kSize - 1} * 100000 + static_cast<std::int64_t>(rank * kCount + i));
      if (rank == 0) {
        ASSERT_EQ(reduced[i], static_cast<std::int64_t>(i));
      }
    }
  });
}

TEST(CApi, PointToPointSplitAndStatus) {
  run_c_ranks(4, [](int rank, railyard_comm_t comm) {
    // Odd and even ranks, reversed.
    railyard_comm_t half = nullptr;
    ASSERT_RY(railyard_comm_split(comm, rank % 2, -rank, &half));
    ASSERT_NE(half, nullptr);
    int me = -1;
    EXPECT_RY(railyard_comm_rank(half, &me));
    EXPECT_EQ(me, rank < 2 ? 1 : 0);
    const std::string text = "from " + std::to_string(rank);
    if (me == 0) {
      EXPECT_RY(railyard_send(text.data(), text.size(), 1, 9, half));
    } else {
      std::array<char, 32> got{};
      railyard_status_t status{};
      EXPECT_RY(railyard_recv(got.data(), got.size(), RAILYARD_ANY_SOURCE, RAILYARD_ANY_TAG, half,
                              &status));
      EXPECT_EQ(status.source, 0);
      EXPECT_EQ(status.tag, 9);
      EXPECT_EQ(std::string(got.data(), status.bytes), "from " + std::to_string(rank + 2));
    }
    auto* none = reinterpret_cast<railyard_comm_t>(&me);  // overwritten with NULL
    EXPECT_RY(railyard_comm_split(comm, rank == 3 ? RAILYARD_UNDEFINED : 0, 0, &none));
    EXPECT_EQ(none == nullptr, rank == 3);
    EXPECT_RY(railyard_comm_destroy(none));
    EXPECT_RY(railyard_comm_destroy(half));
  });
}

// A rank that sits out a collective: the timed-out rank's message names it
// and the exchange it waited in.
TEST(CApi, ATimeoutNamesTheRanksItWaitedFor) {
  const ScopedEnv timeout("RAILYARD_TIMEOUT", "400ms");
  std::atomic<bool> reported{false};
  run_c_ranks(2, [&](int rank, railyard_comm_t comm) {
    if (rank == 1) {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (!reported.load() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      return;
    }
    std::array<std::int32_t, 4096> data{};
    EXPECT_EQ(railyard_allreduce(data.data(), data.data(), data.size(), RAILYARD_INT32,
                                 RAILYARD_SUM, comm),
              RAILYARD_TIMEOUT);
    const std::string message = railyard_last_error();
    EXPECT_NE(message.find("did not finish within 400 ms; at its exchange"), std::string::npos)
        << message;
    EXPECT_NE(message.find("rank 1"), std::string::npos) << message;
    reported = true;
  });
}

TEST(CApi, BadArgumentsNameWhatIsWrong) {
  EXPECT_EQ(railyard_comm_init(nullptr), RAILYARD_INVALID_ARGUMENT);
  EXPECT_NE(std::string(railyard_last_error()).find("railyard_comm_init: comm is NULL"),
            std::string::npos);
  railyard_unique_id_t garbage;
  std::memset(garbage.internal, 'x', sizeof(garbage.internal));
  railyard_comm_t comm = nullptr;
  EXPECT_EQ(railyard_comm_init_rank(&comm, 2, &garbage, 1), RAILYARD_CONFIG_ERROR);
  EXPECT_NE(std::string(railyard_last_error()).find("expected the bytes railyard_get_unique_id"),
            std::string::npos)
      << railyard_last_error();
  EXPECT_EQ(railyard_comm_init_rank(&comm, 2, &garbage, 2), RAILYARD_INVALID_ARGUMENT);
  // Rank 0 must join where the id was made: an id made elsewhere is refused.
  railyard_unique_id_t id;
  ASSERT_RY(railyard_get_unique_id(&id));
  railyard_unique_id_t forged = id;
  forged.internal[sizeof(forged.internal) - 1] = '\0';
  std::string text(forged.internal);
  text.replace(text.size() - 4, 4, "0000");
  std::memset(forged.internal, 0, sizeof(forged.internal));
  std::memcpy(forged.internal, text.data(), text.size());
  EXPECT_EQ(railyard_comm_init_rank(&comm, 2, &forged, 0), RAILYARD_CONFIG_ERROR);
  EXPECT_NE(std::string(railyard_last_error()).find("rank 0 must join in the process"),
            std::string::npos)
      << railyard_last_error();
  EXPECT_STREQ(railyard_strerror(RAILYARD_TIMEOUT), "the operation timed out");
  int major = -1;
  EXPECT_RY(railyard_version(&major, nullptr, nullptr));
  EXPECT_GE(major, 0);
  EXPECT_STREQ(railyard_last_error(), "");  // a success clears it
  run_c_ranks(2, [](int rank, railyard_comm_t world) {
    std::array<int, 2> data{};
    EXPECT_EQ(railyard_send(data.data(), sizeof(data), 2, 0, world), RAILYARD_INVALID_ARGUMENT);
    EXPECT_NE(std::string(railyard_last_error()).find("dest 2 is not a rank"), std::string::npos);
    EXPECT_EQ(railyard_allreduce(data.data(), data.data(), 2, static_cast<railyard_datatype_t>(99),
                                 RAILYARD_SUM, world),
              RAILYARD_INVALID_ARGUMENT);
    EXPECT_EQ(
        railyard_allreduce(data.data(), data.data(), 2, RAILYARD_FLOAT32, RAILYARD_BXOR, world),
        RAILYARD_USAGE_ERROR);
    EXPECT_NE(std::string(railyard_last_error()).find("bxor"), std::string::npos)
        << railyard_last_error();
    EXPECT_EQ(railyard_iallreduce(data.data(), data.data(), 2, RAILYARD_INT32, RAILYARD_SUM, world,
                                  nullptr),
              RAILYARD_INVALID_ARGUMENT);
    EXPECT_EQ(railyard_bcast(data.data(), 2, RAILYARD_INT32, -1, world), RAILYARD_INVALID_ARGUMENT);
    // A message longer than the receive buffer: a usage error naming it.
    if (rank == 0) {
      EXPECT_RY(railyard_send(data.data(), sizeof(data), 1, 4, world));
    } else {
      int one = 0;
      EXPECT_EQ(railyard_recv(&one, sizeof(one), 0, 4, world, nullptr), RAILYARD_USAGE_ERROR);
    }
    railyard_request_t none = nullptr;
    railyard_status_t status{};
    EXPECT_RY(railyard_wait(&none, &status));
    EXPECT_RY(railyard_barrier(world));
  });
}

}  // namespace

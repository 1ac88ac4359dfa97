// RMA windows with ranks as threads: contents after put, get, flush and
// fence, and accesses outside a window refused without touching it.
#include "railyard/comm/window.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "railyard/common/error.h"
#include "thread_ranks.h"

namespace railyard::comm {
namespace {

using railyard::testing::expect_clean;
using railyard::testing::run_ranks;

// The value rank `writer` puts at index `i` of its slice in any window.
std::uint32_t written_value(int writer, std::size_t i) {
  return static_cast<std::uint32_t>(writer) * 1'000'003U + static_cast<std::uint32_t>(i);
}

class WindowSizes : public ::testing::TestWithParam<int> {};

// Every rank puts a slice into every rank's window (each window of its own
// size), fences, checks what landed in its own, then gets its right
// neighbour's whole window back and checks it.
TEST_P(WindowSizes, EveryRanksPutsLandAndGetsReadThemBack) {
  const int size = GetParam();
  expect_clean(run_ranks(size, [size](Communicator& world) {
    constexpr std::size_t kSlice = 1000;
    const int me = world.rank();
    // Rank r's window holds a slice per rank plus r extra, untouched, words.
    const auto words_of = [size](int rank) {
      return kSlice * static_cast<std::size_t>(size) + static_cast<std::size_t>(rank);
    };
    std::vector<std::uint32_t> memory(words_of(me), 0xDEADBEEF);
    Window window(world, memory.data(), memory.size() * sizeof(std::uint32_t));
    ASSERT_EQ(window.size(), size);
    for (int rank = 0; rank < size; ++rank) {
      ASSERT_EQ(window.size_of(rank), words_of(rank) * sizeof(std::uint32_t));
    }
    std::vector<std::uint32_t> mine(kSlice);
    for (std::size_t i = 0; i < kSlice; ++i) {
      mine[i] = written_value(me, i);
    }
    for (int target = 0; target < size; ++target) {
      window.put(mine.data(), kSlice * sizeof(std::uint32_t), target,
                 static_cast<std::uint64_t>(me) * kSlice * sizeof(std::uint32_t));
    }
    window.fence();
    std::size_t wrong = 0;
    for (int writer = 0; writer < size; ++writer) {
      for (std::size_t i = 0; i < kSlice; ++i) {
        wrong += memory[static_cast<std::size_t>(writer) * kSlice + i] == written_value(writer, i)
                     ? 0
                     : 1;
      }
    }
    for (std::size_t i = kSlice * static_cast<std::size_t>(size); i < memory.size(); ++i) {
      wrong += memory[i] == 0xDEADBEEF ? 0 : 1;
    }
    EXPECT_EQ(wrong, 0U) << "rank " << me << "'s window";

    const int right = (me + 1) % size;
    std::vector<std::uint32_t> copy(words_of(right), 0);
    window.get(copy.data(), copy.size() * sizeof(std::uint32_t), right, 0);
    window.flush(right);
    wrong = 0;
    for (int writer = 0; writer < size; ++writer) {
      for (std::size_t i = 0; i < kSlice; ++i) {
        wrong +=
            copy[static_cast<std::size_t>(writer) * kSlice + i] == written_value(writer, i) ? 0 : 1;
      }
    }
    EXPECT_EQ(wrong, 0U) << "rank " << right << "'s window as read by rank " << me;
    window.fence();  // nobody's memory goes while a get may still read it
  }));
}

INSTANTIATE_TEST_SUITE_P(Ranks, WindowSizes, ::testing::Values(1, 2, 3, 4));

// A large put is striped over both rails; flush(target) makes it visible
// before the message that tells the target about it.
TEST(Window, AFlushedLargePutIsVisibleBeforeTheNextMessage) {
  expect_clean(run_ranks(2, [](Communicator& world) {
    constexpr std::size_t kBytes = std::size_t{8} << 20;
    std::vector<std::uint8_t> memory(kBytes, 0);
    Window window(world, memory.data(), memory.size());
    if (world.rank() == 0) {
      std::vector<std::uint8_t> data(kBytes);
      std::iota(data.begin(), data.end(), std::uint8_t{7});
      window.put(data.data(), data.size(), 1, 0);
      window.flush(1);
      const int done = 1;
      world.send(&done, sizeof(done), 1, 0);
    } else {
      int done = 0;
      (void)world.recv(&done, sizeof(done), 0, 0);
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < kBytes; ++i) {
        wrong += memory[i] == static_cast<std::uint8_t>(7 + i) ? 0 : 1;
      }
      EXPECT_EQ(wrong, 0U);
    }
    window.fence();
  }));
}

// Out of bounds, bad ranks, null origins: UsageErrors that name what was
// wrong, raised before anything moves, so the windows keep their bytes.
TEST(Window, AccessesOutsideAWindowAreRefusedAndChangeNothing) {
  expect_clean(run_ranks(3, [](Communicator& world) {
    const int me = world.rank();
    // Rank 2 exposes nothing.
    std::vector<std::uint8_t> memory(me == 2 ? 0 : 64, static_cast<std::uint8_t>(0xA0 + me));
    Window window(world, memory.empty() ? nullptr : memory.data(), memory.size());
    std::vector<std::uint8_t> data(128, 0x55);
    const auto refused = [&](const std::function<void()>& access, const std::string& says) {
      try {
        access();
        ADD_FAILURE() << "not refused: " << says;
      } catch (const UsageError& error) {
        EXPECT_NE(std::string(error.what()).find(says), std::string::npos) << error.what();
      }
    };
    const int right = (me + 1) % 3;
    if (right != 2) {
      refused([&] { window.put(data.data(), 4, right, 61); },
              fmt::format("put of 4 bytes at offset 61 of rank {}'s window", right));
      refused([&] { window.get(data.data(), 65, right, 0); },
              fmt::format("get of 65 bytes at offset 0 of rank {}'s window", right));
      refused([&] { window.put(data.data(), 1, right, 1ULL << 62); }, "outside it");
      refused([&] { window.put(nullptr, 4, right, 0); }, "origin buffer is null");
      window.put(data.data(), 0, right, 64);  // empty, at the end: allowed
    } else {
      refused([&] { window.put(data.data(), 1, 2, 0); }, "the window holds 0 bytes");
      window.put(data.data(), 0, 2, 0);
    }
    refused([&] { window.put(data.data(), 1, 3, 0); }, "rank 3 is outside the communicator");
    refused([&] { window.put(data.data(), 1, -1, 0); }, "rank -1");
    refused([&] { (void)window.size_of(7); }, "rank 7");
    window.fence();
    for (const std::uint8_t byte : memory) {
      ASSERT_EQ(byte, static_cast<std::uint8_t>(0xA0 + me)) << "a refused access wrote";
    }
  }));
}

TEST(Window, AWindowOverASplitCommunicatorUsesItsRanks) {
  expect_clean(run_ranks(4, [](Communicator& world) {
    const std::optional<Communicator> half = world.split(world.rank() % 2, world.rank());
    ASSERT_TRUE(half.has_value());
    ASSERT_EQ(half->size(), 2);
    int slot = -1;
    Window window(*half, &slot, sizeof(slot));
    const int value = world.rank();
    window.put(&value, sizeof(value), 1 - half->rank(), 0);
    window.fence();
    // Ranks 0 and 2 share the even half, 1 and 3 the odd one.
    EXPECT_EQ(slot, world.rank() < 2 ? world.rank() + 2 : world.rank() - 2);
  }));
}

}  // namespace
}  // namespace railyard::comm

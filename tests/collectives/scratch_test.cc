// The collectives' working memory comes back from the pool instead of fresh
// pages, within the pool's limits.
#include "railyard/collectives/detail/scratch.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace railyard::collectives::detail {
namespace {

TEST(Scratch, ABufferGivenBackIsTakenAgainForAnyRequestItHolds) {
  std::byte* first = nullptr;
  {
    const Scratch buffer(std::size_t{3} << 20);
    ASSERT_NE(buffer.data(), nullptr);
    EXPECT_EQ(buffer.size(), std::size_t{3} << 20);
    std::memset(buffer.data(), 0x5A, buffer.size());  // all of it is writable
    first = buffer.data();
  }
  const Scratch smaller(std::size_t{1} << 20);
  EXPECT_EQ(smaller.data(), first);
  EXPECT_EQ(smaller.size(), std::size_t{1} << 20);
  // The one kept buffer is in use: a second request gets memory of its own.
  const Scratch another(std::size_t{1} << 20);
  EXPECT_NE(another.data(), first);
}

TEST(Scratch, ACopyHoldsTheBytesItWasMadeFrom) {
  std::vector<std::byte> source(5000);
  for (std::size_t i = 0; i < source.size(); ++i) {
    source[i] = static_cast<std::byte>(i * 7);
  }
  const Scratch copy = Scratch::copy_of(source.data(), source.size());
  ASSERT_EQ(copy.size(), source.size());
  EXPECT_EQ(std::memcmp(copy.data(), source.data(), source.size()), 0);
  const Scratch none = Scratch::copy_of(nullptr, 0);
  EXPECT_EQ(none.size(), 0U);
}

TEST(Scratch, TheSmallestFittingBufferIsTakenAndMovesHandOwnershipOver) {
  std::byte* small = nullptr;
  std::byte* large = nullptr;
  {
    const Scratch a(std::size_t{64} << 10);
    const Scratch b(std::size_t{8} << 20);
    small = a.data();
    large = b.data();
  }
  Scratch taken(std::size_t{32} << 10);
  EXPECT_EQ(taken.data(), small);
  Scratch moved = std::move(taken);
  EXPECT_EQ(moved.data(), small);
  // NOLINTNEXTLINE(bugprone-use-after-move,clang-analyzer-cplusplus.Move): checked on purpose
  EXPECT_EQ(taken.data(), nullptr);
  // NOLINTNEXTLINE(bugprone-use-after-move,clang-analyzer-cplusplus.Move)
  EXPECT_EQ(taken.size(), 0U);
  const Scratch big(std::size_t{4} << 20);
  EXPECT_EQ(big.data(), large);
}

// Buffers given back past the limit go to the allocator, which may hand
// the same addresses out again, so the test tells the pool's buffers by the
// order it hands them out in (smallest first) rather than by address alone.
TEST(Scratch, ThePoolKeepsAtMostItsLimitOfBuffersDroppingTheSmallest) {
  // Empty the pool of what earlier tests gave back, for the test's length.
  std::vector<Scratch> drained;
  drained.reserve(kScratchKeptBuffers);
  for (std::size_t i = 0; i < kScratchKeptBuffers; ++i) {
    drained.emplace_back(1);
  }
  constexpr std::size_t kExtra = 4;
  std::vector<Scratch> held;
  held.reserve(kScratchKeptBuffers + kExtra);
  for (std::size_t i = 0; i < kScratchKeptBuffers + kExtra; ++i) {
    held.emplace_back((i + 1) * (std::size_t{4} << 10));  // each larger than the one before
  }
  std::vector<std::byte*> addresses;
  addresses.reserve(held.size());
  for (const auto& s : held) {
    addresses.push_back(s.data());
  }
  held.clear();  // all given back: the kScratchKeptBuffers largest stay
  // Each request takes the smallest kept buffer that holds it: the kept
  // ones come back in increasing size, starting past the dropped ones.
  std::vector<Scratch> again;
  again.reserve(kScratchKeptBuffers);
  for (std::size_t i = 0; i < kScratchKeptBuffers; ++i) {
    again.emplace_back(1);
    EXPECT_EQ(again.back().data(), addresses[kExtra + i]) << "request " << i;
  }
}

TEST(Scratch, NothingIsTakenForNoBytes) {
  const Scratch none(0);
  EXPECT_EQ(none.data(), nullptr);
  EXPECT_EQ(none.size(), 0U);
}

}  // namespace
}  // namespace railyard::collectives::detail

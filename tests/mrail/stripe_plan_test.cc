// The scheduler against reference schedules, as aws-ofi-nccl tests its own.
#include "railyard/mrail/stripe_plan.h"

#include <gtest/gtest.h>

#include <numeric>
#include <random>

#include "railyard/common/error.h"

namespace railyard::mrail {
namespace {

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = 1048576;

std::vector<StripePiece> split(const StripePlan& plan, std::uint64_t size, std::size_t first = 0) {
  std::vector<StripePiece> out;
  plan.split(size, first, out);
  return out;
}

TEST(StripePlan, SmallTransfersTakeOneRotatingPath) {
  const StripePlan plan({1, 1, 1, 1}, 64 * kKiB);
  EXPECT_EQ(split(plan, 0), (std::vector<StripePiece>{{0, 0, 0}}));
  EXPECT_EQ(split(plan, 1, 2), (std::vector<StripePiece>{{2, 0, 1}}));
  EXPECT_EQ(split(plan, 100 * kKiB, 3), (std::vector<StripePiece>{{3, 0, 100 * kKiB}}));
  // Below two minimum chunks there is nothing to split.
  EXPECT_EQ(split(plan, 128 * kKiB - 1, 5), (std::vector<StripePiece>{{1, 0, 128 * kKiB - 1}}));
}

TEST(StripePlan, EqualWeightsSplitEqually) {
  const StripePlan plan({1, 1, 1, 1}, 64 * kKiB);
  EXPECT_EQ(split(plan, 128 * kKiB, 1),
            (std::vector<StripePiece>{{1, 0, 64 * kKiB}, {2, 64 * kKiB, 64 * kKiB}}));
  EXPECT_EQ(split(plan, 256 * kKiB), (std::vector<StripePiece>{{0, 0, 64 * kKiB},
                                                               {1, 64 * kKiB, 64 * kKiB},
                                                               {2, 128 * kKiB, 64 * kKiB},
                                                               {3, 192 * kKiB, 64 * kKiB}}));
  // 1 MiB + 3: three aligned quarters, the last takes the odd bytes.
  EXPECT_EQ(split(plan, 1048576 + 3, 2),
            (std::vector<StripePiece>{
                {2, 0, 262144}, {3, 262144, 262144}, {0, 524288, 262144}, {1, 786432, 262147}}));
  // 200 KiB fits three 64 KiB chunks: 3 paths, shares aligned down to 128 B.
  EXPECT_EQ(split(plan, 200 * kKiB),
            (std::vector<StripePiece>{{0, 0, 68224}, {1, 68224, 68224}, {2, 136448, 68352}}));
}

TEST(StripePlan, WeightsSetTheShares) {
  const StripePlan plan({2, 1, 1}, 64 * kKiB);
  // 4 MiB over weights 2:1:1.
  EXPECT_EQ(
      split(plan, 4 * kMiB),
      (std::vector<StripePiece>{{0, 0, 2097152}, {1, 2097152, 1048576}, {2, 3145728, 1048576}}));
}

TEST(StripePlan, AShareBelowTheMinimumDropsTheLightestPath) {
  // Weight 1 against 20 would get 1/21 of 512 KiB = 24 KiB < 64 KiB.
  const StripePlan plan({20, 1}, 64 * kKiB);
  EXPECT_EQ(split(plan, 512 * kKiB), (std::vector<StripePiece>{{0, 0, 512 * kKiB}}));
  // At 2 MiB its share (97.5 KiB) is enough.
  const auto pieces = split(plan, 2048 * kKiB);
  ASSERT_EQ(pieces.size(), 2U);
  EXPECT_EQ(pieces[1].path, 1U);
  EXPECT_GE(pieces[1].length, 64 * kKiB);
}

TEST(StripePlan, OnePathNeverSplits) {
  const StripePlan plan({1}, 64 * kKiB);
  EXPECT_EQ(split(plan, 64 * kMiB, 7), (std::vector<StripePiece>{{0, 0, 64 * kMiB}}));
}

TEST(StripePlan, RandomSizesCoverEveryByteOnceWithoutEmptyPieces) {
  std::mt19937_64 random(42);
  for (int round = 0; round < 2000; ++round) {
    const std::size_t paths = 1 + random() % 6;
    std::vector<double> weights(paths);
    for (auto& w : weights) {
      w = 0.25 + static_cast<double>(random() % 16) / 4;
    }
    const std::uint64_t min_chunk = 1 + random() % (256 * kKiB);
    const std::uint64_t alignment = std::min<std::uint64_t>(min_chunk, 1ULL << (random() % 8));
    const StripePlan plan(weights, min_chunk, alignment);
    const std::uint64_t size = random() % (32 * kMiB);
    const auto pieces = split(plan, size, random() % 10);
    ASSERT_FALSE(pieces.empty());
    std::uint64_t expected_offset = 0;
    std::vector<bool> used(paths, false);
    for (const auto& piece : pieces) {
      ASSERT_EQ(piece.offset, expected_offset);
      ASSERT_LT(piece.path, paths);
      ASSERT_FALSE(used[piece.path]) << "a path got two pieces";
      used[piece.path] = true;
      if (pieces.size() > 1) {
        ASSERT_GE(piece.length, min_chunk);
      }
      if (size > 0) {
        ASSERT_GT(piece.length, 0U);
      }
      expected_offset += piece.length;
    }
    ASSERT_EQ(expected_offset, size);
    ASSERT_LE(pieces.size(), std::max<std::uint64_t>(1, size / min_chunk));
  }
}

TEST(StripePlan, RejectsBadParameters) {
  EXPECT_THROW(StripePlan({}, 64), Error);
  EXPECT_THROW(StripePlan({1, 0}, 64), Error);
  EXPECT_THROW(StripePlan({1, -2}, 64), Error);
  EXPECT_THROW(StripePlan({1}, 0), Error);
  EXPECT_THROW(StripePlan({1}, 64, 128), Error);
}

}  // namespace
}  // namespace railyard::mrail

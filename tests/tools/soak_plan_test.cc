// The soak's message plan: both sides derive the same messages from the
// seed, and a receiver's check tells each kind of wrong message from the
// one expected.
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "message_plan.h"

namespace railyard::soak {
namespace {

constexpr std::size_t kMaxSize = std::size_t{4} << 20;

TEST(SoakPlan, BothSidesDeriveTheSameMessagesAndTheDirectionsDiffer) {
  const MessagePlan sender(7, 0, kMaxSize);
  const MessagePlan receiver(7, 0, kMaxSize);
  const MessagePlan back(7, 1, kMaxSize);
  int differ = 0;
  for (std::uint64_t seq = 0; seq < 200; ++seq) {
    const MessageSpec spec = sender.spec(Stream::kTagged, seq);
    EXPECT_EQ(receiver.mismatch(spec, sender.bytes(spec)), "") << seq;
    const MessageSpec other = back.spec(Stream::kTagged, seq);
    differ += (other.size != spec.size || other.tag != spec.tag) ? 1 : 0;
  }
  EXPECT_GT(differ, 150);
}

TEST(SoakPlan, SizesCoverEveryClassUpToTheLargest) {
  const MessagePlan plan(1, 0, kMaxSize);
  std::array<int, 4> per_class{};
  std::size_t largest = 0;
  int untagged = 0;
  for (std::uint64_t seq = 0; seq < 20000; ++seq) {
    const MessageSpec spec = plan.spec(Stream::kTagged, seq);
    ASSERT_LE(spec.size, kMaxSize);
    largest = std::max(largest, spec.size);
    per_class[spec.size <= 1024 ? 0 : spec.size <= 16384 ? 1 : spec.size <= 262144 ? 2 : 3]++;
    untagged += plan.stream_of(seq) == Stream::kUntagged ? 1 : 0;
  }
  // 60 %, 25 %, 12 % and 3 % of the messages, give or take.
  EXPECT_NEAR(per_class[0], 12000, 600);
  EXPECT_NEAR(per_class[1], 5000, 500);
  EXPECT_NEAR(per_class[2], 2400, 400);
  EXPECT_NEAR(per_class[3], 600, 200);
  EXPECT_GT(largest, kMaxSize - kMaxSize / 20);
  EXPECT_NEAR(untagged, 5000, 500);
}

TEST(SoakPlan, TheCheckTellsEveryWrongMessageFromTheExpectedOne) {
  const MessagePlan plan(3, 0, kMaxSize);
  // A message of some size, and its successor of another.
  std::uint64_t seq = 0;
  while (plan.spec(Stream::kTagged, seq).size < 100 ||
         plan.spec(Stream::kTagged, seq + 1).size == plan.spec(Stream::kTagged, seq).size) {
    ++seq;
  }
  const MessageSpec spec = plan.spec(Stream::kTagged, seq);
  const auto bytes = plan.bytes(spec);
  std::vector<std::byte> copy(bytes.begin(), bytes.end());
  EXPECT_EQ(plan.mismatch(spec, copy), "");
  // Corrupted: one byte.
  copy[spec.size / 2] ^= std::byte{1};
  EXPECT_NE(plan.mismatch(spec, copy).find("differs from byte"), std::string::npos);
  // Truncated.
  EXPECT_NE(plan.mismatch(spec, std::span(bytes).first(spec.size - 1)).find("bytes where"),
            std::string::npos);
  // The next message (a reordering, or a loss) in its place.
  const MessageSpec next = plan.spec(Stream::kTagged, seq + 1);
  EXPECT_NE(plan.mismatch(spec, plan.bytes(next)), "");
  // The same size, the bytes of another message (a duplicate of an
  // earlier message of that size).
  for (std::uint64_t other = 0; other < 100000; ++other) {
    const MessageSpec candidate = plan.spec(Stream::kUntagged, other);
    if (candidate.size == spec.size) {
      EXPECT_NE(plan.mismatch(spec, plan.bytes(candidate)), "") << other;
      break;
    }
  }
}

}  // namespace
}  // namespace railyard::soak

// The matching engine on its own: which unexpected message a receive takes
// (the oldest it accepts, by source and tag under the ignore mask), what a
// probe sees, and that taking a message removes it.
#include <gtest/gtest.h>

#include <deque>

#include "railyard/mrail/detail/matching_engine.h"

namespace railyard::mrail {
namespace {

constexpr PeerId kPeerA{0};
constexpr PeerId kPeerB{1};

class MatchingEngineTest : public ::testing::Test {
 protected:
  // Messages live in a deque: the engine links them, so they must not move.
  InboundMessage& arrive(PeerId source, std::uint64_t tag) {
    InboundMessage& message = messages_.emplace_back();
    message.source = source;
    message.tag = tag;
    message.seq = static_cast<SeqNum>(messages_.size());
    engine_.add_unexpected(message);
    return message;
  }

  MatchingEngine engine_;
  std::deque<InboundMessage> messages_;
};

TEST(MatchingRule, SourceAndTagUnderTheIgnoreMask) {
  EXPECT_TRUE(MatchingEngine::matches(kPeerB, 7, 0, kPeerB, 7));
  EXPECT_FALSE(MatchingEngine::matches(kPeerB, 7, 0, kPeerA, 7));
  EXPECT_FALSE(MatchingEngine::matches(kPeerB, 7, 0, kPeerB, 8));
  EXPECT_TRUE(MatchingEngine::matches(/*want_source=*/PeerId{kAnySource}, 7, 0, kPeerA, 7));
  EXPECT_TRUE(MatchingEngine::matches(kPeerB, 0, kAnyTag, kPeerB, 12345));
  // Masked bits are free, the others must agree: a communicator's context in
  // the upper bits stays, the user's tag in the lower ones is a wildcard.
  constexpr std::uint64_t kUserBits = 0xFFFFFFFFU;
  EXPECT_TRUE(MatchingEngine::matches(kPeerB, 0x5'00000000, kUserBits, kPeerB, 0x5'00000042));
  EXPECT_FALSE(MatchingEngine::matches(kPeerB, 0x5'00000000, kUserBits, kPeerB, 0x6'00000042));
}

TEST_F(MatchingEngineTest, AReceiveTakesTheOldestMessageItAccepts) {
  InboundMessage& first = arrive(kPeerA, 7);
  InboundMessage& second = arrive(kPeerB, 7);
  InboundMessage& third = arrive(kPeerA, 7);
  EXPECT_EQ(engine_.unexpected_count(), 3U);
  EXPECT_EQ(engine_.take_unexpected(kAnySource, 7, 0), &first);
  EXPECT_EQ(engine_.take_unexpected(kPeerA, 7, 0), &third);
  EXPECT_EQ(engine_.take_unexpected(kPeerA, 7, 0), nullptr);
  EXPECT_EQ(engine_.take_unexpected(kAnySource, 7, 0), &second);
  EXPECT_EQ(engine_.unexpected_count(), 0U);
}

TEST_F(MatchingEngineTest, TagsAndMasksChooseAmongSources) {
  InboundMessage& tag5 = arrive(kPeerA, 5);
  InboundMessage& tag9 = arrive(kPeerA, 9);
  EXPECT_EQ(engine_.take_unexpected(kPeerA, 9, 0), &tag9);
  EXPECT_EQ(engine_.take_unexpected(kPeerA, 9, 0), nullptr);
  EXPECT_EQ(engine_.take_unexpected(kPeerA, 0, kAnyTag), &tag5);
}

TEST_F(MatchingEngineTest, AProbeLooksWithoutTaking) {
  InboundMessage& message = arrive(kPeerB, 3);
  EXPECT_EQ(engine_.peek_unexpected(kAnySource, 0, kAnyTag), &message);
  EXPECT_EQ(engine_.peek_unexpected(kPeerA, 0, kAnyTag), nullptr);
  EXPECT_EQ(engine_.unexpected_count(), 1U);
  EXPECT_EQ(engine_.take_unexpected(kPeerB, 3, 0), &message);
  EXPECT_EQ(engine_.peek_unexpected(kAnySource, 0, kAnyTag), nullptr);
}

TEST_F(MatchingEngineTest, ARemovedMessageIsNoLongerMatched) {
  InboundMessage& gone = arrive(kPeerA, 1);
  InboundMessage& kept = arrive(kPeerA, 1);
  engine_.remove_unexpected(gone);
  EXPECT_EQ(engine_.take_unexpected(kPeerA, 1, 0), &kept);
  EXPECT_EQ(engine_.unexpected_count(), 0U);
}

TEST_F(MatchingEngineTest, NoPostedReceiveMeansNoMatchForAnArrival) {
  EXPECT_EQ(engine_.posted_count(), 0U);
  EXPECT_EQ(engine_.take_posted(kPeerA, 1), nullptr);
  EXPECT_EQ(engine_.posted_from(kPeerA), nullptr);
}

}  // namespace
}  // namespace railyard::mrail

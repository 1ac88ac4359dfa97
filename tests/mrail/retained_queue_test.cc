// The ring that keeps a path's unacknowledged messages for failover.
#include "railyard/mrail/detail/retained_queue.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace railyard::mrail {
namespace {

std::vector<std::byte> message_of(std::size_t size, std::uint32_t seed) {
  std::vector<std::byte> bytes(size);
  for (std::size_t i = 0; i < size; ++i) {
    bytes[i] = static_cast<std::byte>((std::size_t{seed} * 131 + i) & 0xff);
  }
  return bytes;
}

// The path sequence numbers kept, oldest first, each checked against the
// bytes pushed under it.
std::vector<SeqNum> kept(const RetainedQueue& queue, std::size_t size) {
  std::vector<SeqNum> seqs;
  queue.for_each([&](const RetainedMessage& message) {
    EXPECT_EQ(message.bytes, message_of(size, message.path_seq)) << "message " << message.path_seq;
    seqs.push_back(message.path_seq);
  });
  return seqs;
}

TEST(RetainedQueue, ReleasesOldestFirstUpToTheAcknowledgement) {
  RetainedQueue queue;
  EXPECT_TRUE(queue.empty());
  for (SeqNum seq = 1; seq <= 5; ++seq) {
    queue.push(seq, message_of(100, seq));
  }
  EXPECT_EQ(queue.size(), 5U);
  EXPECT_EQ(queue.bytes(), 500U);
  queue.release_through(0);  // before the first: nothing goes
  EXPECT_EQ(queue.size(), 5U);
  queue.release_through(3);
  EXPECT_EQ(kept(queue, 100), (std::vector<SeqNum>{4, 5}));
  EXPECT_EQ(queue.bytes(), 200U);
  queue.release_through(3);  // again: nothing more goes
  EXPECT_EQ(queue.size(), 2U);
  queue.release_through(5);
  EXPECT_TRUE(queue.empty());
  EXPECT_EQ(queue.bytes(), 0U);
}

TEST(RetainedQueue, NumbersWrapAroundZero) {
  RetainedQueue queue;
  const SeqNum first = UINT32_MAX - 2;
  for (SeqNum i = 0; i < 6; ++i) {
    queue.push(first + i, message_of(10, first + i));
  }
  queue.release_through(UINT32_MAX);
  EXPECT_EQ(kept(queue, 10), (std::vector<SeqNum>{0, 1, 2}));
  queue.release_through(1);
  EXPECT_EQ(kept(queue, 10), (std::vector<SeqNum>{2}));
}

TEST(RetainedQueue, GrowsInOrderWhileTheRingIsWrapped) {
  RetainedQueue queue;
  SeqNum next = 1;
  SeqNum acked = 0;
  // Keep a few in flight so the ring's head moves off slot 0, then burst
  // well past kKeptSlots: each growth must keep the order.
  for (int i = 0; i < 5; ++i) {
    queue.push(next, message_of(64, next));
    ++next;
  }
  queue.release_through(acked += 3);
  const std::size_t burst = RetainedQueue::kKeptSlots * 5 + 3;
  for (std::size_t i = 0; i < burst; ++i) {
    queue.push(next, message_of(64, next));
    ++next;
  }
  std::vector<SeqNum> expected;
  for (SeqNum seq = acked + 1; seq < next; ++seq) {
    expected.push_back(seq);
  }
  EXPECT_EQ(kept(queue, 64), expected);
  EXPECT_EQ(queue.bytes(), 64U * expected.size());
  // Acknowledged in steps, then all: a trim while messages are kept keeps
  // them; once empty, the ring shrinks back and goes on.
  queue.release_through(acked + 50);
  EXPECT_EQ(queue.size(), expected.size() - 50);
  queue.trim();
  expected.erase(expected.begin(), expected.begin() + 50);
  EXPECT_EQ(kept(queue, 64), expected);
  queue.release_through(next - 1);
  EXPECT_TRUE(queue.empty());
  queue.trim();
  EXPECT_TRUE(queue.empty());
  for (int i = 0; i < 3; ++i) {
    queue.push(next, message_of(64, next));
    ++next;
  }
  EXPECT_EQ(kept(queue, 64), (std::vector<SeqNum>{next - 3, next - 2, next - 1}));
}

TEST(RetainedQueue, ASlotReusedForALongerMessageHoldsAllOfIt) {
  RetainedQueue queue;
  SeqNum seq = 1;
  // Every slot first holds a short message, then a long one (beyond what a
  // slot keeps between messages), then a short one again.
  for (const std::size_t size :
       {std::size_t{16}, RetainedQueue::kKeptCapacity * 4, std::size_t{16}}) {
    for (std::size_t i = 0; i < RetainedQueue::kKeptSlots; ++i, ++seq) {
      queue.push(seq, message_of(size, seq));
    }
    EXPECT_EQ(kept(queue, size).size(), RetainedQueue::kKeptSlots);
    EXPECT_EQ(queue.bytes(), size * RetainedQueue::kKeptSlots);
    queue.release_through(seq - 1);
    EXPECT_TRUE(queue.empty());
  }
}

TEST(RetainedQueue, AQuietPathHoldsLittleOnceTrimmed) {
  // What a quiet queue may hold: kKeptSlots slots, each with a buffer of at
  // most kKeptCapacity.
  constexpr std::uint64_t kQuietBound =
      RetainedQueue::kKeptSlots * (sizeof(RetainedMessage) + RetainedQueue::kKeptCapacity);
  RetainedQueue queue;
  SeqNum seq = 1;
  constexpr std::size_t kLarge = std::size_t{16} * 1024;
  // A burst of large messages: the buffers stay while it is acknowledged
  // (the next burst reuses them) and while a trim finds messages kept.
  for (int i = 0; i < 200; ++i, ++seq) {
    queue.push(seq, message_of(kLarge, seq));
  }
  queue.release_through(seq - 2);
  queue.trim();
  EXPECT_GT(queue.held_bytes(), 100 * kLarge);
  EXPECT_EQ(kept(queue, kLarge), (std::vector<SeqNum>{seq - 1}));
  queue.release_through(seq - 1);
  EXPECT_GT(queue.held_bytes(), 100 * kLarge);
  queue.trim();
  EXPECT_LE(queue.held_bytes(), kQuietBound);
  // Every buffer was large, so none is left; nor is the storage of the
  // slots the burst grew the ring by.
  EXPECT_LE(queue.held_bytes(), RetainedQueue::kKeptSlots * sizeof(RetainedMessage));
  // Small messages keep their buffers across a trim, and still fit.
  for (int i = 0; i < 10; ++i, ++seq) {
    queue.push(seq, message_of(1000, seq));
  }
  queue.release_through(seq - 1);
  const std::uint64_t small_held = queue.held_bytes();
  queue.trim();
  EXPECT_EQ(queue.held_bytes(), small_held);
  EXPECT_LE(small_held, kQuietBound);
}

TEST(RetainedQueue, ClearDropsEverythingAndStartsAgain) {
  RetainedQueue queue;
  for (SeqNum seq = 1; seq <= 100; ++seq) {
    queue.push(seq, message_of(seq, seq));
  }
  queue.clear();
  EXPECT_TRUE(queue.empty());
  EXPECT_EQ(queue.bytes(), 0U);
  EXPECT_LE(queue.held_bytes(),
            RetainedQueue::kKeptSlots * (sizeof(RetainedMessage) + RetainedQueue::kKeptCapacity));
  int visited = 0;
  queue.for_each([&](const RetainedMessage&) { ++visited; });
  EXPECT_EQ(visited, 0);
  queue.push(101, message_of(7, 101));
  queue.release_through(100);
  EXPECT_EQ(kept(queue, 7), (std::vector<SeqNum>{101}));
}

}  // namespace
}  // namespace railyard::mrail

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "railyard/common/intrusive_list.h"
#include "railyard/mrail/detail/reorder_buffer.h"
#include "railyard/mrail/detail/sequence.h"

namespace railyard::mrail {
namespace {

TEST(Sequence, ComparesAcrossWraparound) {
  EXPECT_TRUE(seq_before(1, 2));
  EXPECT_FALSE(seq_before(2, 1));
  EXPECT_FALSE(seq_before(5, 5));
  EXPECT_TRUE(seq_before(0xFFFFFFFFU, 0));  // 0 follows 2^32-1
  EXPECT_TRUE(seq_before(0xFFFFFFF0U, 0x10));
  EXPECT_FALSE(seq_before(0x10, 0xFFFFFFF0U));
  EXPECT_EQ(seq_distance(0xFFFFFFFEU, 1), 3U);
}

TEST(ReorderBuffer, ReleasesInOrderWhateverTheArrivalOrder) {
  // Starts just below the wrap so the window crosses it.
  ReorderBuffer<std::string> buffer(8, 0xFFFFFFFDU);
  std::vector<SeqNum> arrivals{0xFFFFFFFFU, 1, 0xFFFFFFFDU, 0, 0xFFFFFFFEU, 2};
  std::vector<std::string> released;
  for (const SeqNum seq : arrivals) {
    ASSERT_EQ(buffer.place(seq), ReorderBuffer<std::string>::Placement::kWindow) << seq;
    buffer.emplace(seq, std::to_string(seq));
    while (buffer.next_ready()) {
      released.push_back(buffer.take_next());
    }
  }
  EXPECT_EQ(released,
            (std::vector<std::string>{"4294967293", "4294967294", "4294967295", "0", "1", "2"}));
  EXPECT_EQ(buffer.next(), 3U);
  EXPECT_EQ(buffer.occupied(), 0U);
}

TEST(ReorderBuffer, ClassifiesPastWindowAndBeyond) {
  ReorderBuffer<int> buffer(4, 10);
  using P = ReorderBuffer<int>::Placement;
  EXPECT_EQ(buffer.place(9), P::kPast);
  EXPECT_EQ(buffer.place(10), P::kWindow);
  EXPECT_EQ(buffer.place(13), P::kWindow);
  EXPECT_EQ(buffer.place(14), P::kBeyond);
  EXPECT_EQ(buffer.find(12), nullptr);
  buffer.emplace(12, 7);
  ASSERT_NE(buffer.find(12), nullptr);
  EXPECT_EQ(*buffer.find(12), 7);
  EXPECT_FALSE(buffer.next_ready());
}

TEST(ReorderBuffer, RandomPermutationsWithinTheWindow) {
  std::mt19937 random(7);
  ReorderBuffer<SeqNum> buffer(64, 0xFFFFFF00U);
  SeqNum sent = 0xFFFFFF00U;
  SeqNum expected = sent;
  for (int round = 0; round < 200; ++round) {
    // A burst of up to 64 messages, arriving shuffled.
    std::vector<SeqNum> burst(1 + random() % 64);
    for (auto& seq : burst) {
      seq = sent++;
    }
    std::shuffle(burst.begin(), burst.end(), random);
    for (const SeqNum seq : burst) {
      ASSERT_EQ(buffer.place(seq), ReorderBuffer<SeqNum>::Placement::kWindow);
      buffer.emplace(seq, seq);
      while (buffer.next_ready()) {
        ASSERT_EQ(buffer.take_next(), expected++);
      }
    }
  }
  EXPECT_EQ(expected, sent);
}

struct Item {
  int value = 0;
  ListHook hook;
};

TEST(IntrusiveList, LinksAndUnlinksAnywhere) {
  IntrusiveList<Item, &Item::hook> list;
  Item a{1, {}};
  Item b{2, {}};
  Item c{3, {}};
  list.push_back(a);
  list.push_back(b);
  list.push_back(c);
  EXPECT_EQ(list.size(), 3U);
  list.erase(b);
  EXPECT_FALSE(b.hook.linked());
  std::vector<int> seen;
  list.for_each([&](const Item& item) { seen.push_back(item.value); });
  EXPECT_EQ(seen, (std::vector<int>{1, 3}));
  EXPECT_EQ(list.find_if([](const Item& item) { return item.value == 3; }), &c);
  list.erase(b);  // erasing an unlinked element is harmless
  list.erase(a);
  EXPECT_EQ(list.front(), &c);
  list.erase(c);
  EXPECT_TRUE(list.empty());
  list.push_back(b);
  EXPECT_EQ(list.front(), &b);
}

}  // namespace
}  // namespace railyard::mrail

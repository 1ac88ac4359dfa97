// Messages nobody has asked for yet are held in memory, up to a budget per
// peer and in total; past it, the receiver holds back the sender's credits
// (back-pressure), and nothing fails, is lost or is reordered.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include "endpoint_pair.h"
#include "pattern.h"
#include "railyard/mrail/detail/reorder_buffer.h"
#include "railyard/mrail/endpoint.h"

namespace railyard::mrail {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kBudgetMessageSize = 64 << 10;
constexpr int kBudgetMessages = 400;  // 25 MiB, far past the budget
constexpr std::uint32_t kWindow = 16;

Options budget_options(std::uint64_t per_peer, std::uint64_t total) {
  auto options = testing::endpoint_options(2, "-1:striping");
  options.window = kWindow;
  options.eager_limit = kBudgetMessageSize;  // the budget holds eager payloads
  options.unexpected_peer_bytes = per_peer;
  options.unexpected_bytes = total;
  return options;
}

// Messages of kBudgetMessageSize to endpoint 1, each filled with a pattern naming
// its sender and index (its tag), with their send requests.
struct ToReceiver {
  explicit ToReceiver(testing::EndpointGroup& endpoints) : group(endpoints) {}

  // Sends message `index` from endpoint `from`.
  void send(std::size_t from, int index) {
    payloads.emplace_back(kBudgetMessageSize);
    testing::fill_pattern(payloads.back(), (from << 32) | static_cast<std::uint64_t>(index));
    sends.push_back(std::make_unique<Request>());
    ASSERT_TRUE(group[from]
                    .send(*sends.back(), group.ids[from][1], payloads.back().data(),
                          kBudgetMessageSize, static_cast<std::uint64_t>(index))
                    .ok());
  }

  // Receives message `index` from endpoint `from` at endpoint 1 within
  // `limit`, and checks it arrived whole and intact.
  void receive(std::size_t from, int index, std::chrono::seconds limit) {
    Request recv;
    ASSERT_TRUE(group[1]
                    .recv(recv, group.ids[1][from], buffer.data(), buffer.size(),
                          static_cast<std::uint64_t>(index))
                    .ok());
    ASSERT_TRUE(group.run_until([&] { return recv.done(); }, limit))
        << "message " << index << " from endpoint " << from << " never came";
    ASSERT_TRUE(recv.status().ok()) << recv.status().to_string();
    ASSERT_EQ(testing::first_mismatch(buffer, (from << 32) | static_cast<std::uint64_t>(index)),
              std::nullopt)
        << "message " << index << " from endpoint " << from;
  }

  [[nodiscard]] bool all_sent() const {
    return std::all_of(sends.begin(), sends.end(), [](const auto& s) { return s->done(); });
  }

  // Waits for every send, which must have succeeded.
  void expect_all_sent() {
    ASSERT_TRUE(group.run_until([&] { return all_sent(); }));
    for (const auto& sent : sends) {
      EXPECT_TRUE(sent->status().ok()) << sent->status().to_string();
    }
  }

  testing::EndpointGroup& group;
  std::vector<std::vector<std::byte>> payloads;
  std::vector<std::unique_ptr<Request>> sends;
  std::vector<std::byte> buffer = std::vector<std::byte>(kBudgetMessageSize);
};

// Sends kBudgetMessages to endpoint 1 from every other endpoint, progresses for a
// while without a receive posted, and checks what the receiver holds.
void expect_bounded(testing::EndpointGroup& group, std::uint64_t bound) {
  Endpoint& receiver = group[1];
  ToReceiver traffic(group);
  std::vector<std::size_t> senders;
  for (std::size_t s = 0; s < group.endpoints.size(); ++s) {
    if (s != 1) {
      senders.push_back(s);
    }
  }
  for (int i = 0; i < kBudgetMessages; ++i) {
    for (const std::size_t s : senders) {
      ASSERT_NO_FATAL_FAILURE(traffic.send(s, i));
    }
  }
  // Everything the credits allow arrives; nothing is receiving it.
  (void)group.run_until([] { return false; }, 2s);
  const auto held = receiver.counters();
  EXPECT_LE(held.unexpected_bytes, bound)
      << "unexpected messages were admitted past the budget and the window";
  EXPECT_GT(held.unexpected_bytes, 0U);
  EXPECT_GT(held.credit_holds, 0U) << "the budget never held back a credit";
  EXPECT_FALSE(traffic.all_sent())
      << "every send completed although the receiver holds far less than was sent";

  // Receiving releases the credits: every message arrives once, intact and
  // in order, and every send completes successfully.
  for (int i = 0; i < kBudgetMessages; ++i) {
    for (const std::size_t s : senders) {
      ASSERT_NO_FATAL_FAILURE(traffic.receive(s, i, 30s));
    }
  }
  ASSERT_NO_FATAL_FAILURE(traffic.expect_all_sent());
  EXPECT_EQ(receiver.counters().unexpected_bytes, 0U);
}

TEST(UnexpectedBudget, APeerPastItsBudgetIsHeldBackByCredits) {
  constexpr std::uint64_t kPerPeer = 1 << 20;
  testing::EndpointGroup group(
      {budget_options(kPerPeer, 1ULL << 40), budget_options(kPerPeer, 1ULL << 40)});
  // The budget, plus what credits already allowed when it was reached: the
  // messages since the last credit (under a quarter window) and a window
  // past it. Two windows bound both.
  expect_bounded(group, kPerPeer + std::uint64_t{2} * kWindow * kBudgetMessageSize);
}

TEST(UnexpectedBudget, TheTotalBudgetHoldsBackEveryPeer) {
  constexpr std::uint64_t kTotal = 1 << 20;
  const auto options = budget_options(1ULL << 40, kTotal);
  testing::EndpointGroup group({options, options, options});
  // Two senders, each as above.
  expect_bounded(group, kTotal + std::uint64_t{4} * kWindow * kBudgetMessageSize);
}

// One peer's messages fill the total budget; another's receives, posted
// one by one and naming it, still get every message: a receive waiting for
// a peer releases that peer's credits, whatever the others hold.
TEST(UnexpectedBudget, AReceiveNamingAPeerIsNotHeldBackByAnotherPeersMessages) {
  constexpr std::uint64_t kTotal = 1 << 20;
  const auto options = budget_options(1ULL << 40, kTotal);
  testing::EndpointGroup group({options, options, options});
  ToReceiver traffic(group);
  constexpr int kFlood = 64;   // 4 MiB from endpoint 2, never received first
  constexpr int kWanted = 48;  // three windows from endpoint 0
  for (int i = 0; i < kFlood; ++i) {
    ASSERT_NO_FATAL_FAILURE(traffic.send(2, i));
  }
  (void)group.run_until([] { return false; }, 1s);
  ASSERT_GT(group[1].counters().unexpected_bytes, kTotal);
  for (int i = 0; i < kWanted; ++i) {
    ASSERT_NO_FATAL_FAILURE(traffic.send(0, i));
  }
  for (int i = 0; i < kWanted; ++i) {
    ASSERT_NO_FATAL_FAILURE(traffic.receive(0, i, 20s));
  }
  for (int i = 0; i < kFlood; ++i) {
    ASSERT_NO_FATAL_FAILURE(traffic.receive(2, i, 20s));
  }
  ASSERT_NO_FATAL_FAILURE(traffic.expect_all_sent());
  EXPECT_EQ(group[1].counters().unexpected_bytes, 0U);
}

// A message whose turn has passed is found again from its 32-bit sequence
// number as the most recent message that carried it: one left unmatched 2^32
// messages earlier carries the same number and is another message (the
// endpoint keys such messages by this 64-bit ordinal, not the number).
TEST(SequenceUnwrap, PastSequenceNumbersUnwrapToTheMostRecentMessage) {
  ReorderBuffer<int> buffer(16, 0xfffffff0U);
  for (int i = 0; i < 32; ++i) {
    buffer.skip_next();
  }
  // 32 messages have passed their turn: 0xfffffff0 .. 0x0000000f.
  EXPECT_EQ(buffer.next(), 0x10U);
  EXPECT_EQ(buffer.delivered(), 32U);
  EXPECT_EQ(buffer.ordinal_of_past(0x0fU), std::optional<std::uint64_t>(31));
  EXPECT_EQ(buffer.ordinal_of_past(0xfffffff8U), std::optional<std::uint64_t>(8));
  EXPECT_EQ(buffer.ordinal_of_past(0xfffffff0U), std::optional<std::uint64_t>(0));
  // Before the first message: nothing.
  EXPECT_EQ(buffer.ordinal_of_past(0xffffffe0U), std::nullopt);
}

}  // namespace
}  // namespace railyard::mrail

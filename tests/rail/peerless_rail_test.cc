// A rail its owner marks peerless (Rail::set_peerless): its completion queue
// is read at most once per gap while it has nothing of its own in flight,
// what a peer sends it anyway still arrives, and that traffic ends the
// peerless state.
#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <vector>

#include "pattern.h"
#include "rail_pair.h"
#include "railyard/transports/rail/rail.h"

namespace railyard {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using testing::fill_pattern;
using testing::first_mismatch;
using testing::RailPair;

constexpr std::size_t kSize = 1000;

TEST(PeerlessRail, ItIsReadOncePerGapAndWhatArrivesEndsThePeerlessState) {
  RailPair pair;
  std::vector<std::byte> source(kSize);
  std::vector<std::byte> destination(kSize);
  fill_pattern(source, 3);
  auto from = pair.a->register_memory(source.data(), source.size());
  auto to = pair.b->register_memory(destination.data(), destination.size());
  Request recv;
  ASSERT_TRUE(pair.b->post_recv(recv, to.whole()).ok());

  constexpr auto kGap = 500ms;
  pair.b->set_peerless(true, kGap);
  EXPECT_TRUE(pair.b->peerless());
  const auto start = Clock::now();
  (void)pair.b->progress();  // the first call reads the queue
  EXPECT_EQ(pair.b->counters().peerless_polls_skipped, 0U);

  Request send;
  ASSERT_TRUE(pair.a->post_send(send, pair.a_to_b, from.whole()).ok());
  const auto deadline = start + testing::kTestTimeout;
  while (!recv.done() && Clock::now() < deadline) {
    (void)pair.a->progress();
    (void)pair.b->progress();
  }
  const auto arrived = Clock::now();
  ASSERT_TRUE(recv.done()) << "the message to the peerless rail never arrived";
  ASSERT_TRUE(recv.status().ok()) << recv.status().to_string();
  EXPECT_EQ(first_mismatch(destination, 3), std::nullopt);
  // Nothing was read from the queue until the gap had passed.
  EXPECT_GE(arrived - start, kGap);
  EXPECT_GT(pair.b->counters().peerless_polls_skipped, 0U);
  // The message ended the peerless state: every call reads the queue again.
  EXPECT_FALSE(pair.b->peerless());
  const auto skipped = pair.b->counters().peerless_polls_skipped;
  (void)pair.b->progress();
  EXPECT_EQ(pair.b->counters().peerless_polls_skipped, skipped);
  ASSERT_TRUE(pair.run_until([&] { return send.done(); }));
}

TEST(PeerlessRail, ItsOwnSendsInFlightAreProgressedOnEveryCall) {
  RailPair pair;
  std::vector<std::byte> source(kSize);
  std::vector<std::byte> destination(kSize);
  fill_pattern(source, 5);
  auto from = pair.b->register_memory(source.data(), source.size());
  auto to = pair.a->register_memory(destination.data(), destination.size());
  Request recv;
  ASSERT_TRUE(pair.a->post_recv(recv, to.whole()).ok());
  // A gap far longer than the wait allows: only the send in flight lets
  // the peerless rail be read at all.
  pair.b->set_peerless(true, 3600s);
  (void)pair.b->progress();
  Request send;
  ASSERT_TRUE(pair.b->post_send(send, pair.b_to_a, from.whole()).ok());
  ASSERT_TRUE(pair.run_until([&] { return send.done() && recv.done(); }, 20s))
      << "the peerless rail's own send was not progressed";
  ASSERT_TRUE(send.status().ok()) << send.status().to_string();
  EXPECT_EQ(first_mismatch(destination, 5), std::nullopt);
  EXPECT_TRUE(pair.b->peerless()) << "its own send's completion is no sign of a peer";
}

TEST(PeerlessRail, MarkingItAgainRestoresEveryCallReading) {
  RailPair pair;
  pair.b->set_peerless(true, 3600s);
  (void)pair.b->progress();
  (void)pair.b->progress();
  EXPECT_EQ(pair.b->counters().peerless_polls_skipped, 1U);
  pair.b->set_peerless(false);
  (void)pair.b->progress();
  EXPECT_EQ(pair.b->counters().peerless_polls_skipped, 1U);
}

}  // namespace
}  // namespace railyard

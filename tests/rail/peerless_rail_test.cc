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
#include "railyard/rail/rail.h"

namespace railyard::rail {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using testing::fill_pattern;
using testing::first_mismatch;
using testing::RailPair;

constexpr std::size_t kSize = 1000;

// One message of kSize bytes (pattern `seed`) from rail `from` to rail
// `to`, its receive posted; send() posts the send.
struct OneMessage {
  OneMessage(Rail& from, Rail& to, RailPeer to_peer, std::uint64_t seed)
      : sender(from), peer(to_peer), source(kSize), destination(kSize) {
    fill_pattern(source, seed);
    source_region = from.register_memory(source.data(), source.size());
    destination_region = to.register_memory(destination.data(), destination.size());
    posted = to.post_recv(recv, destination_region.whole()).ok();
  }
  bool send() { return sender.post_send(sent, peer, source_region.whole()).ok(); }

  Rail& sender;
  RailPeer peer;
  std::vector<std::byte> source;
  std::vector<std::byte> destination;
  LocalRegion source_region;
  LocalRegion destination_region;
  Request recv;
  Request sent;
  bool posted = false;
};

TEST(PeerlessRail, ItIsReadOncePerGapAndWhatArrivesEndsThePeerlessState) {
  RailPair pair;
  OneMessage message(*pair.a, *pair.b, pair.a_to_b, 3);
  ASSERT_TRUE(message.posted);

  constexpr auto kGap = 500ms;
  pair.b->set_peerless(true, kGap);
  EXPECT_TRUE(pair.b->peerless());
  const auto start = Clock::now();
  (void)pair.b->progress();  // the first call reads the queue
  EXPECT_EQ(pair.b->counters().peerless_polls_skipped, 0U);

  ASSERT_TRUE(message.send());
  const auto deadline = start + testing::kTestTimeout;
  while (!message.recv.done() && Clock::now() < deadline) {
    (void)pair.a->progress();
    (void)pair.b->progress();
  }
  const auto arrived = Clock::now();
  ASSERT_TRUE(message.recv.done()) << "the message to the peerless rail never arrived";
  ASSERT_TRUE(message.recv.status().ok()) << message.recv.status().to_string();
  EXPECT_EQ(first_mismatch(message.destination, 3), std::nullopt);
  // Nothing was read from the queue until the gap had passed.
  EXPECT_GE(arrived - start, kGap);
  EXPECT_GT(pair.b->counters().peerless_polls_skipped, 0U);
  // The message ended the peerless state: every call reads the queue again.
  EXPECT_FALSE(pair.b->peerless());
  const auto skipped = pair.b->counters().peerless_polls_skipped;
  (void)pair.b->progress();
  EXPECT_EQ(pair.b->counters().peerless_polls_skipped, skipped);
  ASSERT_TRUE(pair.run_until([&] { return message.sent.done(); }));
}

TEST(PeerlessRail, ItsOwnSendsInFlightAreProgressedOnEveryCall) {
  RailPair pair;
  OneMessage message(*pair.b, *pair.a, pair.b_to_a, 5);
  ASSERT_TRUE(message.posted);
  // A gap far longer than the wait allows: only the send in flight lets
  // the peerless rail be read at all.
  pair.b->set_peerless(true, 3600s);
  (void)pair.b->progress();
  ASSERT_TRUE(message.send());
  ASSERT_TRUE(pair.run_until([&] { return message.sent.done() && message.recv.done(); }, 20s))
      << "the peerless rail's own send was not progressed";
  ASSERT_TRUE(message.sent.status().ok()) << message.sent.status().to_string();
  EXPECT_EQ(first_mismatch(message.destination, 5), std::nullopt);
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
}  // namespace railyard::rail

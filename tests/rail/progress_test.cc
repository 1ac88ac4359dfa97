// Waiting on several rails: work a rail's descriptor does not announce, and
// the spread mode that finds messages moving from rail to rail.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "rail_pair.h"
#include "railyard/rail/progress.h"
#include "railyard/rail/rail.h"
#include "railyard/rail/request.h"

namespace railyard::rail {
namespace {

using testing::kTestTimeout;
using testing::RailPair;

TEST(RailUnannouncedWork, ASendCountsUntilItsCompletionIsRead) {
  RailPair pair;
  std::array<std::byte, 64> out{};
  std::array<std::byte, 64> in{};
  auto out_region = pair.a->register_memory(out.data(), out.size());
  auto in_region = pair.b->register_memory(in.data(), in.size());
  EXPECT_FALSE(pair.a->has_unannounced_work());
  Request recv;
  ASSERT_TRUE(pair.b->post_tagged_recv(recv, in_region.whole(), 7).ok());
  // A receive is announced by the data that completes it.
  EXPECT_FALSE(pair.b->has_unannounced_work());
  Request send;
  ASSERT_TRUE(pair.a->post_tagged_send(send, pair.a_to_b, out_region.whole(), 7).ok());
  EXPECT_TRUE(pair.a->has_unannounced_work());
  ASSERT_TRUE(pair.run_until([&] { return send.done() && recv.done(); }));
  EXPECT_FALSE(pair.a->has_unannounced_work());
  EXPECT_FALSE(pair.b->has_unannounced_work());
}

// An 8-byte tagged message from a pair's rail a to its rail b: the
// buffers, registered, and the two requests.
struct EightBytes {
  explicit EightBytes(RailPair& pair)
      : out_region(pair.a->register_memory(out.data(), out.size())),
        in_region(pair.b->register_memory(in.data(), in.size())) {}
  Status post_recv(RailPair& pair, std::uint64_t tag) {
    return pair.b->post_tagged_recv(recv, in_region.whole(), tag);
  }
  Status post_send(RailPair& pair, std::uint64_t tag) {
    return pair.a->post_tagged_send(send, pair.a_to_b, out_region.whole(), tag);
  }

  std::array<std::byte, 8> out{};
  std::array<std::byte, 8> in{};
  LocalRegion out_region;
  LocalRegion in_region;
  Request recv;
  Request send;
};

// Four rails per side; message i goes over rail i mod 4, as round-robin
// sends them, and each is waited for alone with one hint kept throughout,
// as an endpoint keeps it.
struct FourRails {
  static constexpr std::size_t kRails = 4;
  FourRails() {
    for (std::size_t i = 0; i < kRails; ++i) {
      pairs.push_back(std::make_unique<RailPair>(fmt_address(i), fmt_address(i)));
      receivers.push_back(pairs.back()->b.get());
    }
    // Connections open on the first message, with both sides progressed:
    // after it, a send leaves inside its post, and the receiving rails
    // alone are waited on.
    for (auto& pair : pairs) {
      warm_up(*pair);
    }
  }

  static void warm_up(RailPair& pair) {
    send_one(pair,
             [&pair](const Request& recv) { return pair.run_until([&] { return recv.done(); }); });
  }
  static std::string fmt_address(std::size_t i) { return "127.0.0." + std::to_string(i + 1); }

  // Sends one message over `pair`; `wait_for` waits for its receive, then
  // both sides are progressed until the send is done too.
  static void send_one(RailPair& pair, const std::function<bool(const Request&)>& wait_for) {
    EightBytes message(pair);
    ASSERT_TRUE(message.post_recv(pair, 1).ok());
    ASSERT_TRUE(message.post_send(pair, 1).ok());
    ASSERT_TRUE(wait_for(message.recv)) << "the message was not received";
    EXPECT_TRUE(message.recv.status().ok()) << message.recv.status().to_string();
    ASSERT_TRUE(pair.run_until([&] { return message.send.done(); }));
  }

  // Sends a message over rail `rail` and waits for it on the receiving
  // rails only, with `hint`.
  // `policy`: the wait's, when not the rail's own.
  void exchange(std::size_t rail, PollHint& hint, const WaitPolicy* policy = nullptr) {
    RailPair& pair = *pairs[rail];
    const WaitPolicy wait = policy != nullptr ? *policy : pair.b->wait_policy();
    send_one(pair, [&](const Request& recv) {
      const bool found = progress_until(
          receivers, [&] { return recv.done(); }, kTestTimeout, wait, &hint);
      EXPECT_TRUE(found) << "the message on rail " << rail << " was not found";
      return found;
    });
  }

  // `messages` exchanges, message i over rail (i * stride) mod kRails, as
  // round-robin sends them (stride 1); false when one, or the set-up,
  // failed fatally.
  bool rotate(PollHint& hint, std::size_t messages, std::size_t stride = 1) {
    if (::testing::Test::HasFatalFailure()) {
      return false;
    }
    for (std::size_t i = 0; i < messages; ++i) {
      exchange((i * stride) % kRails, hint);
      if (::testing::Test::HasFatalFailure()) {
        return false;
      }
    }
    return true;
  }

  std::vector<std::unique_ptr<RailPair>> pairs;
  std::vector<Rail*> receivers;
};

TEST(ProgressUntil, MessagesMovingFromRailToRailEnterTheSpreadModeAndOneRailLeavesIt) {
  FourRails rails;
  PollHint hint;
  if (!rails.rotate(hint, 12)) {
    return;
  }
  EXPECT_TRUE(hint.spread) << "work on changing rails did not enter the spread mode";
  EXPECT_EQ(hint.hot, 3U);  // the rail of the last message
  // The fixed policy's pattern: every message on one rail ends it.
  for (std::size_t i = 0; i < PollHint::kLeaveSpreadAfter + 1; ++i) {
    rails.exchange(1, hint);
    if (::testing::Test::HasFatalFailure()) {
      return;
    }
  }
  EXPECT_FALSE(hint.spread) << "messages on one rail kept the spread mode";
  EXPECT_EQ(hint.hot, 1U);
  // And a message on another rail is still found from the hot-rail mode.
  rails.exchange(2, hint);
  EXPECT_EQ(hint.hot, 2U);
}

// The owner's deferred work (an endpoint's reposting) runs on the first turn
// of a wait that finds nothing, again on the first empty turn after work
// was taken in, and not at all in a wait whose first turn ends it.
TEST(ProgressUntil, IdleWorkRunsWhenAWaitFindsNothingAndAgainAfterWork) {
  RailPair pair;
  FourRails::warm_up(pair);
  if (::testing::Test::HasFatalFailure()) {
    return;
  }
  EightBytes message(pair);
  ASSERT_TRUE(message.post_recv(pair, 2).ok());
  int idle_calls = 0;
  PollHint hint;
  // The message leaves only once the wait has found nothing, so it arrives
  // after the first idle call.
  hint.on_idle = [&] {
    if (++idle_calls == 1) {
      EXPECT_TRUE(message.post_send(pair, 2).ok());
    }
  };
  const std::array<Rail*, 1> receiver{pair.b.get()};
  const auto policy = pair.b->wait_policy();
  EXPECT_FALSE(progress_until(
      receiver, [] { return false; }, std::chrono::milliseconds(300), policy, &hint));
  EXPECT_TRUE(message.recv.done()) << "the message sent from the idle call did not arrive";
  // Once when the wait found nothing, once after the message, and once
  // after each sleep (at most max_block long) of the rest of the wait.
  const int sleeps = static_cast<int>(std::chrono::milliseconds(300) / policy.max_block) + 1;
  EXPECT_GE(idle_calls, 2);
  EXPECT_LE(idle_calls, 2 + sleeps);
  const int before = idle_calls;
  EXPECT_TRUE(progress_until(
      receiver, [] { return true; }, std::chrono::milliseconds(300), policy, &hint));
  EXPECT_EQ(idle_calls, before) << "a wait that ended on its first turn ran idle work";
  ASSERT_TRUE(pair.run_until([&] { return message.send.done(); }));
}

// Work due by the clock (an endpoint's probes of quiet paths) runs even
// in a wait where nothing ever arrives: idle work runs again after each
// sleep.
TEST(ProgressUntil, IdleWorkRunsAfterEverySleepOfAQuietWait) {
  RailPair pair;
  int idle_calls = 0;
  PollHint hint;
  hint.on_idle = [&] { ++idle_calls; };
  const std::array<Rail*, 1> receiver{pair.b.get()};
  WaitPolicy policy = pair.b->wait_policy();
  policy.max_block = std::chrono::milliseconds(20);
  EXPECT_FALSE(progress_until(
      receiver, [] { return false; }, std::chrono::milliseconds(200), policy, &hint));
  EXPECT_GE(idle_calls, 3) << "idle work ran only when the wait began";
  EXPECT_LE(idle_calls, 200 / 20 + 2);
}

TEST(ProgressUntil, AnExpectedRailIsWatchedAndAWrongExpectationIsDropped) {
  FourRails rails;
  if (::testing::Test::HasFatalFailure()) {
    return;
  }
  PollHint hint;
  hint.expected = 2;
  rails.exchange(2, hint);
  EXPECT_EQ(hint.expected, 2U) << "a right expectation was dropped";
  EXPECT_EQ(hint.hot, 2U);
  // The owner expects rail 1; the message comes on rail 3, found by a sweep.
  hint.expected = 1;
  rails.exchange(3, hint);
  EXPECT_EQ(hint.expected, PollHint::kNoRail) << "a wrong expectation was kept";
  EXPECT_TRUE(hint.spread);
  EXPECT_EQ(hint.hot, 3U);
}

// A wait that stops spinning before any sweep (no spin at all here; on a
// loaded host, a wait preempted for longer than its spin) finds the message
// in the poll before sleeping: that find drops a wrong expectation too.
TEST(ProgressUntil, AWrongExpectationIsDroppedByThePollBeforeSleeping) {
  FourRails rails;
  if (::testing::Test::HasFatalFailure()) {
    return;
  }
  WaitPolicy sleep_at_once = rails.pairs[0]->b->wait_policy();
  sleep_at_once.spin = std::chrono::microseconds(0);
  PollHint hint;
  hint.expected = 1;
  rails.exchange(3, hint, &sleep_at_once);
  EXPECT_EQ(hint.expected, PollHint::kNoRail) << "a wrong expectation was kept";
  EXPECT_TRUE(hint.spread);
  EXPECT_EQ(hint.hot, 3U);
}

// A descriptor left signalled by work already taken in is not reset while
// the wait spins (a reset would have the provider signal it again on the
// next completion): its rail is progressed directly, every message is still
// found, and the next sleep resets every descriptor.
TEST(ProgressUntil, AStaleDescriptorIsLeftUntilTheNextSleepAndItsRailStillPolled) {
  FourRails rails;
  PollHint hint;
  if (!rails.rotate(hint, 12)) {
    return;
  }
  ASSERT_EQ(hint.stale.size(), FourRails::kRails);
  EXPECT_GT(std::count(hint.stale.begin(), hint.stale.end(), true), 0)
      << "no rail's descriptor was found signalled with nothing to take in";
  // Messages on the stale rails are found as before.
  if (!rails.rotate(hint, 8, 3)) {
    return;
  }
  // A wait that finds nothing sleeps, and sleeping resets every descriptor.
  const auto policy = rails.pairs[0]->b->wait_policy();
  EXPECT_FALSE(progress_until(
      rails.receivers, [] { return false; }, policy.spin * 4 + std::chrono::milliseconds(20),
      policy, &hint));
  EXPECT_EQ(std::count(hint.stale.begin(), hint.stale.end(), true), 0)
      << "a sleep left a rail marked stale";
  rails.exchange(2, hint);
  EXPECT_EQ(hint.hot, 2U);
}

// Turns that take long (a yield that hands the core away, a long copy) do
// not leave the cold rails unswept for kMaxColdInterval of them: after
// kMaxColdGap a turn sweeps them, so a message on a cold rail is found in a
// few turns, not in 256.
TEST(ProgressUntil, SlowTurnsStillSweepTheColdRailsWithinTheGap) {
  FourRails rails;
  if (::testing::Test::HasFatalFailure()) {
    return;
  }
  RailPair& pair = *rails.pairs[2];
  EightBytes message(pair);
  ASSERT_TRUE(message.post_recv(pair, 3).ok());
  ASSERT_TRUE(message.post_send(pair, 3).ok());
  ASSERT_TRUE(pair.run_until([&] { return message.send.done(); }));
  PollHint hint;
  hint.hot = 0;
  hint.cold_interval = PollHint::kMaxColdInterval;
  WaitPolicy policy = pair.b->wait_policy();
  policy.spin = std::chrono::seconds(10);  // spin on: no sweep before a sleep
  constexpr auto kTurn = std::chrono::milliseconds(1);
  const auto start = std::chrono::steady_clock::now();
  const bool found = progress_until(
      rails.receivers,
      [&] {
        if (message.recv.done()) {
          return true;
        }
        std::this_thread::sleep_for(kTurn);  // a slow turn
        return false;
      },
      kTestTimeout, policy, &hint);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(found) << "the message on the cold rail was not found";
  // 256 turns of at least 1 ms each without the gap; a few with it.
  EXPECT_LT(took, kTurn * (PollHint::kMaxColdInterval / 4))
      << "found after " << std::chrono::duration_cast<std::chrono::milliseconds>(took).count()
      << " ms";
  EXPECT_EQ(hint.hot, 2U);
}

}  // namespace
}  // namespace railyard::rail

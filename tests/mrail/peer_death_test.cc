// A peer process that dies: what was posted to or from it ends with an error
// within a bounded time, never a hang.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <memory>
#include <stdexcept>
#include <vector>

#include "endpoint_pair.h"
#include "forked_endpoint.h"
#include "railyard/mrail/endpoint.h"
#include "tools/support/forked_peer.h"

namespace railyard::mrail {
namespace {

using tools::ForkedPeer;
using tools::Pipe;

// A child that takes `messages` messages (tag 1) from the parent, answers
// (tag 9), then progresses until it is killed.
ForkedPeer connected_child(const Options& options, int messages) {
  return ForkedPeer([options, messages](Pipe& pipe) {
    Endpoint endpoint(options);
    const PeerId parent = testing::meet_parent(endpoint, pipe);
    std::array<std::byte, 8> buffer{};
    for (int i = 0; i < messages; ++i) {
      Request recv;
      if (!endpoint.recv(recv, parent, buffer.data(), buffer.size(), 1).ok() ||
          !endpoint.wait(recv, std::chrono::seconds(30))) {
        throw std::runtime_error("no message from the parent");
      }
    }
    // Answer over the endpoint, so the parent waits while progressing.
    Request ready;
    if (!endpoint.send(ready, parent, buffer.data(), buffer.size(), 9).ok()) {
      throw std::runtime_error("could not answer the parent");
    }
    (void)endpoint.progress_until([] { return false; }, std::chrono::seconds(60));
  });
}

// The parent's side of connected_child: the exchange that opens the
// connections (with round-robin, one per rail).
PeerId connect_to(Endpoint& endpoint, ForkedPeer& child, int messages) {
  const PeerId peer = testing::meet_child(endpoint, child);
  std::array<std::byte, 8> buffer{};
  for (int i = 0; i < messages; ++i) {
    Request send;
    EXPECT_TRUE(endpoint.send(send, peer, buffer.data(), buffer.size(), 1).ok());
    EXPECT_TRUE(endpoint.wait(send, std::chrono::seconds(30)));
  }
  Request ready;
  EXPECT_TRUE(endpoint.recv(ready, peer, buffer.data(), buffer.size(), 9).ok());
  EXPECT_TRUE(endpoint.wait(ready, std::chrono::seconds(30))) << "the child never answered";
  return peer;
}

TEST(PeerDeath, SendsAndReceivesToADeadPeerFailInBoundedTime) {
  auto options = testing::endpoint_options(2, "-1:round-robin");
  options.post_timeout = std::chrono::seconds(2);
  ForkedPeer child = connected_child(options, 4);
  Endpoint endpoint(options);
  const PeerId peer = connect_to(endpoint, child, 4);
  std::array<std::byte, 8> buffer{};
  EXPECT_EQ(child.kill_and_wait(), -SIGKILL);

  // A receive naming the dead peer, and sends to it, small and large.
  Request recv;
  ASSERT_TRUE(endpoint.recv(recv, peer, buffer.data(), buffer.size(), 2).ok());
  std::vector<std::byte> large(4 << 20);
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::unique_ptr<Request>> sends;
  bool failed = false;
  while (!failed && std::chrono::steady_clock::now() - start < std::chrono::seconds(60)) {
    sends.push_back(std::make_unique<Request>());
    const bool big = sends.size() % 2 == 0;
    const Status posted = endpoint.send(*sends.back(), peer, big ? large.data() : buffer.data(),
                                        big ? large.size() : buffer.size(), 3);
    if (!posted.ok()) {
      // Once the peer is known dead, new operations are refused at once.
      EXPECT_EQ(posted.code(), StatusCode::kUnreachable) << posted.to_string();
      sends.pop_back();
      failed = true;
      break;
    }
    (void)endpoint.wait(*sends.back(), std::chrono::seconds(5));
    failed = sends.back()->done() && !sends.back()->status().ok();
  }
  ASSERT_TRUE(failed) << "sends to a dead peer kept succeeding for 60 s";
  // Everything still outstanding ends, with a status naming the problem.
  ASSERT_TRUE(endpoint.progress_until(
      [&] {
        return recv.done() &&
               std::all_of(sends.begin(), sends.end(), [](const auto& s) { return s->done(); });
      },
      std::chrono::seconds(60)));
  EXPECT_EQ(recv.status().code(), StatusCode::kUnreachable) << recv.status().to_string();
  EXPECT_NE(recv.status().message().find("unreachable"), std::string::npos);
  Request late;
  const Status refused = endpoint.send(late, peer, buffer.data(), 8, 4);
  EXPECT_EQ(refused.code(), StatusCode::kUnreachable) << refused.to_string();
  EXPECT_FALSE(late.in_flight());
}

// Small sends go out as injects, which have no completion: when one is
// deferred and then times out, the peer must still be failed, so that a
// receive from it, and a wildcard receive it was the only possible sender
// for, end with an error instead of waiting forever.
TEST(PeerDeath, LostSmallSendsFailThePeerAndItsReceives) {
  auto options = testing::endpoint_options(2, "-1:fixed");
  options.post_timeout = std::chrono::seconds(2);
  ForkedPeer child = connected_child(options, 1);
  Endpoint endpoint(options);
  const PeerId peer = connect_to(endpoint, child, 1);
  EXPECT_EQ(child.kill_and_wait(), -SIGKILL);

  std::array<std::byte, 8> buffer{};
  std::array<std::byte, 8> any_buffer{};
  Request recv;
  Request any;
  ASSERT_TRUE(endpoint.recv(recv, peer, buffer.data(), buffer.size(), 2).ok());
  ASSERT_TRUE(endpoint.recv(any, kAnySource, any_buffer.data(), any_buffer.size(), 3).ok());
  std::vector<std::unique_ptr<Request>> sends;
  const auto start = std::chrono::steady_clock::now();
  while (!recv.done() && std::chrono::steady_clock::now() - start < std::chrono::seconds(30)) {
    sends.push_back(std::make_unique<Request>());
    if (!endpoint.send(*sends.back(), peer, buffer.data(), buffer.size(), 4).ok()) {
      sends.pop_back();
    }
    (void)endpoint.progress_until([&] { return recv.done(); }, std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(recv.done()) << "a receive from a peer whose messages were lost waited 30 s";
  EXPECT_EQ(recv.status().code(), StatusCode::kUnreachable) << recv.status().to_string();
  ASSERT_TRUE(endpoint.progress_until([&] { return any.done(); }, std::chrono::seconds(5)))
      << "a wildcard receive whose only possible sender is dead stayed posted";
  EXPECT_EQ(any.status().code(), StatusCode::kUnreachable) << any.status().to_string();
  Request late_any;
  const Status refused = endpoint.recv(late_any, kAnySource, any_buffer.data(), 8, 3);
  EXPECT_EQ(refused.code(), StatusCode::kUnreachable) << refused.to_string();
  EXPECT_FALSE(late_any.in_flight());
  ASSERT_TRUE(endpoint.progress_until(
      [&] {
        return std::all_of(sends.begin(), sends.end(), [](const auto& s) { return s->done(); });
      },
      std::chrono::seconds(10)));
}

// The fragments of a dead peer's messages, queued behind its stalled
// connection, must not hold up messages to a live peer on the same rail.
TEST(PeerDeath, ADeadPeersQueuedTrafficDoesNotHoldUpOthers) {
  auto options = testing::endpoint_options(1, "-1:fixed");
  options.post_timeout = std::chrono::seconds(30);
  options.eager_limit = 256 << 10;  // the 200 KiB messages go as fragments
  ForkedPeer child = connected_child(options, 1);
  Endpoint endpoint(options);
  Endpoint other(options);
  const PeerId peer = connect_to(endpoint, child, 1);
  const PeerId to_other = endpoint.insert_peer(other.address());
  const PeerId from_endpoint = other.insert_peer(endpoint.address());

  // The child stops reading; eager messages to it pile up.
  ASSERT_EQ(::kill(child.pid(), SIGSTOP), 0);
  std::vector<std::byte> payload(200 << 10);
  std::vector<std::unique_ptr<Request>> sends;
  for (int i = 0; i < 64; ++i) {
    sends.push_back(std::make_unique<Request>());
    ASSERT_TRUE(endpoint.send(*sends.back(), peer, payload.data(), payload.size(), 5).ok());
    (void)endpoint.progress();
  }
  (void)endpoint.progress_until([] { return false; }, std::chrono::milliseconds(500));
  EXPECT_EQ(child.kill_and_wait(), -SIGKILL);

  std::array<std::byte, 64> out{};
  std::array<std::byte, 64> in{};
  out.fill(std::byte{0x5a});
  Request send;
  Request recv;
  ASSERT_TRUE(other.recv(recv, from_endpoint, in.data(), in.size(), 6).ok());
  ASSERT_TRUE(endpoint.send(send, to_other, out.data(), out.size(), 6).ok());
  std::array<Endpoint*, 2> both{&endpoint, &other};
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(Endpoint::progress_until(
      both, [&] { return send.done() && recv.done(); }, std::chrono::seconds(60)));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(15))
      << "the live peer's message waited behind the dead peer's (post timeout 30 s)";
  EXPECT_TRUE(recv.status().ok()) << recv.status().to_string();
  EXPECT_EQ(in, out);
  ASSERT_TRUE(Endpoint::progress_until(
      both,
      [&] {
        return std::all_of(sends.begin(), sends.end(), [](const auto& s) { return s->done(); });
      },
      std::chrono::seconds(60)));
}

// A large message to a peer that dies before it posts the receive: the
// request-to-send went through, and nothing more is sent until the peer's
// FIN, so no provider error ever comes. Silence alone cannot tell a dead
// peer from a paused one (paused_peer_test.cc): the send must still end,
// once the peer has answered no probe for the peer timeout, instead of
// waiting forever.
TEST(PeerDeath, ALargeSendToAPeerThatDiesBeforeReadingItFails) {
  auto options = testing::endpoint_options(1, "-1:fixed");
  options.rail_timeout = std::chrono::milliseconds(500);
  options.peer_timeout = std::chrono::milliseconds(2000);
  ForkedPeer child = connected_child(options, 1);
  Endpoint endpoint(options);
  const PeerId peer = connect_to(endpoint, child, 1);
  std::vector<std::byte> large(1 << 20);
  ASSERT_GT(large.size(), options.eager_limit);
  Request send;
  ASSERT_TRUE(endpoint.send(send, peer, large.data(), large.size(), 3).ok());
  (void)endpoint.progress_until([] { return false; }, std::chrono::milliseconds(100));
  ASSERT_FALSE(send.done()) << "the child never posts this receive";
  EXPECT_EQ(child.kill_and_wait(), -SIGKILL);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(endpoint.progress_until([&] { return send.done(); }, std::chrono::seconds(30)))
      << "a rendezvous send to a dead peer waited 30 s";
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(send.status().code(), StatusCode::kUnreachable) << send.status().to_string();
}

// A live peer that takes its time to post the receive is not taken for a
// dead one: it answers the probes, and the send completes once it reads.
TEST(PeerDeath, ALargeSendToAPeerSlowToReadItWaits) {
  auto options = testing::endpoint_options(1, "-1:fixed");
  // Long enough that a loaded machine (sanitizers, tests in parallel)
  // answers each probe in time.
  options.rail_timeout = std::chrono::milliseconds(1000);
  ForkedPeer child([options](Pipe& pipe) {
    Endpoint endpoint(options);
    const PeerId parent = testing::meet_parent(endpoint, pipe);
    // Progress without posting, two and a half rail timeouts long (every
    // path probed at least twice), then take it.
    (void)endpoint.progress_until([] { return false; }, std::chrono::milliseconds(2500));
    std::vector<std::byte> in(1 << 20);
    Request recv;
    if (!endpoint.recv(recv, parent, in.data(), in.size(), 3).ok() ||
        !endpoint.wait(recv, std::chrono::seconds(30)) || !recv.status().ok()) {
      throw std::runtime_error("the large message did not arrive");
    }
    (void)endpoint.progress_until([] { return false; }, std::chrono::seconds(2));
  });
  Endpoint endpoint(options);
  const PeerId peer = testing::meet_child(endpoint, child);
  std::vector<std::byte> large(1 << 20);
  Request send;
  ASSERT_TRUE(endpoint.send(send, peer, large.data(), large.size(), 3).ok());
  ASSERT_TRUE(endpoint.wait(send, std::chrono::seconds(30)));
  EXPECT_TRUE(send.status().ok()) << send.status().to_string();
  EXPECT_EQ(child.wait(std::chrono::seconds(30)), 0);
}

}  // namespace
}  // namespace railyard::mrail

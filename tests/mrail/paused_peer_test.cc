// A peer process that is paused (kill -STOP: page reclaim, a checkpoint, a
// debugger) falls silent on every path at once. That is the peer, not its
// rails: no path is taken down for it, and the transfer waiting for it
// finishes once it runs again; only a peer silent past the peer timeout
// fails.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <stdexcept>
#include <string>
#include <vector>

#include "endpoint_pair.h"
#include "forked_endpoint.h"
#include "railyard/mrail/endpoint.h"
#include "tools/support/forked_peer.h"

namespace railyard::mrail {
namespace {

using namespace std::chrono_literals;
using tools::ForkedPeer;
using tools::Pipe;

constexpr std::size_t kLarge = std::size_t{4} << 20;

Options paused_peer_options() {
  auto options = testing::endpoint_options(2, "-1:striping");
  options.rail_timeout = 500ms;
  return options;
}

// A child that posts a receive for one large message (tag 5), tells the
// parent, and says on the pipe whether it arrived whole.
ForkedPeer large_receiver(const Options& options) {
  return ForkedPeer([options](Pipe& pipe) {
    Endpoint endpoint(options);
    const PeerId parent = testing::meet_parent(endpoint, pipe);
    std::vector<std::byte> in(kLarge);
    Request recv;
    if (!endpoint.recv(recv, parent, in.data(), in.size(), 5).ok()) {
      throw std::runtime_error("the receive was refused");
    }
    pipe.send_text("posted");
    const bool whole = endpoint.wait(recv, 60s) && recv.status().ok() && recv.length() == kLarge &&
                       in.front() == std::byte{7};
    pipe.send_text(whole ? "whole" : "broken: " + recv.status().to_string());
    (void)endpoint.progress_until([] { return false; }, 5s);
  });
}

std::uint64_t downs(const Endpoint& endpoint) {
  std::uint64_t total = 0;
  for (const PathTraffic& path : endpoint.counters().paths) {
    total += path.health.downs;
  }
  return total;
}

// The parent's side: the receiving child met, then paused (SIGSTOP) once
// its receive is posted, and the large message sent to it.
struct LargeSendToAPausedPeer {
  explicit LargeSendToAPausedPeer(const Options& options)
      : child(large_receiver(options)),
        endpoint(options),
        peer(testing::meet_child(endpoint, child)),
        out(kLarge, std::byte{7}) {}

  void pause_and_send() {
    ASSERT_EQ(child.pipe().receive_text(30s), "posted");
    ASSERT_EQ(::kill(child.pid(), SIGSTOP), 0);
    sent_at = std::chrono::steady_clock::now();
    ASSERT_TRUE(endpoint.send(send, peer, out.data(), out.size(), 5).ok());
  }

  ForkedPeer child;
  Endpoint endpoint;
  PeerId peer;
  std::vector<std::byte> out;
  Request send;
  std::chrono::steady_clock::time_point sent_at;
};

TEST(PausedPeer, APeerSilentOnEveryPathIsWaitedForAndNoPathGoesDown) {
  LargeSendToAPausedPeer paused(paused_peer_options());
  ASSERT_NO_FATAL_FAILURE(paused.pause_and_send());
  Request& send = paused.send;
  // Six rail timeouts of silence on both paths.
  (void)paused.endpoint.progress_until([&] { return send.done(); }, 3s);
  EXPECT_FALSE(send.done()) << send.status().to_string();
  EXPECT_EQ(downs(paused.endpoint), 0U) << "a path went down for a peer that was only paused";
  ASSERT_EQ(::kill(paused.child.pid(), SIGCONT), 0);
  ASSERT_TRUE(paused.endpoint.progress_until([&] { return send.done(); }, 30s))
      << "the send did not finish once the peer ran again";
  EXPECT_TRUE(send.status().ok()) << send.status().to_string();
  EXPECT_EQ(paused.child.pipe().receive_text(30s), "whole");
  EXPECT_EQ(downs(paused.endpoint), 0U);
}

TEST(PausedPeer, APeerSilentPastThePeerTimeoutFailsNamingIt) {
  Options options = paused_peer_options();
  options.peer_timeout = 1500ms;
  LargeSendToAPausedPeer paused(options);
  ASSERT_NO_FATAL_FAILURE(paused.pause_and_send());
  Request& send = paused.send;
  ASSERT_TRUE(paused.endpoint.progress_until([&] { return send.done(); }, 30s))
      << "a send to a peer silent past the peer timeout did not end";
  const auto waited = std::chrono::steady_clock::now() - paused.sent_at;
  EXPECT_GE(waited, 1500ms);
  EXPECT_LT(waited, 10s);
  EXPECT_EQ(send.status().code(), StatusCode::kUnreachable) << send.status().to_string();
  EXPECT_NE(send.status().message().find("past the peer timeout of 1500 ms"), std::string::npos)
      << send.status().to_string();
  EXPECT_EQ(downs(paused.endpoint), 0U);
  EXPECT_EQ(paused.child.kill_and_wait(), -SIGKILL);
}

}  // namespace
}  // namespace railyard::mrail

// A peer that computes without calling into its endpoint is busy, not dead.
// On tcp;ofi_rxm a connection is set up only when the peer calls into
// libfabric (data, once connected, is queued by the provider without limit),
// so the first messages to a rank that is computing are refused (FI_EAGAIN)
// until the sender's post timeout, and without background progress the busy
// peer is declared unreachable.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "endpoint_pair.h"
#include "forked_endpoint.h"
#include "pattern.h"
#include "railyard/mrail/endpoint.h"
#include "tools/support/forked_peer.h"

namespace railyard::mrail {
namespace {

using namespace std::chrono_literals;
using tools::ForkedPeer;
using tools::Pipe;

constexpr int kBusyMessages = 32;
constexpr std::size_t kMessageSize = 200 << 10;  // eager: it must be taken in
constexpr auto kPostTimeout = 3s;

Options busy_options(bool background_progress) {
  auto options = testing::endpoint_options(2, "-1:striping");
  options.post_timeout = kPostTimeout;
  options.background_progress = background_progress;
  return options;
}

// A child that learns the parent's address, then computes for `busy`
// without calling into its endpoint (before any connection to it exists),
// then receives every message and checks it.
ForkedPeer busy_child(bool background_progress, std::chrono::seconds busy) {
  return ForkedPeer([background_progress, busy](Pipe& pipe) {
    Endpoint endpoint(busy_options(background_progress));
    const PeerId parent = testing::meet_parent(endpoint, pipe);
    std::vector<std::byte> buffer(kMessageSize);
    pipe.send_text("computing");
    std::this_thread::sleep_for(busy);  // never calls in
    for (int i = 0; i < kBusyMessages; ++i) {
      Request recv;
      if (!endpoint.recv(recv, parent, buffer.data(), buffer.size(), 1).ok() ||
          !endpoint.wait(recv, 30s) || !recv.status().ok()) {
        throw std::runtime_error("message " + std::to_string(i) +
                                 " did not arrive: " + recv.status().to_string());
      }
      if (const auto at = testing::first_mismatch(buffer, i)) {
        throw std::runtime_error("message " + std::to_string(i) + ": wrong byte at " +
                                 std::to_string(*at));
      }
    }
    pipe.send_text("received");
    (void)endpoint.progress_until([] { return false; }, 30s);
  });
}

struct Outcome {
  int completed_ok = 0;
  int failed = 0;
  Status first_failure;
};

// Waits until the child computes, then sends every message and waits for
// all to end; with `until_received`, keeps the endpoint open until the
// child has them all. (A send completes once the provider has the bytes,
// not the peer: an endpoint closed with the peer's messages unread, such
// as its credits or failover's acknowledgements, resets the connections,
// and the peer loses what it had not read yet.)
Outcome send_to_busy_child(ForkedPeer& child, bool background_progress, bool until_received) {
  Endpoint endpoint(busy_options(background_progress));
  const PeerId peer = testing::meet_child(endpoint, child);
  EXPECT_EQ(child.pipe().receive_text(30s), "computing");

  std::vector<std::vector<std::byte>> payloads(kBusyMessages, std::vector<std::byte>(kMessageSize));
  std::vector<std::unique_ptr<Request>> sends;
  Outcome outcome;
  for (int i = 0; i < kBusyMessages; ++i) {
    testing::fill_pattern(payloads[i], i);
    sends.push_back(std::make_unique<Request>());
    const Status posted =
        endpoint.send(*sends.back(), peer, payloads[i].data(), payloads[i].size(), 1);
    if (!posted.ok()) {
      ++outcome.failed;
      outcome.first_failure = posted;
      sends.pop_back();
    }
  }
  EXPECT_TRUE(endpoint.progress_until(
      [&] {
        return std::all_of(sends.begin(), sends.end(), [](const auto& s) { return s->done(); });
      },
      60s));
  for (const auto& send : sends) {
    if (send->done() && send->status().ok()) {
      ++outcome.completed_ok;
    } else {
      ++outcome.failed;
      if (outcome.first_failure.ok()) {
        outcome.first_failure = send->status();
      }
    }
  }
  if (until_received) {
    EXPECT_EQ(child.pipe().receive_text(60s), "received");
  }
  return outcome;
}

TEST(BusyPeer, APeerComputingFor15sWithoutCallingInIsNotDeclaredDead) {
  ForkedPeer child = busy_child(true, 15s);
  const Outcome outcome = send_to_busy_child(child, true, true);
  EXPECT_EQ(outcome.failed, 0) << outcome.first_failure.to_string();
  EXPECT_EQ(outcome.completed_ok, kBusyMessages);
}

// The same exchange without background progress: the scenario above is one
// that declares a busy peer dead when nothing progresses it.
TEST(BusyPeer, WithoutBackgroundProgressABusyPeerLooksDead) {
  ForkedPeer child = busy_child(false, 2 * kPostTimeout);
  const Outcome outcome = send_to_busy_child(child, false, false);
  EXPECT_GT(outcome.failed, 0) << "every send completed: the test no longer stalls the sender";
  EXPECT_EQ(outcome.first_failure.code(), StatusCode::kUnreachable)
      << outcome.first_failure.to_string();
}

}  // namespace
}  // namespace railyard::mrail

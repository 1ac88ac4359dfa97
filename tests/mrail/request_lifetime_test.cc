// A request destroyed while in flight: what never reached the wire is
// withdrawn, what did completes or is detached within the post timeout, and
// nothing the endpoint or the provider holds points at the dead request.
// Without that, each of these tests is a use-after-free (ASan reports it; the
// release build crashes or corrupts the heap).
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <csignal>
#include <fstream>
#include <memory>
#include <optional>
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

constexpr std::uint64_t kEagerSize = 200 << 10;  // below the 256 KiB eager limit
constexpr std::uint64_t kLargeSize = 8 << 20;    // rendezvous

// The child's end of every test: an endpoint that knows the parent and has
// taken its first message, striped over both rails. That opens a connection
// on each rail, which a stopped child could not accept later (the provider
// would refuse posts to it with FI_EAGAIN until the post timeout).
struct ChildEndpoint {
  ChildEndpoint(const Options& options, Pipe& pipe) : endpoint(options) {
    parent = testing::meet_parent(endpoint, pipe);
    std::vector<std::byte> first(kEagerSize);
    Request recv;
    if (!endpoint.recv(recv, parent, first.data(), first.size(), 0).ok() ||
        !endpoint.wait(recv, 30s) || !recv.status().ok()) {
      throw std::runtime_error("no first message from the parent");
    }
  }
  Endpoint endpoint;
  PeerId parent;
};

// The parent's end: inserts the child, sends it our address and the first
// message.
PeerId connect(Endpoint& endpoint, ForkedPeer& child) {
  const PeerId peer = testing::meet_child(endpoint, child);
  std::vector<std::byte> first(kEagerSize);
  Request send;
  EXPECT_TRUE(endpoint.send(send, peer, first.data(), first.size(), 0).ok());
  EXPECT_TRUE(endpoint.wait(send, 30s));
  return peer;
}

void expect_pattern(const std::vector<std::byte>& data, std::uint64_t seed, const char* what) {
  if (const auto at = testing::first_mismatch(data, seed)) {
    throw std::runtime_error(std::string(what) + ": wrong byte at offset " + std::to_string(*at));
  }
}

// The options of both sides: the parent's post timeout bounds how long a
// destructor waits; the child's is long, as it is stopped in some tests.
Options parent_options() {
  auto options = testing::endpoint_options(2, "-1:striping");
  options.post_timeout = 500ms;
  return options;
}
Options child_options() {
  auto options = testing::endpoint_options(2, "-1:striping");
  options.post_timeout = 60s;
  return options;
}

TEST(RequestLifetime, AnUnmatchedReceiveDestroyedIsCancelledAndItsMessageStaysReceivable) {
  testing::EndpointGroup group({testing::endpoint_options(2), testing::endpoint_options(2)});
  Endpoint& sender = group[0];
  Endpoint& receiver = group[1];
  std::array<std::byte, 64> early{};
  {
    Request abandoned;
    ASSERT_TRUE(receiver.recv(abandoned, group.ids[1][0], early.data(), early.size(), 7).ok());
  }
  EXPECT_EQ(receiver.counters().abandoned_requests, 1U);

  std::vector<std::byte> out(64);
  testing::fill_pattern(out, 7);
  std::vector<std::byte> in(64);
  Request send;
  ASSERT_TRUE(sender.send(send, group.ids[0][1], out.data(), out.size(), 7).ok());
  ASSERT_TRUE(group.run_until([&] { return send.done(); }));
  // The message waits unexpected instead of landing in the dead request.
  ASSERT_TRUE(group.run_until([&] { return receiver.counters().unexpected_messages == 1; }));
  Request recv;
  ASSERT_TRUE(receiver.recv(recv, kAnySource, in.data(), in.size(), 7).ok());
  ASSERT_TRUE(group.run_until([&] { return recv.done(); }));
  EXPECT_TRUE(recv.status().ok()) << recv.status().to_string();
  EXPECT_EQ(in, out);
  EXPECT_EQ(early, (std::array<std::byte, 64>{}));
}

TEST(RequestLifetime, ASendWaitingForTheWindowDestroyedNeverReachesThePeer) {
  auto options = testing::endpoint_options(1);
  options.window = 4;
  testing::EndpointGroup group({options, options});
  Endpoint& sender = group[0];
  Endpoint& receiver = group[1];
  const PeerId to = group.ids[0][1];
  std::vector<std::unique_ptr<Request>> sends;
  std::array<std::uint64_t, 8> values{};
  for (std::uint64_t i = 0; i < values.size(); ++i) {
    values[i] = i;
  }
  // The receiver is not progressed: only `window` messages may go before
  // its credit, so the rest wait, and the last of them is destroyed.
  for (std::uint64_t i = 0; i + 1 < values.size(); ++i) {
    sends.push_back(std::make_unique<Request>());
    ASSERT_TRUE(sender.send(*sends.back(), to, &values[i], sizeof(std::uint64_t), i).ok());
  }
  {
    Request abandoned;
    ASSERT_TRUE(sender.send(abandoned, to, &values.back(), sizeof(std::uint64_t), 99).ok());
    ASSERT_GT(sender.counters().window_waits, 0U);
  }
  EXPECT_EQ(sender.counters().abandoned_requests, 1U);
  // Every other message arrives, in order, and the withdrawn one never does.
  for (std::uint64_t i = 0; i + 1 < values.size(); ++i) {
    std::uint64_t value = ~0ULL;
    Request recv;
    ASSERT_TRUE(receiver.recv(recv, kAnySource, &value, sizeof(value), 0, kAnyTag).ok());
    ASSERT_TRUE(group.run_until([&] { return recv.done(); }));
    EXPECT_EQ(value, i);
    EXPECT_EQ(recv.tag(), i);
  }
  ASSERT_TRUE(group.run_until([&] {
    return std::all_of(sends.begin(), sends.end(), [](const auto& s) { return s->done(); });
  }));
  ProbeResult probe;
  EXPECT_FALSE(receiver.probe(kAnySource, 0, kAnyTag, probe, 200ms))
      << "the withdrawn send arrived with tag " << probe.tag;
}

// Sends destroyed at once: the destructor carries them to completion, and
// the peer receives both whole.
TEST(RequestLifetime, SendsDestroyedInFlightStillArriveWhole) {
  ForkedPeer child([](Pipe& pipe) {
    ChildEndpoint side(child_options(), pipe);
    std::vector<std::byte> eager(kEagerSize);
    std::vector<std::byte> large(kLargeSize);
    Request first;
    Request second;
    if (!side.endpoint.recv(first, side.parent, eager.data(), eager.size(), 1).ok() ||
        !side.endpoint.recv(second, side.parent, large.data(), large.size(), 2).ok()) {
      throw std::runtime_error("posting the receives failed");
    }
    pipe.send_text("posted");
    if (!side.endpoint.progress_until([&] { return first.done() && second.done(); }, 60s)) {
      throw std::runtime_error("the messages did not arrive");
    }
    if (!first.status().ok() || !second.status().ok()) {
      throw std::runtime_error("a receive failed: " + first.status().to_string() + " / " +
                               second.status().to_string());
    }
    expect_pattern(eager, 1, "eager message");
    expect_pattern(large, 2, "rendezvous message");
    pipe.send_text("intact");
    (void)side.endpoint.progress_until([] { return false; }, 60s);
  });
  auto options = parent_options();
  options.post_timeout = 30s;  // the destructors must not give up early here
  Endpoint endpoint(options);
  const PeerId peer = connect(endpoint, child);
  ASSERT_EQ(child.pipe().receive_text(30s), "posted");
  std::vector<std::byte> eager(kEagerSize);
  std::vector<std::byte> large(kLargeSize);
  testing::fill_pattern(eager, 1);
  testing::fill_pattern(large, 2);
  {
    Request send;
    ASSERT_TRUE(endpoint.send(send, peer, eager.data(), eager.size(), 1).ok());
  }
  {
    Request send;
    ASSERT_TRUE(endpoint.send(send, peer, large.data(), large.size(), 2).ok());
  }
  const auto counters = endpoint.counters();
  EXPECT_EQ(counters.abandoned_requests, 2U);
  EXPECT_EQ(counters.orphaned_transfers, 0U);
  EXPECT_EQ(child.pipe().receive_text(30s), "intact");
  // The peer's stream is intact: it takes more sends.
  Request after;
  EXPECT_TRUE(endpoint.send(after, peer, eager.data(), 8, 3).ok());
}

// Whether `pid` is stopped (state T in /proc/<pid>/stat).
bool stopped(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  int ignored = 0;
  std::string name;
  char state = '?';
  return static_cast<bool>(stat >> ignored >> name >> state) && state == 'T';
}

void stop(ForkedPeer& child) {
  ASSERT_EQ(::kill(child.pid(), SIGSTOP), 0);
  const auto start = std::chrono::steady_clock::now();
  while (!stopped(child.pid())) {
    ASSERT_LT(std::chrono::steady_clock::now() - start, 10s) << "the child did not stop";
    std::this_thread::sleep_for(1ms);
  }
}

// A child that sends the parent `messages` rendezvous messages (tags 4, 5,
// ...), then progresses.
ForkedPeer large_sender(std::size_t messages = 1) {
  return ForkedPeer([messages](Pipe& pipe) {
    ChildEndpoint side(child_options(), pipe);
    std::vector<std::byte> large(kLargeSize);
    testing::fill_pattern(large, 4);
    std::vector<Request> sends(messages);
    for (std::size_t i = 0; i < messages; ++i) {
      if (!side.endpoint.send(sends[i], side.parent, large.data(), large.size(), 4 + i).ok()) {
        throw std::runtime_error("the send failed");
      }
    }
    (void)side.endpoint.progress_until([] { return false; }, 200ms);
    pipe.send_text("sent");
    (void)side.endpoint.progress_until([] { return false; }, 60s);
  });
}

// A rendezvous receive destroyed while its reads are out: the peer is
// stopped, so they cannot complete. The reads' operations and registrations
// outlive the request until the provider completes them.
TEST(RequestLifetime, APullDestroyedInFlightIsOrphanedUntilItsReadsComplete) {
  ForkedPeer child = large_sender();
  Endpoint endpoint(parent_options());
  const PeerId peer = connect(endpoint, child);
  ASSERT_EQ(child.pipe().receive_text(30s), "sent");
  stop(child);
  std::vector<std::byte> buffer(kLargeSize);  // outlives the orphan, as documented
  const auto start = std::chrono::steady_clock::now();
  {
    Request recv;
    ASSERT_TRUE(endpoint.recv(recv, peer, buffer.data(), buffer.size(), 4).ok());
    // The request-to-send is here already; its reads go out and stall.
    (void)endpoint.progress_until([] { return false; }, 200ms);
    ASSERT_TRUE(recv.in_flight()) << "the pull ended with the peer stopped: "
                                  << recv.status().to_string();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  auto counters = endpoint.counters();
  EXPECT_EQ(counters.abandoned_requests, 1U);
  EXPECT_EQ(counters.orphaned_transfers, 1U);
  // The half-received message broke the stream: the peer has failed.
  Request late;
  std::array<std::byte, 8> small{};
  EXPECT_EQ(endpoint.recv(late, peer, small.data(), small.size(), 5).code(),
            StatusCode::kUnreachable);

  // Once the peer runs again, its answers complete the orphaned reads.
  ASSERT_EQ(::kill(child.pid(), SIGCONT), 0);
  EXPECT_TRUE(
      endpoint.progress_until([&] { return endpoint.counters().orphaned_transfers == 0; }, 30s))
      << "the orphaned reads never completed";
}

// A second pull waits for room on its paths behind the first one's reads
// (each path carries at most pull_chunk x pull_depth bytes of reads, less
// than the first message's share). The first destroyed in flight breaks the
// stream; the second, with nothing in flight, fails at once instead of
// waiting for room that will not come, and leaves no pointer behind.
TEST(RequestLifetime, APullDestroyedInFlightEndsThePullWaitingBehindIt) {
  ForkedPeer child = large_sender(2);
  Endpoint endpoint(parent_options());
  const PeerId peer = connect(endpoint, child);
  ASSERT_EQ(child.pipe().receive_text(30s), "sent");
  stop(child);
  std::vector<std::byte> first(kLargeSize);
  std::vector<std::byte> second(kLargeSize);
  Request waiting;
  {
    Request recv;
    ASSERT_TRUE(endpoint.recv(recv, peer, first.data(), first.size(), 4).ok());
    ASSERT_TRUE(endpoint.recv(waiting, peer, second.data(), second.size(), 5).ok());
    (void)endpoint.progress_until([] { return false; }, 200ms);
    ASSERT_TRUE(recv.in_flight()) << recv.status().to_string();
    ASSERT_TRUE(waiting.in_flight()) << waiting.status().to_string();
    EXPECT_GT(endpoint.counters().pull_stalls, 0U) << "the second pull never waited";
  }
  EXPECT_TRUE(waiting.done()) << "the waiting pull outlived its peer's stream";
  EXPECT_EQ(waiting.status().code(), StatusCode::kUnreachable) << waiting.status().to_string();
  EXPECT_EQ(endpoint.counters().orphaned_transfers, 1U);

  ASSERT_EQ(::kill(child.pid(), SIGCONT), 0);
  EXPECT_TRUE(
      endpoint.progress_until([&] { return endpoint.counters().orphaned_transfers == 0; }, 30s))
      << "the orphaned reads never completed";
}

// A child that registers a region, sends its key, then progresses.
ForkedPeer region_owner() {
  return ForkedPeer([](Pipe& pipe) {
    ChildEndpoint side(child_options(), pipe);
    std::vector<std::byte> memory(kLargeSize);
    testing::fill_pattern(memory, 6);
    const MultiRegion region = side.endpoint.register_memory(memory.data(), memory.size());
    pipe.send(region.remote_key());
    (void)side.endpoint.progress_until([] { return false; }, 60s);
  });
}

// RMA carries no message stream: a get detached from its request leaves
// the peer usable, and its reads are orphaned until they complete.
TEST(RequestLifetime, AGetDestroyedInFlightIsOrphanedAndThePeerStaysUsable) {
  ForkedPeer child = region_owner();
  Endpoint endpoint(parent_options());
  const PeerId peer = connect(endpoint, child);
  const RemoteMultiRegion remote = endpoint.import_region(peer, child.pipe().receive(30s));
  std::vector<std::byte> memory(kLargeSize);
  const MultiRegion local = endpoint.register_memory(memory.data(), memory.size());
  stop(child);
  {
    Request get;
    ASSERT_TRUE(endpoint.get(get, local, 0, remote, 0, kLargeSize).ok());
  }
  auto counters = endpoint.counters();
  EXPECT_EQ(counters.abandoned_requests, 1U);
  EXPECT_EQ(counters.orphaned_transfers, 1U);

  ASSERT_EQ(::kill(child.pid(), SIGCONT), 0);
  ASSERT_TRUE(
      endpoint.progress_until([&] { return endpoint.counters().orphaned_transfers == 0; }, 30s))
      << "the orphaned reads never completed";
  // The peer is still usable: a new get reads the region whole.
  std::fill(memory.begin(), memory.end(), std::byte{0});
  Request get;
  ASSERT_TRUE(endpoint.get(get, local, 0, remote, 0, kLargeSize).ok());
  ASSERT_TRUE(endpoint.wait(get, 30s));
  EXPECT_TRUE(get.status().ok()) << get.status().to_string();
  EXPECT_EQ(testing::first_mismatch(memory, 6), std::nullopt);
}

// A put destroyed in flight to a stopped peer, then the endpoint closed with
// the orphan still outstanding: closing releases it.
TEST(RequestLifetime, AnEndpointClosedWithAnOrphanedPutReleasesIt) {
  ForkedPeer child = region_owner();
  auto endpoint = std::make_unique<Endpoint>(parent_options());
  const PeerId peer = connect(*endpoint, child);
  const RemoteMultiRegion remote = endpoint->import_region(peer, child.pipe().receive(30s));
  std::vector<std::byte> memory(kLargeSize);
  const MultiRegion local = endpoint->register_memory(memory.data(), memory.size());
  stop(child);
  {
    Request put;
    ASSERT_TRUE(endpoint->put(put, local, 0, remote, 0, kLargeSize).ok());
  }
  EXPECT_EQ(endpoint->counters().orphaned_transfers, 1U);
  endpoint.reset();
  EXPECT_EQ(child.kill_and_wait(), -SIGKILL);
}

// A rendezvous send to a stopped peer: no FIN can come, so the destructor
// gives up after the post timeout, revokes the buffer's registration and
// fails the peer.
TEST(RequestLifetime, ARendezvousSendToAStoppedPeerIsDetachedWithinThePostTimeout) {
  ForkedPeer child([](Pipe& pipe) {
    ChildEndpoint side(child_options(), pipe);
    (void)side.endpoint.progress_until([] { return false; }, 60s);
  });
  Endpoint endpoint(parent_options());
  const PeerId peer = connect(endpoint, child);
  stop(child);
  std::vector<std::byte> large(kLargeSize);
  const auto start = std::chrono::steady_clock::now();
  {
    Request send;
    ASSERT_TRUE(endpoint.send(send, peer, large.data(), large.size(), 8).ok());
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  EXPECT_EQ(endpoint.counters().abandoned_requests, 1U);
  Request late;
  const Status refused = endpoint.send(late, peer, large.data(), 8, 9);
  EXPECT_EQ(refused.code(), StatusCode::kUnreachable) << refused.to_string();
  EXPECT_NE(refused.message().find("destroyed in flight"), std::string::npos)
      << refused.to_string();
  EXPECT_EQ(child.kill_and_wait(), -SIGKILL);
}

}  // namespace
}  // namespace railyard::mrail

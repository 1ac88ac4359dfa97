// A rail in each of two processes: what the foundation promises a real job.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <csignal>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "pattern.h"
#include "rail_pair.h"
#include "railyard/rail/progress.h"
#include "railyard/rail/rail.h"
#include "tools/support/forked_peer.h"

namespace railyard::rail {
namespace {

using testing::fill_pattern;
using testing::first_mismatch;
using testing::kTestTimeout;
using testing::loopback_options;
using tools::ForkedPeer;
using tools::Pipe;

const std::vector<std::size_t> kSizes{0,       1, 64, 65, 4096, 65536 + 7, 1 << 20, (16 << 20) + 3,
                                      64 << 20};

void require(bool condition, const std::string& what) {
  if (!condition) {
    throw std::runtime_error(what);
  }
}

void wait_or_throw(rail::Rail& rail, const rail::Request& request, const std::string& what) {
  require(rail.wait(request, kTestTimeout), what + ": timed out");
  require(request.status().ok(), what + ": " + request.status().to_string());
}

TEST(RailFork, MessagesOfEverySizeCrossBetweenProcesses) {
  ForkedPeer child([](Pipe& pipe) {
    rail::Rail rail(loopback_options("127.0.0.1"));
    pipe.send(rail.address());
    const rail::RailPeer parent = rail.insert_peer(pipe.receive(kTestTimeout));
    // Receive every size from the parent, then send each back with a new seed.
    for (std::size_t i = 0; i < kSizes.size(); ++i) {
      std::vector<std::byte> buffer(kSizes[i] + 1);
      auto region = rail.register_memory(buffer.data(), buffer.size());
      rail::Request recv;
      require(rail.post_tagged_recv(recv, region.whole(), 100 + i).ok(), "post recv");
      wait_or_throw(rail, recv, "child recv " + std::to_string(kSizes[i]));
      require(recv.completion().length == kSizes[i], "child got a wrong length");
      require(!first_mismatch(std::span(buffer).first(kSizes[i]), i).has_value(),
              "child got corrupt data for size " + std::to_string(kSizes[i]));
      fill_pattern(std::span(buffer).first(kSizes[i]), 1000 + i);
      rail::Request send;
      require(rail.post_tagged_send(send, parent, region.slice(0, kSizes[i]), 200 + i).ok(),
              "post send");
      wait_or_throw(rail, send, "child send");
    }
  });
  rail::Rail rail(loopback_options("127.0.0.1"));
  const rail::RailPeer peer = rail.insert_peer(child.pipe().receive(kTestTimeout));
  child.pipe().send(rail.address());
  for (std::size_t i = 0; i < kSizes.size(); ++i) {
    std::vector<std::byte> buffer(kSizes[i] + 1);
    fill_pattern(std::span(buffer).first(kSizes[i]), i);
    auto region = rail.register_memory(buffer.data(), buffer.size());
    rail::Request send;
    ASSERT_TRUE(rail.post_tagged_send(send, peer, region.slice(0, kSizes[i]), 100 + i).ok());
    ASSERT_TRUE(rail.wait(send, kTestTimeout)) << "send of " << kSizes[i];
    ASSERT_TRUE(send.status().ok()) << send.status().to_string();
    std::memset(buffer.data(), 0, buffer.size());
    rail::Request recv;
    ASSERT_TRUE(rail.post_tagged_recv(recv, region.whole(), 200 + i).ok());
    ASSERT_TRUE(rail.wait(recv, kTestTimeout)) << "recv of " << kSizes[i];
    ASSERT_TRUE(recv.status().ok()) << recv.status().to_string();
    EXPECT_EQ(recv.completion().length, kSizes[i]);
    EXPECT_EQ(first_mismatch(std::span(buffer).first(kSizes[i]), 1000 + i), std::nullopt)
        << "size " << kSizes[i];
  }
  EXPECT_EQ(child.wait(kTestTimeout), 0);
}

TEST(RailFork, RmaReachesTheOtherProcess) {
  constexpr std::size_t kSize = (4 << 20) + 9;
  ForkedPeer child([](Pipe& pipe) {
    rail::Rail rail(loopback_options("127.0.0.1"));
    std::vector<std::byte> window(kSize);
    fill_pattern(window, 55);  // what the parent will read
    auto region = rail.register_memory(window.data(), window.size());
    pipe.send(rail.address());
    pipe.send(region.remote_key());
    // The parent reads, then writes its own pattern and says so.
    std::vector<std::byte> note(8);
    auto note_region = rail.register_memory(note.data(), note.size());
    rail::Request done;
    require(rail.post_tagged_recv(done, note_region.whole(), 9).ok(), "post note recv");
    wait_or_throw(rail, done, "child waits for the parent's writes");
    require(!first_mismatch(window, 66).has_value(), "the parent's RMA write did not land intact");
    pipe.send_text("verified");
  });
  rail::Rail rail(loopback_options("127.0.0.1"));
  const rail::RailPeer peer = rail.insert_peer(child.pipe().receive(kTestTimeout));
  const RemoteRegion target = rail.import_region(child.pipe().receive(kTestTimeout));
  ASSERT_EQ(target.length(), kSize);

  std::vector<std::byte> buffer(kSize);
  auto region = rail.register_memory(buffer.data(), buffer.size());
  rail::Request read;
  ASSERT_TRUE(rail.post_read(read, peer, region.whole(), target, 0).ok());
  ASSERT_TRUE(rail.wait(read, kTestTimeout));
  ASSERT_TRUE(read.status().ok()) << read.status().to_string();
  EXPECT_EQ(first_mismatch(buffer, 55), std::nullopt);

  fill_pattern(buffer, 66);
  rail::Request write;
  ASSERT_TRUE(rail.post_write(write, peer, region.whole(), target, 0).ok());
  ASSERT_TRUE(rail.wait(write, kTestTimeout));
  ASSERT_TRUE(write.status().ok()) << write.status().to_string();
  // tcp;ofi_rxm orders a send after a write to the same peer (FI_ORDER_SAW),
  // so the note arrives after the written bytes.
  ASSERT_NE(rail.limits().msg_order & FI_ORDER_SAW, 0U);
  std::vector<std::byte> note(8);
  auto note_region = rail.register_memory(note.data(), note.size());
  rail::Request send;
  ASSERT_TRUE(rail.post_tagged_send(send, peer, note_region.whole(), 9).ok());
  ASSERT_TRUE(rail.wait(send, kTestTimeout));
  EXPECT_EQ(child.pipe().receive_text(kTestTimeout), "verified");
  EXPECT_EQ(child.wait(kTestTimeout), 0);
}

}  // namespace
}  // namespace railyard::rail

namespace railyard::rail {
namespace {

// A child whose rail takes one message (tag 1), says so on the pipe, then
// progresses until it is killed.
tools::ForkedPeer child_receiving_once(
    const rail::RailOptions& options = testing::loopback_options("127.0.0.1")) {
  return tools::ForkedPeer([options](tools::Pipe& pipe) {
    rail::Rail rail(options);
    pipe.send(rail.address());
    (void)rail.insert_peer(pipe.receive(testing::kTestTimeout));
    std::array<std::byte, 8> buffer{};
    rail::Request recv;
    require(rail.post_tagged_recv(recv, rail::MutableBuffer{buffer.data(), buffer.size()}, 1).ok(),
            "post recv");
    wait_or_throw(rail, recv, "child waits for the first message");
    pipe.send_text("got it");
    (void)rail::progress_until(
        std::array<rail::Rail*, 1>{&rail}, [] { return false; }, std::chrono::seconds(60),
        rail.wait_policy());
  });
}

// Delivers the child_receiving_once child its message, then kills it: the
// connection existed, and the peer is now gone.
rail::RailPeer meet_then_kill(rail::Rail& rail, tools::ForkedPeer& child) {
  const rail::RailPeer peer = rail.insert_peer(child.pipe().receive(testing::kTestTimeout));
  child.pipe().send(rail.address());
  std::array<std::byte, 8> buffer{};
  rail::Request first;
  EXPECT_TRUE(
      rail.post_tagged_send(first, peer, rail::ConstBuffer{buffer.data(), buffer.size()}, 1).ok());
  EXPECT_TRUE(rail.wait(first, testing::kTestTimeout));
  EXPECT_EQ(child.pipe().receive_text(testing::kTestTimeout), "got it");
  EXPECT_EQ(child.kill_and_wait(), -SIGKILL);
  return peer;
}

TEST(RailFork, PostsToADeadPeerFailWithinThePostTimeout) {
  tools::ForkedPeer child = child_receiving_once();
  rail::RailOptions options = testing::loopback_options("127.0.0.1");
  options.post_timeout = std::chrono::milliseconds(1500);
  rail::Rail rail(options);
  const rail::RailPeer peer = meet_then_kill(rail, child);
  std::array<std::byte, 8> buffer{};
  // Whatever the provider does with each post (accept it into a dead socket,
  // fail it, or refuse it forever), a few posts must end in a failure that
  // says the peer is gone, within the post timeout plus a margin.
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::unique_ptr<rail::Request>> sends;
  bool unreachable = false;
  while (!unreachable && std::chrono::steady_clock::now() - start < std::chrono::seconds(20)) {
    sends.push_back(std::make_unique<rail::Request>());
    ASSERT_TRUE(rail.post_tagged_send(*sends.back(), peer,
                                      rail::ConstBuffer{buffer.data(), buffer.size()}, 2)
                    .ok());
    (void)rail.wait(*sends.back(), std::chrono::seconds(3));
    unreachable = sends.back()->done() && sends.back()->status().code() == StatusCode::kUnreachable;
  }
  EXPECT_TRUE(unreachable) << "no send to the dead peer failed as unreachable within 20 s";
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  // Nothing stays pending forever.
  ASSERT_TRUE(rail::progress_until(
      std::array<rail::Rail*, 1>{&rail},
      [&] {
        return std::all_of(sends.begin(), sends.end(), [](const auto& s) { return s->done(); });
      },
      std::chrono::seconds(10), rail.wait_policy()));
}

// net cancels, with FI_ECANCELED, every send queued on a connection that
// died. That is the peer's loss, not a withdrawn operation: it must read as
// unreachable (the multi-rail layer fails the peer on it and ignores
// cancellations, which only it asks for), while a cancel the rail's user asked
// for still reads as canceled.
TEST(RailFork, SendsTheProviderDropsWithTheirConnectionFailAsUnreachable) {
  rail::RailOptions options = testing::loopback_options("127.0.0.1");
  options.provider = "net";
  options.post_timeout = std::chrono::seconds(30);
  tools::ForkedPeer child = child_receiving_once(options);
  rail::Rail rail(options);
  const rail::RailPeer peer = meet_then_kill(rail, child);

  std::array<std::byte, 8> in{};
  rail::Request withdrawn;
  ASSERT_TRUE(rail.post_tagged_recv(withdrawn, rail::MutableBuffer{in.data(), in.size()}, 9).ok());
  ASSERT_TRUE(rail.cancel(withdrawn).ok());

  // Sends large enough to queue behind the dead socket's buffer.
  std::vector<std::byte> payload(1 << 20);
  std::vector<std::unique_ptr<rail::Request>> sends;
  for (int i = 0; i < 8; ++i) {
    sends.push_back(std::make_unique<rail::Request>());
    ASSERT_TRUE(rail.post_tagged_send(*sends.back(), peer,
                                      rail::ConstBuffer{payload.data(), payload.size()}, 2)
                    .ok());
  }
  ASSERT_TRUE(rail::progress_until(
      std::array<rail::Rail*, 1>{&rail},
      [&] {
        return withdrawn.done() &&
               std::all_of(sends.begin(), sends.end(), [](const auto& s) { return s->done(); });
      },
      std::chrono::seconds(20), rail.wait_policy()))
      << "sends to a dead peer still pending after 20 s (post timeout 30 s)";
  EXPECT_EQ(withdrawn.status().code(), StatusCode::kCanceled) << withdrawn.status().to_string();
  for (const auto& send : sends) {
    ASSERT_FALSE(send->status().ok());
    EXPECT_EQ(send->status().code(), StatusCode::kUnreachable) << send->status().to_string();
  }
  EXPECT_TRUE(std::any_of(sends.begin(), sends.end(), [](const auto& s) {
    return s->status().message().find("canceled by the provider") != std::string::npos;
  })) << sends.back()->status().to_string();
  // The provider's own error, not an errno left over from another call.
  for (const auto& send : sends) {
    const std::string& message = send->status().message();
    if (message.find("canceled by the provider") != std::string::npos) {
      EXPECT_NE(message.find("lost its connection to the peer (Operation canceled)"),
                std::string::npos)
          << message;
    }
  }
}

// An inject has no operation to carry an error: once deferred, its failure
// reaches the rail's post-failure handler, naming the peer, never only a log
// line (the multi-rail layer fails the peer from it).
TEST(RailFork, AFailedDeferredInjectReachesThePostFailureHandler) {
  tools::ForkedPeer child = child_receiving_once();
  rail::RailOptions options = testing::loopback_options("127.0.0.1");
  options.post_timeout = std::chrono::milliseconds(1500);
  rail::Rail rail(options);
  std::vector<std::pair<rail::RailPeer, Status>> reported;
  rail.on_post_failure(
      [&](rail::RailPeer peer, const Status& status) { reported.emplace_back(peer, status); });
  const rail::RailPeer peer = meet_then_kill(rail, child);
  std::array<std::byte, 8> buffer{};

  // Inject until the provider stops taking them; each refused one is retried
  // until the post timeout, then reported. Refused at once is fine too.
  const auto start = std::chrono::steady_clock::now();
  Status refused;
  while (reported.empty() && refused.ok() &&
         std::chrono::steady_clock::now() - start < std::chrono::seconds(20)) {
    refused = rail.tagged_inject(peer, rail::ConstBuffer{buffer.data(), buffer.size()}, 2);
    const auto turn = std::chrono::steady_clock::now();
    while (reported.empty() &&
           std::chrono::steady_clock::now() - turn < std::chrono::milliseconds(50)) {
      (void)rail.progress();
    }
  }
  if (!refused.ok()) {
    EXPECT_EQ(refused.code(), StatusCode::kUnreachable) << refused.to_string();
    return;
  }
  ASSERT_FALSE(reported.empty()) << "no failed inject was reported within 20 s";
  EXPECT_EQ(reported.front().first, peer);
  EXPECT_EQ(reported.front().second.code(), StatusCode::kUnreachable)
      << reported.front().second.to_string();
  EXPECT_NE(reported.front().second.message().find("FI_EAGAIN"), std::string::npos)
      << reported.front().second.to_string();
}

}  // namespace
}  // namespace railyard::rail

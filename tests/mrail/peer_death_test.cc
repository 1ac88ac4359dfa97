// A peer process that dies: what was posted to or from it ends with an error
// within a bounded time, never a hang.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>

#include "endpoint_pair.h"
#include "railyard/transports/mrail/endpoint.h"
#include "railyard_tools/forked_peer.h"

namespace railyard::mrail {
namespace {

using tools::ForkedPeer;
using tools::Pipe;

TEST(PeerDeath, SendsAndReceivesToADeadPeerFailInBoundedTime) {
  auto options = testing::endpoint_options(2, "-1:round-robin");
  options.post_timeout = std::chrono::seconds(2);
  ForkedPeer child([&](Pipe& pipe) {
    Endpoint endpoint(options);
    pipe.send(endpoint.address());
    const PeerId parent = endpoint.insert_peer(pipe.receive(std::chrono::seconds(30)));
    // One exchange so connections exist on every rail, then wait to be killed.
    std::array<std::byte, 8> buffer{};
    for (int i = 0; i < 4; ++i) {
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
  Endpoint endpoint(options);
  const PeerId peer = endpoint.insert_peer(child.pipe().receive(std::chrono::seconds(30)));
  child.pipe().send(endpoint.address());
  std::array<std::byte, 8> buffer{};
  for (int i = 0; i < 4; ++i) {
    Request send;
    ASSERT_TRUE(endpoint.send(send, peer, buffer.data(), buffer.size(), 1).ok());
    ASSERT_TRUE(endpoint.wait(send, std::chrono::seconds(30)));
  }
  Request ready;
  ASSERT_TRUE(endpoint.recv(ready, peer, buffer.data(), buffer.size(), 9).ok());
  ASSERT_TRUE(endpoint.wait(ready, std::chrono::seconds(30))) << "the child never answered";
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

}  // namespace
}  // namespace railyard::mrail

// How channels begin and end when things go wrong: a peer process killed or
// stopped mid-stream, and connects that cannot succeed. The peer runs in a
// forked process, as in a real job.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <stdexcept>
#include <string>
#include <vector>

#include "channel_pair.h"
#include "railyard/common/error.h"
#include "railyard/rstream/channel.h"
#include "railyard/rstream/listener.h"
#include "tools/support/forked_peer.h"

namespace railyard::rstream {
namespace {

using Clock = std::chrono::steady_clock;
using railyard::testing::bytes_of;
using railyard::testing::quick_options;
using tools::ForkedPeer;
using tools::Pipe;

constexpr std::chrono::seconds kPipeTimeout{20};

std::string loopback_address(const Listener& listener) {
  return "127.0.0.1:" + std::to_string(listener.port());
}

// Receives until the stream fails or ends, up to `limit`; returns the
// result that ended it.
IoResult receive_until_failure(Channel& channel, std::chrono::seconds limit) {
  std::vector<std::byte> buffer(1 << 16);
  const auto deadline = Clock::now() + limit;
  IoResult got;
  while (Clock::now() < deadline) {
    got = channel.receive(buffer);
    if (!got.ok() || got.end_of_stream()) {
      return got;
    }
  }
  return got;
}

TEST(ChannelLifecycle, PeerKilledMidStreamGivesAnErrorPromptly) {
  Listener listener("127.0.0.1:0", quick_options());
  const std::string address = loopback_address(listener);
  ForkedPeer child([&](Pipe& pipe) {
    Channel channel = Channel::connect(address, quick_options());
    pipe.send_text("connected");
    const std::vector<std::byte> chunk(1 << 16, std::byte{7});
    while (channel.send(chunk).ok()) {
    }
    throw std::runtime_error("the parent stopped reading");
  });
  auto accepted = listener.accept(std::chrono::seconds(20));
  ASSERT_TRUE(accepted);
  ASSERT_EQ(child.pipe().receive_text(kPipeTimeout), "connected");
  std::vector<std::byte> buffer(1 << 20);
  ASSERT_TRUE(accepted->receive_all(buffer).ok());

  const auto killed = Clock::now();
  child.kill_and_wait();
  const IoResult last = receive_until_failure(*accepted, std::chrono::seconds(15));
  const auto took = Clock::now() - killed;
  EXPECT_EQ(last.state, IoState::kError);
  EXPECT_EQ(last.status.code(), StatusCode::kUnreachable) << last.status.to_string();
  EXPECT_NE(last.status.message().find(accepted->peer()), std::string::npos)
      << "the error names the peer: " << last.status.to_string();
  // A dead process's kernel closes its connections: no keepalive needed.
  EXPECT_LT(took, std::chrono::seconds(2));
  EXPECT_TRUE(accepted->readiness().error);
}

TEST(ChannelLifecycle, StoppedPeerIsDetectedByKeepalive) {
  Listener listener("127.0.0.1:0", quick_options());
  const std::string address = loopback_address(listener);
  ForkedPeer child([&](Pipe& pipe) {
    Channel channel = Channel::connect(address, quick_options());
    const std::string hello = "ready";
    if (!channel.send(bytes_of(hello)).ok()) {
      throw std::runtime_error("sending ready failed");
    }
    pipe.send_text("sent");
    // Stops the whole process, background thread included: alive to the
    // kernel, silent to the channel.
    ::raise(SIGSTOP);
  });
  auto accepted = listener.accept(std::chrono::seconds(20));
  ASSERT_TRUE(accepted);
  ASSERT_EQ(child.pipe().receive_text(kPipeTimeout), "sent");
  std::array<std::byte, 5> hello{};
  ASSERT_TRUE(accepted->receive_all(hello).ok());

  const auto start = Clock::now();
  const IoResult last = receive_until_failure(*accepted, std::chrono::seconds(20));
  const auto took = Clock::now() - start;
  child.kill_and_wait();
  EXPECT_EQ(last.state, IoState::kError);
  EXPECT_EQ(last.status.code(), StatusCode::kUnreachable) << last.status.to_string();
  EXPECT_NE(last.status.message().find("keepalive"), std::string::npos) << last.status.to_string();
  EXPECT_NE(last.status.message().find("RAILYARD_RSTREAM_KEEPALIVE"), std::string::npos);
  // quick_options: a 2 s keepalive.
  EXPECT_GE(took, std::chrono::milliseconds(1500));
  EXPECT_LT(took, std::chrono::seconds(6));
}

TEST(ChannelLifecycle, BusyPeerIsNotMistakenForDead) {
  // The child computes for three keepalive periods without calling into its
  // channel; its background progress answers the probes.
  Listener listener("127.0.0.1:0", quick_options());
  const std::string address = loopback_address(listener);
  ForkedPeer child([&](Pipe& pipe) {
    Channel channel = Channel::connect(address, quick_options());
    pipe.send_text("connected");
    const auto until = Clock::now() + std::chrono::seconds(6);
    while (Clock::now() < until) {
      ::usleep(1000);  // busy elsewhere
    }
    const std::string done = "done";
    if (!channel.send(bytes_of(done)).ok()) {
      throw std::runtime_error("sending done failed");
    }
    if (!channel.close().ok()) {
      throw std::runtime_error("close failed");
    }
  });
  auto accepted = listener.accept(std::chrono::seconds(20));
  ASSERT_TRUE(accepted);
  ASSERT_EQ(child.pipe().receive_text(kPipeTimeout), "connected");
  std::array<std::byte, 4> done{};
  const IoResult got = accepted->receive_all(done);
  ASSERT_TRUE(got.ok()) << got.status.to_string();
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(done.data()), done.size()), "done");
  EXPECT_EQ(child.wait(std::chrono::seconds(20)), 0);
}

TEST(ChannelLifecycle, ConnectToAClosedPortNamesIt) {
  std::string address;
  {
    Listener listener("127.0.0.1:0", quick_options());
    address = loopback_address(listener);
  }
  try {
    (void)Channel::connect(address, quick_options());
    FAIL() << "connected to a closed port";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(address), std::string::npos) << what;
    EXPECT_NE(what.find("refused"), std::string::npos) << what;
  }
}

TEST(ChannelLifecycle, ConnectToASilentListenerTimesOut) {
  // A TCP port that completes handshakes but never answers the connection
  // request a channel sends.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in bound{};
  bound.sin_family = AF_INET;
  bound.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&bound), sizeof(bound)), 0);
  ASSERT_EQ(::listen(fd, 4), 0);
  socklen_t length = sizeof(bound);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length), 0);
  const std::string address = "127.0.0.1:" + std::to_string(ntohs(bound.sin_port));
  ChannelOptions options = quick_options();
  options.connect_timeout = std::chrono::milliseconds(500);
  const auto start = Clock::now();
  try {
    (void)Channel::connect(address, options);
    ADD_FAILURE() << "connected to a silent listener";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(address), std::string::npos) << what;
    EXPECT_NE(what.find("500 ms"), std::string::npos) << what;
  }
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(3));
  ::close(fd);
}

TEST(ChannelLifecycle, ConnectToAnUnroutableAddressNamesIt) {
  // 100::/64 is the IPv6 discard prefix: no host answers there. Whether
  // the route is missing or the packets vanish, the connect fails in time.
  ChannelOptions options = quick_options();
  options.connect_timeout = std::chrono::milliseconds(1000);
  const auto start = Clock::now();
  try {
    (void)Channel::connect("[100::1]:9", options);
    ADD_FAILURE() << "connected to the discard prefix";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("100::1"), std::string::npos) << e.what();
  }
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(4));
}

}  // namespace
}  // namespace railyard::rstream

// Stream channels over loopback, both ends in one process (threads).
#include <gtest/gtest.h>
#include <poll.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <future>
#include <random>
#include <thread>
#include <vector>

#include "channel_pair.h"
#include "pattern.h"
#include "railyard/rstream/channel.h"
#include "railyard/rstream/listener.h"

namespace railyard::rstream {
namespace {

using railyard::testing::bytes_of;
using railyard::testing::ChannelPair;
using railyard::testing::quick_options;
using railyard::testing::receive_text;
using Clock = std::chrono::steady_clock;

TEST(Channel, PingPong) {
  ChannelPair pair;
  std::thread echo([&] {
    std::array<std::byte, 8> buffer{};
    for (int i = 0; i < 1000; ++i) {
      ASSERT_TRUE(pair.server.receive_all(buffer).ok());
      ASSERT_TRUE(pair.server.send(buffer).ok());
    }
  });
  for (std::uint64_t i = 0; i < 1000; ++i) {
    std::array<std::byte, 8> out{};
    std::memcpy(out.data(), &i, sizeof(i));
    ASSERT_TRUE(pair.client.send(out).ok());
    std::array<std::byte, 8> back{};
    ASSERT_TRUE(pair.client.receive_all(back).ok());
    std::uint64_t value = 0;
    std::memcpy(&value, back.data(), sizeof(value));
    ASSERT_EQ(value, i);
  }
  echo.join();
  EXPECT_EQ(pair.client.counters().bytes_sent, 8000U);
  EXPECT_EQ(pair.server.counters().bytes_received, 8000U);
  // Small messages never wait for room: the rings stay small.
  EXPECT_EQ(pair.client.counters().ring_growths, 0U);
  EXPECT_EQ(pair.server.counters().ring_growths, 0U);
}

// A stream whose bytes come from a seeded generator, so both ends can
// compute its checksum independently.
std::uint64_t fill_stream(std::span<std::byte> out, std::uint64_t& state) {
  std::uint64_t sum = 0;
  for (auto& b : out) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    b = static_cast<std::byte>(state >> 56);
    sum = (sum ^ static_cast<std::uint64_t>(b)) * 0x100000001B3ULL;
  }
  return sum;
}

std::uint64_t fold(std::span<const std::byte> in, std::uint64_t sum) {
  for (const auto b : in) {
    sum = (sum ^ static_cast<std::uint64_t>(b)) * 0x100000001B3ULL;
  }
  return sum;
}

TEST(Channel, OneGibibyteInRandomChunksArrivesIntact) {
  constexpr std::uint64_t kTotal = std::uint64_t{1} << 30;
  ChannelPair pair;
  auto writer = std::async(std::launch::async, [&] {
    std::mt19937_64 sizes(7);
    std::vector<std::byte> chunk(1 << 20);
    std::uint64_t state = 99;
    std::uint64_t sum = 0xcbf29ce484222325ULL;
    std::uint64_t sent = 0;
    while (sent < kTotal) {
      const std::size_t size = std::min<std::uint64_t>(1 + sizes() % chunk.size(), kTotal - sent);
      const auto piece = std::span(chunk).first(size);
      std::uint64_t local = state;
      fill_stream(piece, local);
      state = local;
      sum = fold(piece, sum);
      const IoResult result = pair.client.send(piece);
      if (!result.ok() || result.bytes != size) {
        ADD_FAILURE() << result.status.to_string();
        break;
      }
      sent += size;
    }
    const Status shut = pair.client.shutdown(ShutdownHow::kWrite);
    EXPECT_TRUE(shut.ok()) << shut.to_string();
    return sum;
  });
  std::mt19937_64 sizes(11);
  std::vector<std::byte> buffer(1 << 20);
  std::uint64_t received = 0;
  std::uint64_t sum = 0xcbf29ce484222325ULL;
  while (true) {
    const std::size_t size = 1 + sizes() % buffer.size();
    const IoResult got = pair.server.receive(std::span(buffer).first(size));
    if (got.end_of_stream()) {
      break;
    }
    ASSERT_TRUE(got.ok()) << got.status.to_string();
    sum = fold(std::span(buffer).first(got.bytes), sum);
    received += got.bytes;
  }
  EXPECT_EQ(received, kTotal);
  EXPECT_EQ(sum, writer.get());
}

TEST(Channel, SlowReaderBlocksTheWriterWithoutLoss) {
  constexpr std::size_t kTotal = std::size_t{4} << 20;
  ChannelPair pair;
  std::vector<std::byte> data(kTotal);
  railyard::testing::fill_pattern(data, 5);
  auto writer = std::async(std::launch::async, [&] {
    const auto start = Clock::now();
    const IoResult sent = pair.client.send(data);
    EXPECT_TRUE(sent.ok()) << sent.status.to_string();
    EXPECT_EQ(sent.bytes, kTotal);
    return Clock::now() - start;
  });
  std::vector<std::byte> got(kTotal);
  std::size_t received = 0;
  int reads = 0;
  while (received < kTotal) {
    if (reads++ < 20) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));  // the slow part
    }
    const IoResult r = pair.server.receive(std::span(got).subspan(received, 4096));
    ASSERT_TRUE(r.ok()) << r.status.to_string();
    received += r.bytes;
  }
  const auto took = writer.get();
  EXPECT_GE(took, std::chrono::milliseconds(150)) << "the writer never waited for the reader";
  EXPECT_GT(pair.client.counters().credit_waits, 0U);
  EXPECT_EQ(railyard::testing::first_mismatch(got, 5), std::nullopt);
}

// Streams `total` bytes of a pattern in 64 KiB writes; the reader peeks
// before every receive, so peeks that span an outgrown ring and its
// successor are checked against the bytes then received. Returns the
// reader's counters.
ChannelCounters stream_with_peeks(ChannelPair& pair, std::size_t total) {
  std::vector<std::byte> data(total);
  railyard::testing::fill_pattern(data, 23);
  auto writer = std::async(std::launch::async, [&] {
    for (std::size_t sent = 0; sent < total;) {
      const auto piece = std::span(data).subspan(sent, std::min<std::size_t>(65536, total - sent));
      const IoResult r = pair.client.send(piece);
      if (!r.ok() || r.bytes != piece.size()) {
        ADD_FAILURE() << r.status.to_string();
        return;
      }
      sent += piece.size();
    }
  });
  std::vector<std::byte> got(total);
  std::vector<std::byte> peeked(200'000);
  std::mt19937_64 sizes(3);
  std::size_t received = 0;
  std::size_t peek_mismatches = 0;
  while (received < total) {
    const std::size_t want = std::min<std::size_t>(1 + sizes() % peeked.size(), total - received);
    const IoResult p = pair.server.peek(std::span(peeked).first(want));
    if (!p.ok()) {
      ADD_FAILURE() << p.status.to_string();
      break;
    }
    const IoResult r = pair.server.receive_all(std::span(got).subspan(received, p.bytes));
    if (!r.ok() || r.bytes != p.bytes) {
      ADD_FAILURE() << r.status.to_string();
      break;
    }
    if (std::memcmp(peeked.data(), got.data() + received, p.bytes) != 0) {
      ++peek_mismatches;
    }
    received += r.bytes;
  }
  writer.get();
  EXPECT_EQ(peek_mismatches, 0U);
  EXPECT_EQ(railyard::testing::first_mismatch(got, 23), std::nullopt);
  return pair.server.counters();
}

TEST(Channel, BulkStreamGrowsTheRingsWithoutLossOrReordering) {
  ChannelPair pair;
  const ChannelCounters counters = stream_with_peeks(pair, std::size_t{64} << 20);
  // 32 KiB grows four-fold per step to the 1 MiB maximum: 128K, 512K, 1M.
  EXPECT_GE(counters.ring_growths, 1U);
  EXPECT_LE(counters.ring_growths, 3U);
  EXPECT_EQ(counters.bytes_received, std::size_t{64} << 20);
}

TEST(Channel, RingsDoNotGrowPastTheirMaximum) {
  ChannelOptions options = quick_options();
  options.receive_buffer_max = options.receive_buffer_size;
  ChannelPair pair(quick_options(), options);
  const ChannelCounters counters = stream_with_peeks(pair, std::size_t{8} << 20);
  EXPECT_EQ(counters.ring_growths, 0U);
  EXPECT_GT(pair.client.counters().credit_waits, 0U);
}

// What a server refusing a client does: a few small (injected) writes, then
// close at once. The bytes must reach the peer before its end of stream.
TEST(Channel, SmallWritesJustBeforeCloseArriveBeforeTheEndOfStream) {
  for (int round = 0; round < 40; ++round) {
    ChannelPair pair;
    const std::string header = "8 bytes!";
    const std::string body = "a refusal's reason, short enough to be injected";
    ASSERT_TRUE(pair.server.send(bytes_of(header)).ok());
    ASSERT_TRUE(pair.server.send(bytes_of(body)).ok());
    ASSERT_TRUE(pair.server.close().ok());
    // Read as a polling loop does: wait for readiness, then non-blocking.
    std::string got(header.size() + body.size(), '\0');
    std::size_t filled = 0;
    std::array<Channel*, 1> channels{&pair.client};
    while (filled < got.size()) {
      ASSERT_TRUE(wait_any(channels, Interest::kRead, std::chrono::seconds(5)));
      const IoResult step = pair.client.receive(
          std::as_writable_bytes(std::span(got)).subspan(filled), Blocking::kNonBlocking);
      if (step.would_block()) {
        continue;
      }
      ASSERT_TRUE(step.ok()) << "round " << round << " after " << filled << " bytes: "
                             << (step.end_of_stream() ? "end of stream" : step.status.to_string());
      filled += step.bytes;
    }
    EXPECT_EQ(got, header + body) << "round " << round;
  }
}

TEST(Channel, PeekDoesNotConsume) {
  ChannelPair pair;
  ASSERT_TRUE(pair.client.send(bytes_of("hello world")).ok());
  std::string peeked(5, '\0');
  IoResult r = pair.server.peek(std::as_writable_bytes(std::span(peeked)));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(peeked.substr(0, r.bytes), std::string("hello").substr(0, r.bytes));
  r = pair.server.peek(std::as_writable_bytes(std::span(peeked)));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(receive_text(pair.server, 11), "hello world");
  EXPECT_EQ(pair.server.counters().bytes_received, 11U);
  EXPECT_TRUE(pair.server.peek(std::as_writable_bytes(std::span(peeked)), Blocking::kNonBlocking)
                  .would_block());
}

bool poll_readable(int fd, std::chrono::milliseconds timeout) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, static_cast<int>(timeout.count())) == 1 && (p.revents & POLLIN) != 0;
}

TEST(Channel, DescriptorWakesOnDataAndOnClose) {
  ChannelPair pair;
  Readiness state = pair.server.readiness();
  EXPECT_FALSE(state.readable);
  EXPECT_TRUE(state.writable);
  // The descriptor may wake spuriously (the contract: call readiness()
  // after it wakes), but readiness() must not then claim bytes.
  if (poll_readable(pair.server.fd(), std::chrono::milliseconds(100))) {
    EXPECT_FALSE(pair.server.readiness().readable);
  }

  auto sender = std::async(std::launch::async, [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return pair.client.send(bytes_of("ping")).ok();
  });
  EXPECT_TRUE(poll_readable(pair.server.fd(), std::chrono::seconds(5)));
  EXPECT_TRUE(sender.get());
  EXPECT_TRUE(pair.server.readiness().readable);
  // Unread bytes keep it readable, as a socket's.
  EXPECT_TRUE(poll_readable(pair.server.fd(), std::chrono::milliseconds(0)));
  EXPECT_EQ(receive_text(pair.server, 4), "ping");
  EXPECT_FALSE(pair.server.readiness().readable);

  auto closer = std::async(std::launch::async, [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return pair.client.close();
  });
  EXPECT_TRUE(poll_readable(pair.server.fd(), std::chrono::seconds(5)));
  EXPECT_TRUE(closer.get().ok());
  state = pair.server.readiness();
  EXPECT_TRUE(state.readable);
  EXPECT_TRUE(state.hangup);
  std::array<std::byte, 4> buffer{};
  EXPECT_TRUE(pair.server.receive(buffer).end_of_stream());
}

TEST(Channel, NonBlockingCallsReportWouldBlock) {
  ChannelOptions options = quick_options();
  options.send_buffer_size = 4096;
  options.receive_buffer_size = 4096;
  ChannelPair pair(options, options);
  std::array<std::byte, 16> buffer{};
  const auto start = Clock::now();
  EXPECT_TRUE(pair.server.receive(buffer, Blocking::kNonBlocking).would_block());
  // The peer does not read: sends fill its ring and then would block.
  std::vector<std::byte> chunk(1024, std::byte{1});
  std::size_t sent = 0;
  IoResult r;
  for (int i = 0; i < 1000; ++i) {
    r = pair.client.send(chunk, Blocking::kNonBlocking);
    if (r.would_block()) {
      break;
    }
    ASSERT_TRUE(r.ok()) << r.status.to_string();
    sent += r.bytes;
  }
  EXPECT_TRUE(r.would_block());
  EXPECT_GE(sent, 4096U);
  EXPECT_LE(sent, 8192U);  // the peer's ring plus our own send ring at most
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(2));
  EXPECT_FALSE(pair.client.readiness().writable);
  // Reading makes room, and the writer's descriptor wakes.
  std::vector<std::byte> sink(sent);
  ASSERT_TRUE(pair.server.receive_all(std::span(sink).first(4096)).ok());
  EXPECT_TRUE(poll_readable(pair.client.fd(), std::chrono::seconds(5)));
  EXPECT_TRUE(pair.client.readiness().writable);
}

TEST(Channel, SixtyFourChannelsOnOneListener) {
  constexpr int kChannels = 64;
  Listener listener("127.0.0.1:0", quick_options());
  const std::string address = "tcp://127.0.0.1:" + std::to_string(listener.port());
  auto clients = std::async(std::launch::async, [&] {
    std::vector<Channel> out;
    for (int i = 0; i < kChannels; ++i) {
      out.push_back(Channel::connect(address, quick_options()));
      const std::string hello = "client " + std::to_string(i);
      EXPECT_TRUE(out.back().send(bytes_of(hello)).ok());
    }
    return out;
  });
  std::vector<Channel> accepted;
  for (int i = 0; i < kChannels; ++i) {
    auto channel = listener.accept(std::chrono::seconds(20));
    ASSERT_TRUE(channel) << "accepted only " << i;
    accepted.push_back(std::move(*channel));
  }
  std::vector<Channel> connected = clients.get();
  // Serve all of them through wait_any: each echoes its greeting back.
  std::vector<Channel*> pointers;
  pointers.reserve(accepted.size());
  for (auto& c : accepted) {
    pointers.push_back(&c);
  }
  std::vector<bool> answered(kChannels, false);
  for (int served = 0; served < kChannels; ++served) {
    const auto ready = wait_any(pointers, Interest::kRead, std::chrono::seconds(10));
    ASSERT_TRUE(ready);
    std::array<char, 32> text{};
    const IoResult got = pointers[*ready]->receive(std::as_writable_bytes(std::span(text)));
    ASSERT_TRUE(got.ok()) << got.status.to_string();
    ASSERT_TRUE(pointers[*ready]->send(std::as_bytes(std::span(text).first(got.bytes))).ok());
    answered[*ready] = true;
  }
  EXPECT_EQ(std::count(answered.begin(), answered.end(), true), kChannels);
  for (int i = 0; i < kChannels; ++i) {
    const std::string hello = "client " + std::to_string(i);
    EXPECT_EQ(receive_text(connected[static_cast<std::size_t>(i)], hello.size()), hello);
  }
}

TEST(Channel, ShutdownWriteGivesEndOfStreamAfterEveryByte) {
  ChannelPair pair;
  std::vector<std::byte> data(100000);
  railyard::testing::fill_pattern(data, 3);
  // More than both rings hold: the writer needs the reader, so it runs apart.
  auto shut = std::async(std::launch::async, [&] {
    const IoResult sent = pair.client.send(data);
    return sent.ok() ? pair.client.shutdown(ShutdownHow::kWrite) : sent.status;
  });
  std::vector<std::byte> got(data.size());
  ASSERT_TRUE(pair.server.receive_all(got).ok());
  EXPECT_EQ(railyard::testing::first_mismatch(got, 3), std::nullopt);
  std::array<std::byte, 1> more{};
  EXPECT_TRUE(pair.server.receive(more).end_of_stream());
  const Status shut_status = shut.get();
  EXPECT_TRUE(shut_status.ok()) << shut_status.to_string();
  // The other direction still works.
  ASSERT_TRUE(pair.server.send(bytes_of("back")).ok());
  EXPECT_EQ(receive_text(pair.client, 4), "back");
  const IoResult after = pair.client.send(bytes_of("x"));
  EXPECT_EQ(after.state, IoState::kError);
  EXPECT_NE(after.status.message().find("shut down for writing"), std::string::npos);
}

TEST(Channel, ShutdownTimesOutWhenThePeerNeverAnswers) {
  ChannelOptions options = quick_options();
  options.send_buffer_size = 4096;
  options.receive_buffer_size = 4096;
  options.shutdown_timeout = std::chrono::milliseconds(300);
  // The peer neither calls nor is progressed in the background, so on tcp
  // nothing confirms that the end of stream arrived.
  ChannelOptions silent = options;
  silent.background_progress = false;
  ChannelPair pair(options, silent);
  std::vector<std::byte> chunk(4096, std::byte{2});
  ASSERT_TRUE(pair.client.send(chunk).ok());  // fills the peer's ring
  const auto start = Clock::now();
  const Status status = pair.client.shutdown(ShutdownHow::kWrite);
  const auto took = Clock::now() - start;
  EXPECT_EQ(status.code(), StatusCode::kTimedOut) << status.to_string();
  EXPECT_NE(status.message().find("300 ms"), std::string::npos) << status.to_string();
  EXPECT_LT(took, std::chrono::seconds(2));
}

TEST(Channel, ReceiveShutdownDropsUnreadBytes) {
  ChannelPair pair;
  ASSERT_TRUE(pair.client.send(bytes_of("unwanted")).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(pair.server.shutdown(ShutdownHow::kRead).ok());
  std::array<std::byte, 8> buffer{};
  EXPECT_TRUE(pair.server.receive(buffer).end_of_stream());
  // The writer keeps its credits: much more than a ring goes through.
  std::vector<std::byte> big(256 << 10);
  const IoResult sent = pair.client.send(big);
  EXPECT_TRUE(sent.ok()) << sent.status.to_string();
}

}  // namespace
}  // namespace railyard::rstream

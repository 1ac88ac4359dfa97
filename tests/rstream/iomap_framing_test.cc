// iomap (direct writes into a buffer the peer mapped, ordered with the
// stream) and the framing helper, over loopback channels.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "channel_pair.h"
#include "pattern.h"
#include "railyard/rstream/channel.h"
#include "railyard/rstream/framing.h"

namespace railyard::rstream {
namespace {

using railyard::testing::bytes_of;
using railyard::testing::ChannelPair;
using railyard::testing::fill_pattern;
using railyard::testing::first_mismatch;
using railyard::testing::quick_options;
using railyard::testing::receive_text;

ChannelOptions iomap_options() {
  ChannelOptions options = quick_options();
  options.iomap_size = 2;
  return options;
}

constexpr std::uint64_t kBase = std::uint64_t{1} << 20;  // where the server maps its buffer

TEST(Iomap, WritesLandAtTheirOffsetBeforeTheNotifyingMessage) {
  ChannelPair pair(iomap_options(), iomap_options());
  std::vector<std::byte> target(std::size_t{1} << 16, std::byte{0});
  ASSERT_TRUE(pair.server.map(target.data(), target.size(), kBase).ok());
  ASSERT_TRUE(pair.server.send(bytes_of("mapped")).ok());

  ASSERT_EQ(receive_text(pair.client, 6), "mapped");
  std::vector<std::byte> data(40000);
  fill_pattern(data, 5);
  const IoResult written = pair.client.iowrite(data, kBase + 1000);
  ASSERT_TRUE(written.ok()) << written.status.to_string();
  EXPECT_EQ(written.bytes, data.size());
  ASSERT_TRUE(pair.client.send(bytes_of("done")).ok());

  ASSERT_EQ(receive_text(pair.server, 4), "done");
  EXPECT_EQ(first_mismatch(std::span(target).subspan(1000, data.size()), 5), std::nullopt);
  EXPECT_TRUE(std::all_of(target.begin(), target.begin() + 1000,
                          [](std::byte b) { return b == std::byte{0}; }));
  EXPECT_TRUE(std::all_of(target.begin() + 1000 + static_cast<std::ptrdiff_t>(data.size()),
                          target.end(), [](std::byte b) { return b == std::byte{0}; }));
  // iomap bytes are not stream bytes.
  EXPECT_EQ(pair.server.counters().bytes_received, 4U);
}

TEST(Iomap, WritesOutsideEveryMappingAreRefused) {
  ChannelPair pair(iomap_options(), iomap_options());
  std::vector<std::byte> target(4096);
  ASSERT_TRUE(pair.server.map(target.data(), target.size(), kBase).ok());
  ASSERT_TRUE(pair.server.send(bytes_of("mapped")).ok());
  ASSERT_EQ(receive_text(pair.client, 6), "mapped");

  const std::vector<std::byte> data(100, std::byte{1});
  IoResult r = pair.client.iowrite(data, 0);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status.message().find("no mapping of the peer covers stream offset 0"),
            std::string::npos)
      << r.status.to_string();
  // Running off the end of the mapping stops at its end.
  r = pair.client.iowrite(data, kBase + 4096 - 10);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument) << r.status.to_string();
  EXPECT_EQ(r.bytes, 10U);

  // Once unmapped (and the peer told, in stream order), the range is gone.
  ASSERT_TRUE(pair.server.unmap(kBase).ok());
  ASSERT_TRUE(pair.server.send(bytes_of("unmapped")).ok());
  ASSERT_EQ(receive_text(pair.client, 8), "unmapped");
  r = pair.client.iowrite(data, kBase);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument) << r.status.to_string();
  // The channel still works.
  ASSERT_TRUE(pair.client.send(bytes_of("still")).ok());
  EXPECT_EQ(receive_text(pair.server, 5), "still");
}

TEST(Iomap, MappingsAreCheckedAndLimited) {
  ChannelPair pair(iomap_options(), iomap_options());
  std::vector<std::byte> a(4096);
  std::vector<std::byte> b(4096);
  std::vector<std::byte> c(4096);
  ASSERT_TRUE(pair.server.map(a.data(), a.size(), 0).ok());
  Status s = pair.server.map(b.data(), b.size(), 100);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("overlaps the mapping at [0, 4096)"), std::string::npos)
      << s.to_string();
  ASSERT_TRUE(pair.server.map(b.data(), b.size(), 4096).ok());
  s = pair.server.map(c.data(), c.size(), 8192);
  EXPECT_NE(s.message().find("all 2 mappings (iomap_size) are in use"), std::string::npos)
      << s.to_string();
  EXPECT_EQ(pair.server.unmap(12345).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(pair.server.map(nullptr, 10, 1 << 20).code(), StatusCode::kInvalidArgument);
}

TEST(Iomap, IsOffByDefault) {
  ChannelPair pair;
  std::vector<std::byte> target(4096);
  const Status s = pair.server.map(target.data(), target.size(), 0);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("RAILYARD_RSTREAM_IOMAP_SIZE"), std::string::npos) << s.to_string();
  const IoResult r = pair.client.iowrite(target, 0);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument) << r.status.to_string();
}

TEST(Framing, FramesOfEverySizeRoundTrip) {
  ChannelPair pair;
  const std::vector<std::size_t> sizes{0, 1, 7, 8, 4096, 100000, 1 << 20};
  auto writer = std::async(std::launch::async, [&] {
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      std::vector<std::byte> payload(sizes[i]);
      fill_pattern(payload, i);
      Status s = send_frame(pair.client, static_cast<std::uint16_t>(10 + i), payload);
      if (!s.ok()) {
        return s;
      }
    }
    return pair.client.shutdown(ShutdownHow::kWrite);
  });
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    Frame frame;
    const IoResult got = receive_frame(pair.server, frame);
    ASSERT_TRUE(got.ok()) << got.status.to_string();
    EXPECT_EQ(frame.type, 10 + i);
    ASSERT_EQ(frame.payload.size(), sizes[i]);
    EXPECT_EQ(first_mismatch(frame.payload, i), std::nullopt);
  }
  Frame last;
  EXPECT_TRUE(receive_frame(pair.server, last).end_of_stream());
  const Status shut = writer.get();
  EXPECT_TRUE(shut.ok()) << shut.to_string();
}

TEST(Framing, OversizedFramesAreRefusedOnBothSides) {
  ChannelPair pair;
  const std::vector<std::byte> payload(2000);
  const Status s = send_frame(pair.client, 3, payload, 1000);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("payload of 2000 bytes exceeds the maximum of 1000"),
            std::string::npos)
      << s.to_string();
  ASSERT_TRUE(send_frame(pair.client, 3, payload).ok());
  Frame frame;
  const IoResult got = receive_frame(pair.server, frame, 1000);
  EXPECT_EQ(got.state, IoState::kError);
  EXPECT_NE(got.status.message().find("announces 2000 bytes, more than the maximum of 1000"),
            std::string::npos)
      << got.status.to_string();
}

TEST(Framing, StreamEndingInsideAFrameIsAnError) {
  for (const std::size_t cut : {std::size_t{3}, kFrameHeaderSize + 5}) {
    ChannelPair pair;
    // A header announcing 100 bytes, then only part of the frame.
    std::vector<std::byte> bytes(kFrameHeaderSize + 100, std::byte{0});
    bytes[0] = std::byte{100};
    bytes[4] = std::byte{9};
    ASSERT_TRUE(pair.client.send(std::span(bytes).first(cut)).ok());
    ASSERT_TRUE(pair.client.shutdown(ShutdownHow::kWrite).ok());
    Frame frame;
    const IoResult got = receive_frame(pair.server, frame);
    EXPECT_EQ(got.state, IoState::kError) << "cut at " << cut;
    EXPECT_NE(got.status.message().find("stream ended after"), std::string::npos)
        << got.status.to_string();
  }
}

TEST(Framing, ABadHeaderIsNotTakenForAFrame) {
  ChannelPair pair;
  std::vector<std::byte> bytes(kFrameHeaderSize, std::byte{0});
  bytes[6] = std::byte{1};  // the reserved field
  ASSERT_TRUE(pair.client.send(bytes).ok());
  Frame frame;
  const IoResult got = receive_frame(pair.server, frame);
  EXPECT_EQ(got.state, IoState::kError);
  EXPECT_NE(got.status.message().find("reserved field"), std::string::npos)
      << got.status.to_string();
}

// Reads with a FrameReader until a frame, an end or an error, waiting for
// readiness between would-block answers (at most 5 s in all).
IoResult read_with(FrameReader& reader, Channel& channel, Frame& frame, int& would_blocks) {
  std::array<Channel*, 1> channels{&channel};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < deadline) {
    IoResult got = reader.read(channel, frame);
    if (!got.would_block()) {
      return got;
    }
    ++would_blocks;
    (void)wait_any(channels, Interest::kRead, std::chrono::milliseconds(100));
  }
  return IoResult::blocked();
}

TEST(FrameReader, AssemblesFramesSentOneByteAtATimeWithoutBlocking) {
  ChannelPair pair;
  std::vector<std::byte> stream;
  for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{300}}) {
    std::vector<std::byte> payload(size);
    fill_pattern(payload, size);
    ChannelPair scratch;
    ASSERT_TRUE(send_frame(scratch.client, static_cast<std::uint16_t>(size + 1), payload).ok());
    std::vector<std::byte> encoded(kFrameHeaderSize + size);
    ASSERT_TRUE(scratch.server.receive_all(encoded).ok());
    stream.insert(stream.end(), encoded.begin(), encoded.end());
  }
  FrameReader reader;
  auto sender = std::async(std::launch::async, [&] {
    for (const std::byte byte : stream) {
      if (!pair.client.send(std::span(&byte, 1)).ok()) {
        return false;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    return pair.client.shutdown(ShutdownHow::kWrite).ok();
  });
  int would_blocks = 0;
  for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{300}}) {
    Frame frame;
    const IoResult got = read_with(reader, pair.server, frame, would_blocks);
    ASSERT_TRUE(got.ok()) << "frame of " << size << ": " << got.status.to_string();
    EXPECT_EQ(frame.type, size + 1);
    ASSERT_EQ(frame.payload.size(), size);
    EXPECT_FALSE(first_mismatch(frame.payload, size));
  }
  Frame end;
  EXPECT_TRUE(read_with(reader, pair.server, end, would_blocks).end_of_stream());
  EXPECT_TRUE(sender.get());
  EXPECT_GT(would_blocks, 0) << "partial frames answered would-block rather than waiting";
}

TEST(FrameReader, AStreamEndingInsideAFrameIsAnError) {
  ChannelPair pair;
  std::vector<std::byte> bytes(kFrameHeaderSize + 4, std::byte{0});
  bytes[0] = std::byte{100};
  ASSERT_TRUE(pair.client.send(bytes).ok());
  ASSERT_TRUE(pair.client.shutdown(ShutdownHow::kWrite).ok());
  FrameReader reader;
  Frame frame;
  int would_blocks = 0;
  const IoResult got = read_with(reader, pair.server, frame, would_blocks);
  EXPECT_EQ(got.state, IoState::kError);
  EXPECT_NE(got.status.message().find("4 of the 100 payload bytes"), std::string::npos)
      << got.status.to_string();
}

}  // namespace
}  // namespace railyard::rstream

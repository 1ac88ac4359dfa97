// Multi-rail endpoints on loopback rails in one process.
#include "railyard/mrail/endpoint.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "endpoint_pair.h"
#include "pattern.h"
#include "railyard/common/error.h"
#include "railyard/mrail/detail/wire.h"
#include "railyard/topology/local_rails.h"
#include "scoped_env.h"

namespace railyard::mrail {
namespace {

using testing::endpoint_options;
using testing::EndpointGroup;
using testing::fill_pattern;
using testing::first_mismatch;

constexpr std::size_t kKiB = 1024;
constexpr const char* kFixed = "-1:fixed";
constexpr const char* kRoundRobin = "-1:round-robin";
constexpr const char* kStriping = "-1:striping";
constexpr const char* kMixed = "4k:fixed,64k:round-robin,-1:striping";

struct Case {
  std::size_t rails;
  const char* table;
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string table = info.param.table;
  std::replace_if(
      table.begin(), table.end(), [](char c) { return !std::isalnum(c); }, '_');
  return std::to_string(info.param.rails) + "rails_" + table;
}

// Sends a message of each of `sizes` from endpoint 0 to endpoint 1 all at
// once (every receive posted first) and checks that each arrives whole.
void send_all_at_once(EndpointGroup& group, const std::vector<std::size_t>& sizes,
                      const std::string& label) {
  const std::size_t count = sizes.size();
  std::vector<std::vector<std::byte>> out(count);
  std::vector<std::vector<std::byte>> in(count);
  std::vector<Request> sends(count);
  std::vector<Request> recvs(count);
  for (std::size_t i = 0; i < count; ++i) {
    out[i].resize(sizes[i]);
    fill_pattern(out[i], i + 1);
    in[i].assign(sizes[i], std::byte{0xEE});
    ASSERT_TRUE(group[1].recv(recvs[i], kAnySource, in[i].data(), sizes[i], 7).ok());
  }
  for (std::size_t i = 0; i < count; ++i) {
    ASSERT_TRUE(group[0].send(sends[i], group.ids[0][1], out[i].data(), out[i].size(), 7).ok());
  }
  ASSERT_TRUE(group.run_until([&] {
    return std::all_of(recvs.begin(), recvs.end(), [](const Request& r) { return r.done(); }) &&
           std::all_of(sends.begin(), sends.end(), [](const Request& r) { return r.done(); });
  }));
  for (std::size_t i = 0; i < count; ++i) {
    ASSERT_TRUE(recvs[i].status().ok()) << label << ": " << recvs[i].status().to_string();
    ASSERT_TRUE(sends[i].status().ok()) << label << ": " << sends[i].status().to_string();
    EXPECT_EQ(recvs[i].length(), out[i].size()) << label;
    EXPECT_EQ(first_mismatch(in[i], i + 1), std::nullopt) << label << ", message " << i;
  }
}

// Sends `count` messages of `size` bytes from endpoint 0 to endpoint 1, each
// received before the next is sent.
void send_one_at_a_time(EndpointGroup& group, std::size_t count, std::size_t size) {
  std::vector<std::byte> out(size);
  std::vector<std::byte> in(size);
  for (std::size_t i = 0; i < count; ++i) {
    Request send;
    Request recv;
    ASSERT_TRUE(group[1].recv(recv, kAnySource, in.data(), in.size(), 0).ok());
    ASSERT_TRUE(group[0].send(send, group.ids[0][1], out.data(), out.size(), 0).ok());
    ASSERT_TRUE(group.run_until([&] { return send.done() && recv.done(); }));
    ASSERT_TRUE(recv.status().ok()) << recv.status().to_string();
    ASSERT_TRUE(send.status().ok()) << send.status().to_string();
  }
}

class EveryPolicy : public ::testing::TestWithParam<Case> {};

TEST_P(EveryPolicy, EverySizeArrivesIntactTaggedAndUntagged) {
  EndpointGroup group({endpoint_options(GetParam().rails, GetParam().table),
                       endpoint_options(GetParam().rails, GetParam().table)});
  const std::vector<std::size_t> sizes{0,           1,
                                       39,          40,
                                       4095,        65536,
                                       2 * 65536UL, 200000,
                                       256 * kKiB,  256 * kKiB + 1,
                                       1 << 20,     (3 << 20) + 7,
                                       16 << 20};
  for (const bool tagged : {true, false}) {
    for (const std::size_t size : sizes) {
      std::vector<std::byte> out(std::max<std::size_t>(size, 1));
      std::vector<std::byte> in(size + 64, std::byte{0xEE});
      fill_pattern(std::span(out).first(size), size * 3 + tagged);
      Request send;
      Request recv;
      const auto from = group.ids[1][0];
      const auto to = group.ids[0][1];
      ASSERT_TRUE((tagged ? group[1].recv(recv, from, in.data(), in.size(), 77)
                          : group[1].recv_untagged(recv, from, in.data(), in.size()))
                      .ok());
      ASSERT_TRUE((tagged ? group[0].send(send, to, out.data(), size, 77)
                          : group[0].send_untagged(send, to, out.data(), size))
                      .ok());
      ASSERT_TRUE(group.run_until([&] { return send.done() && recv.done(); })) << size;
      ASSERT_TRUE(send.status().ok()) << send.status().to_string();
      ASSERT_TRUE(recv.status().ok()) << recv.status().to_string();
      EXPECT_EQ(recv.length(), size);
      EXPECT_EQ(recv.message_length(), size);
      EXPECT_EQ(recv.peer(), from);
      EXPECT_EQ(first_mismatch(std::span(in).first(size), size * 3 + tagged), std::nullopt)
          << "size " << size << (tagged ? " tagged" : " untagged");
      EXPECT_TRUE(std::all_of(in.begin() + static_cast<std::ptrdiff_t>(size), in.end(),
                              [](std::byte b) { return b == std::byte{0xEE}; }))
          << "wrote past the message";
    }
  }
}

TEST_P(EveryPolicy, ManyMessagesOnOneTagKeepTheirOrder) {
  EndpointGroup group({endpoint_options(GetParam().rails, GetParam().table),
                       endpoint_options(GetParam().rails, GetParam().table)});
  constexpr std::size_t kCount = 600;
  // Sizes cycle so that eager, striped and rendezvous messages interleave and
  // later small ones can overtake earlier large ones on another rail.
  const std::vector<std::size_t> cycle{8, 300000, 16, 70000, 4096, 0, 140000, 1};
  std::vector<std::vector<std::byte>> out(kCount);
  std::vector<std::vector<std::byte>> in(kCount);
  std::vector<Request> sends(kCount);
  std::vector<Request> recvs(kCount);
  for (std::size_t i = 0; i < kCount; ++i) {
    const std::size_t size = cycle[i % cycle.size()];
    out[i].resize(std::max<std::size_t>(size, 8));
    fill_pattern(out[i], i);
    in[i].resize(std::max<std::size_t>(size, 8));
  }
  // Receives posted for the first half before the sends, the rest after.
  for (std::size_t i = 0; i < kCount / 2; ++i) {
    ASSERT_TRUE(group[1].recv(recvs[i], kAnySource, in[i].data(), in[i].size(), 3).ok());
  }
  for (std::size_t i = 0; i < kCount; ++i) {
    ASSERT_TRUE(
        group[0].send(sends[i], group.ids[0][1], out[i].data(), cycle[i % cycle.size()], 3).ok());
  }
  (void)group.run_until([] { return false; }, std::chrono::milliseconds(50));
  for (std::size_t i = kCount / 2; i < kCount; ++i) {
    ASSERT_TRUE(group[1].recv(recvs[i], kAnySource, in[i].data(), in[i].size(), 3).ok());
  }
  ASSERT_TRUE(group.run_until([&] {
    return std::all_of(recvs.begin(), recvs.end(), [](const Request& r) { return r.done(); }) &&
           std::all_of(sends.begin(), sends.end(), [](const Request& r) { return r.done(); });
  }));
  for (std::size_t i = 0; i < kCount; ++i) {
    const std::size_t size = cycle[i % cycle.size()];
    ASSERT_TRUE(recvs[i].status().ok()) << i << ": " << recvs[i].status().to_string();
    ASSERT_EQ(recvs[i].length(), size) << "message " << i << " matched out of order";
    ASSERT_EQ(first_mismatch(std::span(in[i]).first(size), i), std::nullopt)
        << "message " << i << " matched out of order";
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, EveryPolicy,
                         ::testing::Values(Case{1, kFixed}, Case{2, kRoundRobin},
                                           Case{4, kRoundRobin}, Case{2, kStriping},
                                           Case{4, kStriping}, Case{3, kMixed},
                                           Case{4, PolicyTable::kDefault}),
                         case_name);

TEST(Endpoint, TaggedAndUntaggedTrafficNeverMix) {
  EndpointGroup group({endpoint_options(2), endpoint_options(2)});
  const auto to = group.ids[0][1];
  const auto from = group.ids[1][0];
  std::array<std::byte, 8> untagged_out{std::byte{1}};
  std::array<std::byte, 8> tagged_out{std::byte{2}};
  std::array<std::byte, 8> untagged_in{};
  std::array<std::byte, 8> tagged_in{};
  Request s1;
  Request s2;
  Request r1;
  Request r2;
  // The untagged message goes first; a tagged receive for tag 0 (the tag an
  // untagged message would carry) must still get the tagged one.
  ASSERT_TRUE(group[0].send_untagged(s1, to, untagged_out.data(), 8).ok());
  ASSERT_TRUE(group[0].send(s2, to, tagged_out.data(), 8, 0).ok());
  ASSERT_TRUE(group[1].recv(r2, from, tagged_in.data(), 8, 0, kAnyTag).ok());
  ASSERT_TRUE(group[1].recv_untagged(r1, kAnySource, untagged_in.data(), 8).ok());
  ASSERT_TRUE(group.run_until([&] { return r1.done() && r2.done(); }));
  EXPECT_EQ(tagged_in[0], std::byte{2});
  EXPECT_EQ(untagged_in[0], std::byte{1});
}

// A rendezvous receiver reads each path's share in chunks, a few in flight
// (Options::pull_chunk, pull_depth): every byte lands once, in order, for
// any depth, and the chunk count shows the share was cut.
TEST(Endpoint, RendezvousPullsInChunksOfTheConfiguredSize) {
  constexpr std::uint64_t kChunk = 64 * kKiB;
  for (const std::uint32_t depth : {1U, 3U}) {
    for (const char* table : {kFixed, kStriping}) {
      auto receiver = endpoint_options(2, table);
      receiver.pull_chunk = kChunk;
      receiver.pull_depth = depth;
      EndpointGroup group({endpoint_options(2, table), receiver});
      for (const std::size_t size : {std::size_t{300000}, (std::size_t{3} << 20) + 5}) {
        std::vector<std::byte> out(size);
        fill_pattern(out, size);
        std::vector<std::byte> in(size + 16, std::byte{0xEE});
        const auto chunks_received = [&] {
          std::uint64_t total = 0;
          for (const auto& rail : group[1].counters().rails) {
            total += rail.chunks_received;
          }
          return total;
        };
        const std::uint64_t chunks_before = chunks_received();
        Request send;
        Request recv;
        ASSERT_TRUE(group[1].recv(recv, kAnySource, in.data(), in.size(), 4).ok());
        ASSERT_TRUE(group[0].send(send, group.ids[0][1], out.data(), size, 4).ok());
        ASSERT_TRUE(group.run_until([&] { return send.done() && recv.done(); }));
        ASSERT_TRUE(recv.status().ok()) << recv.status().to_string();
        ASSERT_TRUE(send.status().ok()) << send.status().to_string();
        EXPECT_EQ(recv.length(), size);
        EXPECT_EQ(first_mismatch(std::span(in).first(size), size), std::nullopt)
            << "depth " << depth << ", " << table << ", " << size << " bytes";
        EXPECT_TRUE(std::all_of(in.begin() + static_cast<std::ptrdiff_t>(size), in.end(),
                                [](std::byte b) { return b == std::byte{0xEE}; }));
        const std::uint64_t chunks = chunks_received() - chunks_before;
        // Each of the (at most 2) paths' shares in 64 KiB reads.
        const std::uint64_t least = (size + kChunk - 1) / kChunk;
        EXPECT_GE(chunks, least) << table << ", " << size << " bytes";
        EXPECT_LE(chunks, least + 2) << table << ", " << size << " bytes";
      }
    }
  }
}

// Many rendezvous messages at once: their reads share each path's limit
// (pull_chunk x pull_depth bytes in flight), first come first served, and
// every message still arrives whole, in order, into its own receive.
TEST(Endpoint, RendezvousReadsShareEachPathsLimitAcrossMessages) {
  constexpr std::uint64_t kChunk = 64 * kKiB;
  constexpr std::uint32_t kDepth = 2;
  constexpr std::size_t kMessages = 6;
  for (const char* table : {kFixed, kStriping}) {
    auto receiver = endpoint_options(2, table);
    receiver.pull_chunk = kChunk;
    receiver.pull_depth = kDepth;
    EndpointGroup group({endpoint_options(2, table), receiver});
    std::vector<std::size_t> sizes;
    for (std::size_t i = 0; i < kMessages; ++i) {
      sizes.push_back((std::size_t{1} << 20) + i * 4099);
    }
    ASSERT_NO_FATAL_FAILURE(send_all_at_once(group, sizes, table));
    const EndpointCounters counters = group[1].counters();
    EXPECT_GT(counters.pull_stalls, 0U) << table << ": no read ever waited for its path";
    EXPECT_GT(counters.pull_bytes_in_flight_peak, 0U);
    EXPECT_LE(counters.pull_bytes_in_flight_peak, kChunk * kDepth) << table;
  }
}

TEST(Endpoint, TruncationIsReportedForEagerAndRendezvous) {
  EndpointGroup group({endpoint_options(2, kStriping), endpoint_options(2, kStriping)});
  for (const std::size_t size : {std::size_t{1000}, std::size_t{200000}, std::size_t{3 << 20}}) {
    std::vector<std::byte> out(size);
    fill_pattern(out, 4);
    std::vector<std::byte> in(size / 2 + 64, std::byte{0xEE});
    Request send;
    Request recv;
    ASSERT_TRUE(group[1].recv(recv, kAnySource, in.data(), size / 2, 9).ok());
    ASSERT_TRUE(group[0].send(send, group.ids[0][1], out.data(), size, 9).ok());
    ASSERT_TRUE(group.run_until([&] { return send.done() && recv.done(); }));
    EXPECT_TRUE(send.status().ok()) << send.status().to_string();
    EXPECT_EQ(recv.status().code(), StatusCode::kTruncated) << recv.status().to_string();
    EXPECT_NE(recv.status().message().find(std::to_string(size) + "-byte message"),
              std::string::npos)
        << recv.status().message();
    EXPECT_EQ(recv.length(), size / 2);
    EXPECT_EQ(recv.message_length(), size);
    EXPECT_EQ(first_mismatch(std::span(in).first(size / 2), 4), std::nullopt);
    EXPECT_TRUE(std::all_of(in.begin() + static_cast<std::ptrdiff_t>(size / 2), in.end(),
                            [](std::byte b) { return b == std::byte{0xEE}; }))
        << "overflowed the receive buffer";
  }
}

// The receive buffers' first pages are in memory from the start: small
// messages cycling through all of a rail's buffers fault no page in, where
// each buffer's first use cost a fault on the latency path (minor faults of
// the process, counted by the kernel, not a timing).
TEST(Endpoint, SmallMessagesThroughEveryReceiveBufferFaultNoPageIn) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "under AddressSanitizer every allocation takes fresh heap pages (its "
                  "quarantine holds freed ones back), so faults do not count the buffers";
#endif
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "under ThreadSanitizer the shadow memory of every word touched faults "
                  "its own pages in, so faults do not count the buffers";
#endif
  auto options = endpoint_options(1, kFixed);
  options.background_progress = false;
  EndpointGroup group({options, options});
  constexpr int kMessages = 3 * 64;  // every buffer of the rail, three times
  std::array<std::byte, 8> out{};
  std::array<std::byte, 8> in{};
  const auto round_trip = [&] {
    Request send;
    Request recv;
    ASSERT_TRUE(group[1].recv(recv, kAnySource, in.data(), in.size(), 1).ok());
    ASSERT_TRUE(group[0].send(send, group.ids[0][1], out.data(), out.size(), 1).ok());
    ASSERT_TRUE(group.run_until([&] { return send.done() && recv.done(); }));
  };
  round_trip();  // connections and first allocations
  rusage before{};
  ::getrusage(RUSAGE_SELF, &before);
  for (int i = 0; i < kMessages; ++i) {
    round_trip();
  }
  rusage after{};
  ::getrusage(RUSAGE_SELF, &after);
  const long faults = after.ru_minflt - before.ru_minflt;
  EXPECT_LT(faults, 16) << faults << " minor page faults over " << kMessages << " small messages";
}

TEST(Endpoint, ProbeSeesAWaitingMessageWithoutTakingIt) {
  EndpointGroup group({endpoint_options(2), endpoint_options(2)});
  std::vector<std::byte> out(5000);
  fill_pattern(out, 8);
  ProbeResult found;
  EXPECT_FALSE(group[1].iprobe(kAnySource, 0, kAnyTag, found));
  Request send;
  ASSERT_TRUE(group[0].send(send, group.ids[0][1], out.data(), out.size(), 0xBEEF).ok());
  // One thread drives both sides: let the send leave before probing.
  ASSERT_TRUE(group.run_until([&] { return send.done(); }));
  ASSERT_TRUE(group[1].probe(kAnySource, 0xBE00, 0xFF, found, std::chrono::seconds(30)));
  EXPECT_EQ(found.source, group.ids[1][0]);
  EXPECT_EQ(found.tag, 0xBEEFU);
  EXPECT_EQ(found.length, 5000U);
  EXPECT_TRUE(group[1].iprobe(group.ids[1][0], 0xBEEF, 0, found));  // still there
  EXPECT_FALSE(group[1].iprobe(group.ids[1][0], 0xBEEE, 0, found));
  std::vector<std::byte> in(found.length);
  Request recv;
  ASSERT_TRUE(group[1].recv(recv, found.source, in.data(), in.size(), found.tag).ok());
  ASSERT_TRUE(group.run_until([&] { return recv.done() && send.done(); }));
  EXPECT_EQ(first_mismatch(in, 8), std::nullopt);
  EXPECT_FALSE(group[1].iprobe(kAnySource, 0, kAnyTag, found));
}

TEST(Endpoint, CancelEndsOnlyAPostedReceive) {
  EndpointGroup group({endpoint_options(1), endpoint_options(1)});
  std::array<std::byte, 16> in{};
  Request recv;
  ASSERT_TRUE(group[1].recv(recv, kAnySource, in.data(), in.size(), 1).ok());
  ASSERT_TRUE(group[1].cancel(recv).ok());
  EXPECT_TRUE(recv.done());
  EXPECT_EQ(recv.status().code(), StatusCode::kCanceled);
  EXPECT_EQ(group[1].cancel(recv).code(), StatusCode::kInvalidArgument);
  Request send;
  std::array<std::byte, 16> out{};
  ASSERT_TRUE(group[0].send(send, group.ids[0][1], out.data(), out.size(), 1).ok());
  EXPECT_EQ(group[0].cancel(send).code(), StatusCode::kInvalidArgument);
  // The canceled receive did not swallow the message.
  Request again;
  ASSERT_TRUE(group[1].recv(again, kAnySource, in.data(), in.size(), 1).ok());
  ASSERT_TRUE(group.run_until([&] { return again.done() && send.done(); }));
  EXPECT_TRUE(again.status().ok());
}

TEST(Endpoint, SendsBeyondTheWindowWaitForCreditAndAllArrive) {
  auto options = endpoint_options(2, kRoundRobin);
  options.window = 8;
  EndpointGroup group({options, options});
  constexpr std::size_t kCount = 100;
  std::vector<std::uint64_t> out(kCount);
  std::vector<std::uint64_t> in(kCount);
  std::vector<Request> sends(kCount);
  std::vector<Request> recvs(kCount);
  std::iota(out.begin(), out.end(), 1000);
  for (std::size_t i = 0; i < kCount; ++i) {
    ASSERT_TRUE(group[0].send(sends[i], group.ids[0][1], &out[i], sizeof(std::uint64_t), 2).ok());
  }
  EXPECT_GE(group[0].counters().window_waits, kCount - 8);
  for (std::size_t i = 0; i < kCount; ++i) {
    ASSERT_TRUE(group[1].recv(recvs[i], kAnySource, &in[i], sizeof(std::uint64_t), 2).ok());
  }
  ASSERT_TRUE(group.run_until([&] {
    return std::all_of(recvs.begin(), recvs.end(), [](const Request& r) { return r.done(); });
  }));
  EXPECT_EQ(in, out);
  // Nothing went back to carry the grants: the receiver sent credit messages.
  EXPECT_GT(group[1].counters().credit_messages, 0U);
}

// An eager send is done with the caller's buffer once its fragments are
// copied into send buffers, as an inject is: its request finishes as it is
// posted, before any progress reads the send buffers' completions (a
// blocking send then returns without polling for them), and what arrives
// is what the buffer held then, whatever the caller writes into it after.
TEST(Endpoint, AnEagerSendFinishesOnceItsFragmentsAreCopiedOut) {
  auto options = endpoint_options(1, kFixed);
  options.background_progress = false;  // nothing completes behind the test's back
  EndpointGroup group({options, options});
  // Larger than any provider's inject; 30 KiB is two fragments where they are 16 KiB (ofi_rxm).
  const std::vector<std::size_t> sizes{256, kKiB, 8 * kKiB, 30 * kKiB};
  std::vector<std::vector<std::byte>> out;
  std::vector<std::vector<std::byte>> in;
  std::vector<Request> sends(sizes.size());
  std::vector<Request> recvs(sizes.size());
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    out.emplace_back(sizes[i]);
    in.emplace_back(sizes[i]);
    fill_pattern(out[i], i + 1);
    ASSERT_LE(sizes[i], options.eager_limit);
    ASSERT_TRUE(group[0].send(sends[i], group.ids[0][1], out[i].data(), sizes[i], 7).ok());
    EXPECT_TRUE(sends[i].done()) << "a " << sizes[i] << "-byte eager send waited for progress";
    EXPECT_TRUE(sends[i].status().ok()) << sends[i].status().to_string();
    std::fill(out[i].begin(), out[i].end(), std::byte{0xEE});
  }
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    ASSERT_TRUE(group[1].recv(recvs[i], kAnySource, in[i].data(), sizes[i], 7).ok());
  }
  ASSERT_TRUE(group.run_until([&] {
    return std::all_of(recvs.begin(), recvs.end(), [](const Request& r) { return r.done(); });
  }));
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    ASSERT_TRUE(recvs[i].status().ok()) << recvs[i].status().to_string();
    EXPECT_EQ(first_mismatch(in[i], i + 1), std::nullopt) << sizes[i] << " bytes";
  }
}

// Every message carries its sender's grant, so a ping-pong far longer than
// the window returns every credit on the replies: no credit message goes,
// and no send waits for one.
TEST(Endpoint, TrafficBothWaysCarriesTheCreditsWithoutCreditMessages) {
  auto options = endpoint_options(2, kRoundRobin);
  options.window = 8;
  EndpointGroup group({options, options});
  constexpr std::uint64_t kRounds = 100;
  for (std::uint64_t round = 0; round < kRounds; ++round) {
    std::uint64_t ping = round;
    std::uint64_t pong = 0;
    Request send;
    Request recv;
    ASSERT_TRUE(group[1].recv(recv, kAnySource, &pong, sizeof pong, 3).ok());
    ASSERT_TRUE(group[0].send(send, group.ids[0][1], &ping, sizeof ping, 3).ok());
    ASSERT_TRUE(group.run_until([&] { return send.done() && recv.done(); }));
    ASSERT_EQ(pong, round);
    std::uint64_t reply = round + kRounds;
    std::uint64_t answer = 0;
    ASSERT_TRUE(group[0].recv(recv, kAnySource, &answer, sizeof answer, 4).ok());
    ASSERT_TRUE(group[1].send(send, group.ids[1][0], &reply, sizeof reply, 4).ok());
    ASSERT_TRUE(group.run_until([&] { return send.done() && recv.done(); }));
    ASSERT_EQ(answer, round + kRounds);
  }
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(group[i].counters().credit_messages, 0U) << "endpoint " << i;
    EXPECT_EQ(group[i].counters().window_waits, 0U) << "endpoint " << i;
  }
}

TEST(Endpoint, UnequalWindowsStillReopen) {
  // The sender may run 8 messages ahead, the receiver could hold 256: credits
  // must come at the smaller window's pace or the sender waits forever.
  auto small = endpoint_options(2, kRoundRobin);
  small.window = 8;
  auto large = endpoint_options(2, kRoundRobin);
  large.window = 256;
  EndpointGroup group({small, large});
  constexpr std::size_t kCount = 200;
  std::vector<std::uint32_t> out(kCount);
  std::vector<std::uint32_t> in(kCount);
  std::iota(out.begin(), out.end(), 7);
  std::vector<Request> sends(kCount);
  std::vector<Request> recvs(kCount);
  for (std::size_t i = 0; i < kCount; ++i) {
    ASSERT_TRUE(group[1].recv(recvs[i], kAnySource, &in[i], sizeof(std::uint32_t), 1).ok());
    ASSERT_TRUE(group[0].send(sends[i], group.ids[0][1], &out[i], sizeof(std::uint32_t), 1).ok());
  }
  ASSERT_TRUE(group.run_until(
      [&] {
        return std::all_of(recvs.begin(), recvs.end(), [](const Request& r) { return r.done(); });
      },
      std::chrono::seconds(30)));
  EXPECT_EQ(in, out);
}

TEST(Endpoint, CountersShowEachPolicysSplit) {
  constexpr std::size_t kRails = 4;
  constexpr std::size_t kCount = 40;
  struct Expect {
    const char* table;
    std::size_t size;
  };
  for (const Expect& expect : {Expect{kFixed, 1000}, Expect{kRoundRobin, 1000},
                               Expect{kStriping, 256 * kKiB}, Expect{kStriping, 4 << 20}}) {
    auto options = endpoint_options(kRails, expect.table);
    options.home_rail = 2;
    // 256 KiB striped eagerly, by fragments; 4 MiB by rendezvous.
    options.eager_limit = 256 * kKiB;
    // Each share read whole: in chunks, a path done with its share takes
    // over the last chunks of another's, and the split follows the paths'
    // speed instead of the plan (tested below).
    auto reader = endpoint_options(kRails, expect.table);
    reader.pull_chunk = 0;
    reader.eager_limit = options.eager_limit;
    EndpointGroup group({options, reader});
    ASSERT_NO_FATAL_FAILURE(send_one_at_a_time(group, kCount, expect.size));
    const auto sender = group[0].counters();
    const auto receiver = group[1].counters();
    const std::string label = std::string(expect.table) + " " + std::to_string(expect.size);
    std::uint64_t total = 0;
    for (std::size_t r = 0; r < kRails; ++r) {
      total += receiver.rails[r].bytes_received;
    }
    EXPECT_EQ(total, kCount * expect.size) << label;
    for (std::size_t r = 0; r < kRails; ++r) {
      const auto& received = receiver.rails[r];
      const auto& sent = sender.rails[r];
      if (std::string(expect.table) == kFixed) {
        // Everything on the sender's home rail (2), which pairs with rail 2.
        EXPECT_EQ(sent.messages_sent, r == 2 ? kCount : 0) << label << " rail " << r;
        EXPECT_EQ(received.bytes_received, r == 2 ? kCount * expect.size : 0)
            << label << " rail " << r;
      } else if (std::string(expect.table) == kRoundRobin) {
        EXPECT_EQ(sent.messages_sent, kCount / kRails) << label << " rail " << r;
        EXPECT_EQ(received.bytes_received, kCount / kRails * expect.size) << label << " rail " << r;
      } else {
        // Every striped message puts an equal share on every rail.
        EXPECT_EQ(received.bytes_received, kCount * expect.size / kRails) << label << " rail " << r;
      }
    }
    if (expect.size > options.eager_limit) {
      EXPECT_EQ(sender.rendezvous_messages, kCount) << label;
    } else {
      EXPECT_EQ(sender.eager_messages, kCount) << label;
    }
  }
}

// A rendezvous message's request-to-send travels on the path its data is
// read from (the first piece's, for a striped one), and its FIN comes back
// on that path: a window of such messages spreads its control messages over
// the rails as it spreads its data. Sent all on the home rail, they made it
// the slowest of the four.
TEST(Endpoint, RendezvousControlMessagesTravelWithTheirData) {
  constexpr std::size_t kRails = 4;
  constexpr std::size_t kCount = 40;
  // Above the eager limit, below two minimum chunks: one piece on one path.
  constexpr std::size_t kSize = 96 * kKiB;
  for (const char* table : {kFixed, kRoundRobin, kStriping}) {
    auto options = endpoint_options(kRails, table);
    options.home_rail = 2;
    options.eager_limit = 32 * kKiB;
    options.min_chunk = 64 * kKiB;
    EndpointGroup group({options, options});
    ASSERT_NO_FATAL_FAILURE(send_one_at_a_time(group, kCount, kSize));
    const bool fixed = std::string(table) == kFixed;
    const auto expected_on = [&](std::size_t r) -> std::size_t {
      return fixed ? (r == 2 ? kCount : 0) : kCount / kRails;
    };
    // A rail counts a send when it completes: the last FIN may have reached
    // the sender before the receiver's rail saw its own completion.
    group.run_until(
        [&] {
          const auto counters = group[1].counters();
          for (std::size_t r = 0; r < kRails; ++r) {
            if (counters.rails[r].rail.messages_sent < expected_on(r)) {
              return false;
            }
          }
          return true;
        },
        std::chrono::seconds(5));
    const auto sender = group[0].counters();
    const auto receiver = group[1].counters();
    EXPECT_EQ(sender.rendezvous_messages, kCount) << table;
    for (std::size_t r = 0; r < kRails; ++r) {
      const std::size_t expected = expected_on(r);
      // The requests-to-send, and the data read, by rail.
      EXPECT_EQ(sender.rails[r].messages_sent, expected) << table << " rail " << r;
      EXPECT_EQ(receiver.rails[r].bytes_received, expected * kSize) << table << " rail " << r;
      // The FINs (with whatever credits and acknowledgements the receiver
      // sent besides).
      EXPECT_GE(receiver.rails[r].rail.messages_sent, expected) << table << " rail " << r;
    }
  }
}

// The weights set each rail's share of a stripe, and a rendezvous message's
// bytes count on both sides of each rail they crossed: as received where
// they were read, as sent where they left (the FIN tells the sender what was
// read over each of its rails), so sender and receiver show the same bytes.
TEST(Endpoint, WeightedStripeBytesCountAsSentWhereTheyLeftAndReceivedWhereTheyArrived) {
  auto options = endpoint_options(2, kStriping);
  options.rail_weights = {3, 1};
  options.pull_chunk = 0;  // each share read whole, as planned
  EndpointGroup group({options, options});
  std::vector<std::byte> out(4 << 20);
  std::vector<std::byte> in(out.size());
  const auto sender_before = group[0].counters();
  const auto receiver_before = group[1].counters();
  Request send;
  Request recv;
  ASSERT_TRUE(group[1].recv(recv, kAnySource, in.data(), in.size(), 0).ok());
  ASSERT_TRUE(group[0].send(send, group.ids[0][1], out.data(), out.size(), 0).ok());
  ASSERT_TRUE(group.run_until([&] { return send.done() && recv.done(); }));
  const auto sender = group[0].counters();
  const auto receiver = group[1].counters();
  for (std::size_t r = 0; r < 2; ++r) {
    const std::uint64_t sent = sender.rails[r].bytes_sent - sender_before.rails[r].bytes_sent;
    const std::uint64_t received =
        receiver.rails[r].bytes_received - receiver_before.rails[r].bytes_received;
    EXPECT_EQ(sent, received) << "rail " << r;
    EXPECT_EQ(received, r == 0 ? 3U << 20 : 1U << 20) << "rail " << r;
  }
}

// Read in chunks, a path with nothing left to read takes over the last
// chunks of the share with the most left on another path of the peer: the
// plan here gives rail 1 a sixteenth of each message and rail 0 the rest,
// read one chunk at a time, so rail 1 runs out of its own work long before
// rail 0 (unless it were fifteen times slower). Several messages at once,
// so that turns are taken over while others wait behind them.
TEST(Endpoint, AnIdlePathReadsTheRestOfAnothersShare) {
  constexpr std::uint64_t kChunk = 64 * kKiB;
  constexpr std::uint32_t kDepth = 1;
  constexpr std::size_t kMessages = 3;
  auto options = endpoint_options(2, kStriping);
  options.rail_weights = {15, 1};
  options.pull_chunk = kChunk;
  options.pull_depth = kDepth;
  EndpointGroup group({options, options});
  // Every path connected first: a provider that connects on first use
  // (ofi_rxm) could otherwise keep rail 1 busy connecting while rail 0
  // reads everything, on a loaded machine.
  ASSERT_NO_FATAL_FAILURE(send_all_at_once(group, {std::size_t{2} << 20}, "15:1, connecting"));
  const auto before = group[1].counters();
  std::vector<std::size_t> sizes;
  for (std::size_t i = 0; i < kMessages; ++i) {
    sizes.push_back((std::size_t{4} << 20) + i * 12345);
  }
  ASSERT_NO_FATAL_FAILURE(send_all_at_once(group, sizes, "15:1"));
  const std::uint64_t total = std::accumulate(sizes.begin(), sizes.end(), std::uint64_t{0});
  const auto counters = group[1].counters();
  const std::uint64_t on_rail0 = counters.rails[0].bytes_received - before.rails[0].bytes_received;
  const std::uint64_t on_rail1 = counters.rails[1].bytes_received - before.rails[1].bytes_received;
  EXPECT_GT(counters.pull_chunks_moved, before.pull_chunks_moved);
  EXPECT_EQ(on_rail0 + on_rail1, total);
  EXPECT_GT(on_rail1, total / 16) << "rail 1 read no more than its share";
  EXPECT_LE(counters.pull_bytes_in_flight_peak, kChunk * kDepth);
}

TEST(Endpoint, PeersMayListTheirRailsInAnotherOrderAndCount) {
  auto three = endpoint_options(3, kStriping);
  auto two = endpoint_options(2, kStriping);
  two.rails = {"127.0.0.9", "127.0.0.8"};
  EndpointGroup group({three, two});
  EXPECT_EQ(group[0].paths(group.ids[0][1]).size(), 3U);  // all on 127.0.0.0/8
  EXPECT_EQ(group[1].paths(group.ids[1][0]).size(), 2U);
  for (const std::size_t size : {std::size_t{100}, std::size_t{300000}, std::size_t{5 << 20}}) {
    for (const auto& [from, to] : {std::pair<std::size_t, std::size_t>{0, 1}, {1, 0}}) {
      std::vector<std::byte> out(size);
      std::vector<std::byte> in(size);
      fill_pattern(out, size + from);
      Request send;
      Request recv;
      ASSERT_TRUE(group[to].recv(recv, group.ids[to][from], in.data(), size, 1).ok());
      ASSERT_TRUE(group[from].send(send, group.ids[from][to], out.data(), size, 1).ok());
      ASSERT_TRUE(group.run_until([&] { return send.done() && recv.done(); }));
      ASSERT_TRUE(recv.status().ok()) << recv.status().to_string();
      EXPECT_EQ(first_mismatch(in, size + from), std::nullopt);
    }
  }
}

TEST(Endpoint, WithoutRailAddressesTheTopologysNicsCarryTraffic) {
  testing::ScopedEnv unset("FI_OFI_MRAIL_ADDR", nullptr);
  testing::ScopedEnv unset_old("FI_OFI_MRAIL_ADDR_STRC", nullptr);
  testing::ScopedEnv no_topology("RAILYARD_TOPOLOGY", nullptr);
  const Options options = Options::from_environment();
  // The NICs the mapping gives this (only) local rank, home rail first.
  const auto expected = topology::rails_for_this_process().mapping.rails;
  ASSERT_EQ(options.rails.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(options.rails[i], expected[i].name);
  }
  EXPECT_EQ(options.home_rail, std::optional<std::size_t>(0));
  Endpoint endpoint{options};
  ASSERT_EQ(endpoint.rail_count(), expected.size());
  // An endpoint may address itself: a message to its own address arrives.
  const PeerId self = endpoint.insert_peer(endpoint.address());
  std::vector<std::byte> out(300000);
  std::vector<std::byte> in(out.size());
  fill_pattern(out, 17);
  Request send;
  Request recv;
  ASSERT_TRUE(endpoint.recv(recv, self, in.data(), in.size(), 2).ok());
  ASSERT_TRUE(endpoint.send(send, self, out.data(), out.size(), 2).ok());
  ASSERT_TRUE(endpoint.progress_until([&] { return send.done() && recv.done(); },
                                      std::chrono::seconds(30)));
  ASSERT_TRUE(recv.status().ok()) << recv.status().to_string();
  EXPECT_EQ(first_mismatch(in, 17), std::nullopt);
}

TEST(Endpoint, InsertingTheSameAddressTwiceGivesTheSamePeer) {
  EndpointGroup group({endpoint_options(1), endpoint_options(1)});
  EXPECT_EQ(group[0].insert_peer(group[1].address()), group.ids[0][1]);
}

TEST(Endpoint, MalformedAddressesAreRefused) {
  Endpoint endpoint(endpoint_options(1));
  auto address = endpoint.address();
  const auto message_of = [&](std::vector<std::byte> blob) {
    try {
      (void)endpoint.insert_peer(blob);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message_of({address.begin(), address.begin() + 10})
                .find("is not a multi-rail endpoint address"),
            std::string::npos);
  auto truncated = address;
  truncated.pop_back();
  EXPECT_NE(message_of(truncated).find("cut short"), std::string::npos);
  auto trailing = address;
  trailing.push_back(std::byte{0});
  EXPECT_NE(message_of(trailing).find("unexpected trailing bytes"), std::string::npos);
}

TEST(Endpoint, APeerOnAnotherNetworkIsRefusedWithBothSidesNetworks) {
  EndpointAddress elsewhere;
  elsewhere.id = 42;
  elsewhere.max_fragment = 65536;
  elsewhere.window = 256;
  elsewhere.rails.push_back(
      RailDescriptor{"tcp;ofi_rxm", "198.18.7.0/24", std::vector<std::byte>(16)});
  Endpoint endpoint(endpoint_options(1));
  try {
    (void)endpoint.insert_peer(encode_address(elsewhere));
    FAIL() << "accepted a peer with no shared network";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("shares no network"), std::string::npos) << message;
    EXPECT_NE(message.find("127.0.0.0/8"), std::string::npos) << message;
    EXPECT_NE(message.find("198.18.7.0/24"), std::string::npos) << message;
  }
}

// Unset, the fragment size follows the provider: ofi_rxm's eager buffer
// with the header in it, else 64 KiB, so power-of-two messages travel in
// whole fragments. A size given is kept.
TEST(Endpoint, FragmentSizeFollowsTheProvider) {
  auto options = endpoint_options(1);
  options.fragment_size = 0;
  for (const std::string provider : {"net", "tcp;ofi_rxm"}) {
    options.provider = provider;
    const Endpoint endpoint(options);
    const std::uint32_t expected = provider == "net" ? 32768U : 16384U - kHeaderSize;
    EXPECT_EQ(decode_address(endpoint.address()).max_fragment, expected) << provider;
  }
  options.fragment_size = 4096;
  const Endpoint endpoint(options);
  EXPECT_EQ(decode_address(endpoint.address()).max_fragment, 4096U);
}

TEST(Endpoint, MalformedWireMessagesAreDroppedAndCounted) {
  EndpointGroup group({endpoint_options(1), endpoint_options(1)});
  // A raw rail sends garbage to the endpoint's rail, then the real peer
  // sends a message that must still arrive.
  rail::RailOptions raw_options;
  raw_options.address = "127.0.0.1";
  rail::Rail raw(raw_options);
  const EndpointAddress target = decode_address(group[1].address());
  const rail::RailPeer peer = raw.insert_peer(target.rails[0].address);
  // A message from endpoint 0: `header` and `payload` bytes after it.
  const auto message = [&](Header header, std::size_t payload) {
    header.source = group[0].id();
    std::vector<std::byte> out(kHeaderSize + payload);
    encode_header(header, out.data());
    return out;
  };
  std::vector<std::vector<std::byte>> garbage;
  garbage.emplace_back(10, std::byte{0x55});        // shorter than a header
  garbage.emplace_back(kHeaderSize, std::byte{0});  // bad magic
  // A fragment past its message.
  garbage.push_back(message(Header{.total = 50, .word = 10}, 100));
  // A fragment granting credit for messages endpoint 1 never sent.
  garbage.push_back(message(Header{.total = 4, .credit = 1000}, 4));
  // A fragment acknowledging more messages than endpoint 1 sent on its rail.
  garbage.push_back(message(Header{.total = 4}, 4));
  garbage.back()[kHeaderSize - 1] = std::byte{1};
  // An acknowledged rail without a message number.
  garbage.push_back(message(Header{.total = 4, .ack_rail = 3}, 4));
  // A path rail no endpoint can have.
  garbage.push_back(message(Header{.total = 4, .path_rail = 64}, 4));
  // Acknowledgements naming a rail with no path to the receiver, and one
  // beyond the messages it sent.
  garbage.push_back(message(Header{.type = MessageType::kAck, .path_seq = 1, .path_rail = 7}, 0));
  garbage.push_back(message(Header{.type = MessageType::kAck, .path_seq = 5, .path_rail = 0}, 0));
  // The revoke-keys flag on anything but a FIN; a rail reset notice naming
  // a rail of the sender that has no path to the receiver.
  garbage.push_back(message(Header{.flags = kFlagRevokeKeys, .total = 4}, 4));
  garbage.push_back(message(Header{.type = MessageType::kRailReset,
                                   .word = RailResetNotice{.rail = 9, .number = 1}.word()},
                            0));
  std::vector<railyard::rail::Request> ops(garbage.size());
  for (std::size_t i = 0; i < garbage.size(); ++i) {
    ASSERT_TRUE(
        raw.post_send(ops[i], peer, rail::ConstBuffer{garbage[i].data(), garbage[i].size()}).ok());
  }
  // The raw rail needs progress too (rxm connects from both sides).
  ASSERT_TRUE(group.run_until([&] {
    raw.progress();
    return group[1].counters().dropped_messages == garbage.size();
  })) << group[1].counters().dropped_messages;

  std::array<std::byte, 4> out{std::byte{9}};
  std::array<std::byte, 4> in{};
  Request send;
  Request recv;
  ASSERT_TRUE(group[1].recv(recv, kAnySource, in.data(), 4, 0).ok());
  ASSERT_TRUE(group[0].send(send, group.ids[0][1], out.data(), 4, 0).ok());
  ASSERT_TRUE(group.run_until([&] { return recv.done(); }));
  EXPECT_EQ(in[0], std::byte{9});
}

// Transfer ids are the sender's own: a FIN naming one, from any peer but
// the one the rendezvous went to, must not complete the send.
TEST(Endpoint, AFinFromAnotherPeerDoesNotEndARendezvous) {
  EndpointGroup group({endpoint_options(1), endpoint_options(1), endpoint_options(1)});
  std::vector<std::byte> out(1 << 20);
  fill_pattern(out, 11);
  Request send;
  ASSERT_TRUE(group[0].send(send, group.ids[0][1], out.data(), out.size(), 5).ok());
  (void)group.run_until([] { return false; }, std::chrono::milliseconds(200));
  ASSERT_FALSE(send.done());

  // Endpoint 2's identity on a raw rail: FIN for endpoint 0's first transfer.
  rail::RailOptions raw_options;
  raw_options.address = "127.0.0.1";
  rail::Rail raw(raw_options);
  const rail::RailPeer to_sender =
      raw.insert_peer(decode_address(group[0].address()).rails[0].address);
  Header fin;
  fin.type = MessageType::kFin;
  fin.source = group[2].id();
  fin.word = 1;
  std::vector<std::byte> forged(kHeaderSize);
  encode_header(fin, forged.data());
  railyard::rail::Request forged_send;
  ASSERT_TRUE(
      raw.post_send(forged_send, to_sender, rail::ConstBuffer{forged.data(), forged.size()}).ok());
  ASSERT_TRUE(group.run_until([&] {
    raw.progress();
    return group[0].counters().dropped_messages == 1;
  })) << "the forged FIN was not dropped";
  EXPECT_FALSE(send.done()) << "a FIN from the wrong peer completed the rendezvous send";

  // The real receiver still pulls the message and ends the send.
  std::vector<std::byte> in(out.size());
  Request recv;
  ASSERT_TRUE(group[1].recv(recv, group.ids[1][0], in.data(), in.size(), 5).ok());
  ASSERT_TRUE(group.run_until([&] { return send.done() && recv.done(); }));
  EXPECT_TRUE(send.status().ok()) << send.status().to_string();
  EXPECT_TRUE(recv.status().ok()) << recv.status().to_string();
  EXPECT_EQ(in, out);
}

TEST(Endpoint, MessagesFromAPeerNotYetInsertedWaitForIt) {
  Endpoint a(endpoint_options(2));
  Endpoint b(endpoint_options(2));
  const PeerId b_in_a = a.insert_peer(b.address());
  std::vector<std::byte> out(100000);
  fill_pattern(out, 31);
  Request send;
  ASSERT_TRUE(a.send(send, b_in_a, out.data(), out.size(), 4).ok());
  std::array<Endpoint*, 2> both{&a, &b};
  // The request-to-send reaches b, which cannot place it yet; a waits (b
  // answers nothing meanwhile: a silent peer, not a failed one).
  (void)Endpoint::progress_until(
      both, [] { return false; }, std::chrono::milliseconds(300));
  EXPECT_FALSE(send.done()) << send.status().to_string();
  // Only now does b learn a's address.
  const PeerId a_in_b = b.insert_peer(a.address());
  std::vector<std::byte> in(out.size());
  Request recv;
  ASSERT_TRUE(b.recv(recv, a_in_b, in.data(), in.size(), 4).ok());
  ASSERT_TRUE(Endpoint::progress_until(
      both, [&] { return recv.done() && send.done(); }, std::chrono::seconds(30)));
  ASSERT_TRUE(recv.status().ok()) << recv.status().to_string();
  EXPECT_TRUE(send.status().ok()) << send.status().to_string();
  EXPECT_EQ(first_mismatch(in, 31), std::nullopt);
}

TEST(Endpoint, BadArgumentsAreRefusedWithoutStartingTheRequest) {
  EndpointGroup group({endpoint_options(1), endpoint_options(1)});
  Request request;
  EXPECT_EQ(group[0].send(request, PeerId{99}, nullptr, 0, 0).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(group[0].send(request, group.ids[0][1], nullptr, 5, 0).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(group[0].recv(request, PeerId{7}, nullptr, 0, 0).code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(request.in_flight());
}

TEST(EndpointRma, PutGetAndFlushMoveExactBytes) {
  EndpointGroup group({endpoint_options(3), endpoint_options(3)});
  constexpr std::size_t kSize = (6 << 20) + 13;
  std::vector<std::byte> local(kSize);
  std::vector<std::byte> window(kSize + 1000, std::byte{0});
  fill_pattern(local, 61);
  auto local_region = group[0].register_memory(local.data(), local.size());
  auto window_region = group[1].register_memory(window.data(), window.size());
  const auto remote = group[0].import_region(group.ids[0][1], window_region.remote_key());
  EXPECT_EQ(remote.length(), window.size());

  Request put;
  ASSERT_TRUE(group[0].put(put, local_region, 0, remote, 500, kSize).ok());
  ASSERT_TRUE(group.run_until([&] { return put.done(); }));
  ASSERT_TRUE(put.status().ok()) << put.status().to_string();
  Request flush;
  ASSERT_TRUE(group[0].flush(flush, remote).ok());
  ASSERT_TRUE(group.run_until([&] { return flush.done(); }));
  ASSERT_TRUE(flush.status().ok()) << flush.status().to_string();
  EXPECT_EQ(first_mismatch(std::span(window).subspan(500, kSize), 61), std::nullopt);
  EXPECT_EQ(window[499], std::byte{0});
  // Striped over the three rails.
  const auto counters = group[0].counters();
  for (const auto& rail : counters.rails) {
    EXPECT_GT(rail.bytes_sent, kSize / 4) << rail.name;
  }

  std::vector<std::byte> back(kSize);
  auto back_region = group[0].register_memory(back.data(), back.size());
  Request get;
  ASSERT_TRUE(group[0].get(get, back_region, 0, remote, 500, kSize).ok());
  ASSERT_TRUE(group.run_until([&] { return get.done(); }));
  ASSERT_TRUE(get.status().ok()) << get.status().to_string();
  EXPECT_EQ(first_mismatch(back, 61), std::nullopt);

  Request bad;
  EXPECT_EQ(group[0].put(bad, local_region, 0, remote, window.size() - 10, 11).code(),
            StatusCode::kInvalidArgument);
  EXPECT_FALSE(bad.in_flight());
}

TEST(EndpointRma, SmallTransfersUseOneRailAndNeverAnEmptyPiece) {
  EndpointGroup group({endpoint_options(4), endpoint_options(4)});
  std::vector<std::byte> local(64);
  std::vector<std::byte> window(64);
  fill_pattern(local, 2);
  auto local_region = group[0].register_memory(local.data(), local.size());
  auto window_region = group[1].register_memory(window.data(), window.size());
  const auto remote = group[0].import_region(group.ids[0][1], window_region.remote_key());
  for (std::size_t size = 0; size <= 3; ++size) {
    Request put;
    ASSERT_TRUE(group[0].put(put, local_region, 0, remote, 0, size).ok());
    ASSERT_TRUE(group.run_until([&] { return put.done(); }));
    ASSERT_TRUE(put.status().ok());
  }
  std::uint64_t chunks = 0;
  for (const auto& rail : group[0].counters().rails) {
    chunks += rail.chunks_sent;
  }
  EXPECT_EQ(chunks, 3U);  // sizes 1, 2, 3 one piece each; size 0 none
}

}  // namespace
}  // namespace railyard::mrail

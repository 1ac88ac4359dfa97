// One large striped put or get (RMA: host a writes into, or reads from, a
// window of host b's) during which one or two rails' links go down at b's
// end, on the emulated hosts (scripts/netns-rails.sh, as root, shaped with
// --rate). The chunks posted on a dead rail hang (TCP retransmits and
// reports nothing), so a must notice the silence, reset the rail to end
// them, and move their bytes again over the rails left: the request
// completes with every byte right, within the detection time plus what the
// rails left need for the whole transfer, measured in the same run, and a
// flush after it completes. Nothing lands after the request completed, in
// a's buffer (a get) or in b's window (a put), even once the links return
// and TCP delivers what it held; the rails then come back into service and
// carry their share again.
//
// RAILYARD_FAILOVER_TRANSFER_MIB sets the size (default 256).
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "netns_failover.h"
#include "netns_hosts.h"
#include "pattern.h"
#include "railyard/mrail/endpoint.h"
#include "tools/support/forked_peer.h"

namespace railyard::mrail {
namespace {

using testing::check;
using testing::enter_namespace;
using testing::every_path_up;
using testing::fill_pattern;
using testing::first_mismatch;
using testing::netns_variable;
using tools::ForkedPeer;
using tools::Pipe;
using Clock = std::chrono::steady_clock;

constexpr std::chrono::seconds kTimeout{120};
// The pattern of the bytes the transfer moves, and what the buffer it
// wrote into holds once it has completed: a late chunk would overwrite it.
constexpr std::uint64_t kPayload = 1;
constexpr std::uint64_t kAfterwards = 999;
// Tags of the messages that pace the two hosts: "the transfer is done"
// (a to b) and "the checks are done" (b to a).
constexpr std::uint64_t kDoneTag = 9;
constexpr std::uint64_t kCheckedTag = 10;

// A one-byte message on `tag`, sent or awaited.
void signal(Endpoint& endpoint, PeerId peer, std::uint64_t tag) {
  std::byte byte{1};
  Request send;
  check(endpoint.send(send, peer, &byte, 1, tag).ok(), "send refused");
  check(endpoint.wait(send, kTimeout) && send.status().ok(), "a pacing message was not sent");
}
void await(Endpoint& endpoint, PeerId peer, std::uint64_t tag) {
  std::byte byte{};
  Request recv;
  check(endpoint.recv(recv, peer, &byte, 1, tag).ok(), "recv refused");
  check(endpoint.wait(recv, kTimeout) && recv.status().ok(), "a pacing message did not arrive");
}

// The bytes rails `first_rail` and after moved for a's transfers so far.
std::uint64_t moved_on(const Endpoint& endpoint, bool put, std::size_t first_rail) {
  std::uint64_t bytes = 0;
  const EndpointCounters counters = endpoint.counters();
  for (std::size_t r = first_rail; r < counters.rails.size(); ++r) {
    bytes += put ? counters.rails[r].bytes_sent : counters.rails[r].bytes_received;
  }
  return bytes;
}

// The parameters: put (true) or get, and how many rails (the last ones) go
// down.
class NetnsRmaFailover : public testing::NetnsFailoverTest<std::tuple<bool, std::size_t>> {};

TEST_P(NetnsRmaFailover, ATransferDuringWhichRailsGoDownCompletesOnTheRailsLeft) {
  // (Not a structured binding: the forked peers' lambdas capture them.)
  const bool put = std::get<0>(GetParam());
  const std::size_t dead = std::get<1>(GetParam());
  const std::size_t size = testing::failover_transfer_bytes();
  int link[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, link), 0);
  // Host b holds the window: first over the rails that stay up alone (the
  // baseline), then over all 4 while `dead` of them go down at its end.
  ForkedPeer target([&](Pipe& parent) {
    ::close(link[0]);
    const Pipe peer(link[1]);
    enter_namespace(netns_variable("RAILYARD_NETNS_B"));
    std::vector<std::byte> window(size);
    for (const std::size_t rails : {4 - dead, std::size_t{4}}) {
      fill_pattern(window, put ? kAfterwards : kPayload);
      Endpoint endpoint(testing::failover_options("RAILYARD_RAILS_B", rails));
      peer.send(endpoint.address());
      const PeerId origin = endpoint.insert_peer(peer.receive(kTimeout));
      const MultiRegion region = endpoint.register_memory(window.data(), window.size());
      peer.send(region.remote_key());
      await(endpoint, origin, kDoneTag);
      if (put) {
        // Completed and flushed: every byte is in the window.
        if (const auto at = first_mismatch(window, kPayload)) {
          throw std::runtime_error(fmt::format("byte {} of the window is wrong", *at));
        }
        fill_pattern(window, kAfterwards);  // what a late write would change
      }
      if (rails == 4) {
        parent.send_text("checked");
        if (parent.receive_text(kTimeout) != "up") {
          throw std::runtime_error("the links were not brought back");
        }
        check(endpoint.progress_until([&] { return every_path_up(endpoint); }, kTimeout),
              "b's paths to a did not come back");
        // Time for whatever TCP held to arrive.
        (void)endpoint.progress_until([] { return false; }, std::chrono::seconds(2));
        if (put) {
          if (const auto at = first_mismatch(window, kAfterwards)) {
            throw std::runtime_error(
                fmt::format("byte {} of the window changed after the put completed", *at));
          }
        }
      }
      signal(endpoint, origin, kCheckedTag);
      // Serves a's transfer after the comeback, until a says it is done.
      if (rails == 4) {
        await(endpoint, origin, kDoneTag);
      }
      (void)endpoint.progress_until([] { return false; }, std::chrono::milliseconds(300));
    }
  });
  // Host a puts or gets, and times each transfer with its flush.
  ForkedPeer origin([&](Pipe& parent) {
    ::close(link[1]);
    const Pipe peer(link[0]);
    enter_namespace(netns_variable("RAILYARD_NETNS_A"));
    std::vector<std::byte> local(size);
    std::vector<long long> took;
    for (const std::size_t rails : {4 - dead, std::size_t{4}}) {
      fill_pattern(local, put ? kPayload : kAfterwards);
      Endpoint endpoint(testing::failover_options("RAILYARD_RAILS_A", rails));
      const PeerId target_id = endpoint.insert_peer(peer.receive(kTimeout));
      peer.send(endpoint.address());
      const RemoteMultiRegion window = endpoint.import_region(target_id, peer.receive(kTimeout));
      const MultiRegion region = endpoint.register_memory(local.data(), local.size());
      Request transfer;
      Request flush;
      const auto start = Clock::now();
      check((put ? endpoint.put(transfer, region, 0, window, 0, size)
                 : endpoint.get(transfer, region, 0, window, 0, size))
                .ok(),
            "the transfer was refused");
      if (rails == 4) {
        parent.send_text("started");
      }
      check(endpoint.wait(transfer, kTimeout), "the transfer did not complete");
      check(transfer.status().ok(), "the transfer failed: " + transfer.status().to_string());
      check(endpoint.flush(flush, window).ok() && endpoint.wait(flush, kTimeout) &&
                flush.status().ok(),
            "the flush failed: " + flush.status().to_string());
      took.push_back(
          std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count());
      if (!put) {
        if (const auto at = first_mismatch(local, kPayload)) {
          throw std::runtime_error(fmt::format("byte {} of the get is wrong", *at));
        }
        fill_pattern(local, kAfterwards);  // what a late read would change
      }
      signal(endpoint, target_id, kDoneTag);
      if (rails != 4) {
        await(endpoint, target_id, kCheckedTag);
        continue;
      }
      std::uint64_t resets = 0;
      std::uint64_t stray = 0;
      const EndpointCounters counters = endpoint.counters();
      for (const auto& rail : counters.rails) {
        resets += rail.rail.resets;
        stray += rail.rail.stray_completions;
      }
      parent.send_text(fmt::format("{} {} {} {} {}", took[0], took[1], resets, stray,
                                   counters.miscounted_transfers));
      await(endpoint, target_id, kCheckedTag);  // b waited for the links and what TCP held
      check(endpoint.progress_until([&] { return every_path_up(endpoint); }, kTimeout),
            "a's paths to b did not come back");
      if (!put) {
        if (const auto at = first_mismatch(local, kAfterwards)) {
          throw std::runtime_error(
              fmt::format("byte {} of the buffer changed after the get completed", *at));
        }
      }
      // The rails that came back carry their share of a new transfer.
      const std::uint64_t before = moved_on(endpoint, put, 4 - dead);
      Request again;
      const std::size_t again_size = std::min<std::size_t>(size, 64 << 20);
      check((put ? endpoint.put(again, region, 0, window, 0, again_size)
                 : endpoint.get(again, region, 0, window, 0, again_size))
                    .ok() &&
                endpoint.wait(again, kTimeout) && again.status().ok(),
            "the transfer after the comeback failed: " + again.status().to_string());
      parent.send_text(fmt::format("{}", moved_on(endpoint, put, 4 - dead) - before));
      signal(endpoint, target_id, kDoneTag);
    }
  });
  ::close(link[0]);
  ::close(link[1]);
  testing::LinksRestored restorer;
  restorer.host = 'b';
  std::string report;
  std::string comeback;
  try {
    ASSERT_EQ(origin.pipe().receive_text(kTimeout), "started");
    // A fifth of the way into what 4 rails need, while chunks are posted on
    // every rail.
    std::this_thread::sleep_for(std::chrono::milliseconds(100) * (size >> 20) / 256);
    for (std::size_t r = 4 - dead; r < 4; ++r) {
      restorer.rails.push_back(r);
      ASSERT_TRUE(testing::set_link('b', r, false));
    }
    report = origin.pipe().receive_text(kTimeout);
    ASSERT_EQ(target.pipe().receive_text(kTimeout), "checked");
    for (std::size_t r = 4 - dead; r < 4; ++r) {
      ASSERT_TRUE(testing::set_link('b', r, true));
    }
    target.pipe().send_text("up");
    comeback = origin.pipe().receive_text(kTimeout);
  } catch (const std::runtime_error& e) {
    const int origin_status = origin.wait(std::chrono::seconds(5));
    const int target_status = target.wait(std::chrono::seconds(5));
    FAIL() << e.what() << " (report '" << report << "'); origin exit status " << origin_status
           << ", target exit status " << target_status;
  }
  long long baseline_ms = 0;
  long long failover_ms = 0;
  unsigned long long resets = 0;
  unsigned long long stray = 0;
  unsigned long long miscounted = 0;
  ASSERT_EQ(std::sscanf(report.c_str(), "%lld %lld %llu %llu %llu", &baseline_ms, &failover_ms,
                        &resets, &stray, &miscounted),
            5)
      << report;
  unsigned long long on_returned = 0;
  ASSERT_EQ(std::sscanf(comeback.c_str(), "%llu", &on_returned), 1) << comeback;
  EXPECT_EQ(resets, dead) << "rail resets at the origin";
  // Each chunk was counted done once. libfabric 1.17's net reports some
  // reads of a broken connection twice (failed, then canceled when the
  // reset closes the endpoint): the rail drops the second report (`stray`,
  // printed below). Counted twice, the transfer would count its last piece
  // done with chunks in flight (Endpoint::held_open keeps it open and
  // counts it; before, it freed them, and the flush after the get wrote
  // through one: an ASan heap-use-after-free, 1 run in ~50).
  EXPECT_EQ(miscounted, 0U) << "transfers counted done with chunks still in flight";
  // The done-when bound: detection (the rail timeout) plus what the rails
  // left need for the whole transfer, with 250 ms for the probe round and
  // the reset itself.
  EXPECT_LE(failover_ms, testing::kFailoverRailTimeout.count() + baseline_ms + 250)
      << "failover transfer against the " << 4 - dead << "-rail baseline";
  EXPECT_GT(on_returned, 0U) << "the rails that came back carried nothing";
  std::printf(
      "%zu MiB %s striped and flushed, %zu of 4 rails down at the target's end: %lld ms (on %zu "
      "rails alone: %lld ms; bound %lld ms = rail timeout + that + 250); then %llu bytes of the "
      "next transfer over the returned rails; %llu completion(s) reported twice\n",
      size >> 20, put ? "put" : "get", dead, failover_ms, 4 - dead, baseline_ms,
      testing::kFailoverRailTimeout.count() + baseline_ms + 250, on_returned, stray);
  EXPECT_EQ(target.wait(kTimeout), 0);
  EXPECT_EQ(origin.wait(kTimeout), 0);
}

INSTANTIATE_TEST_SUITE_P(RailsDown, NetnsRmaFailover,
                         ::testing::Combine(::testing::Bool(),
                                            ::testing::Values(std::size_t{1}, std::size_t{2})),
                         [](const auto& test) {
                           return std::string(std::get<0>(test.param) ? "put_" : "get_") +
                                  std::to_string(std::get<1>(test.param)) + "_down";
                         });

}  // namespace
}  // namespace railyard::mrail

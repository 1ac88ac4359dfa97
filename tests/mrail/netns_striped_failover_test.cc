// One large striped transfer (a rendezvous: the receiver reads the sender's
// buffer over every rail) during which one or two rails' links go down at
// the receiver's end, on the emulated hosts (scripts/netns-rails.sh, as
// root, shaped with --rate). The reads posted on a dead rail hang (TCP
// retransmits and reports nothing), so the receiver must notice the
// silence, reset the rail to end them, and read their bytes again over the
// rails left: the transfer completes with every byte right, within the
// detection time plus what the rails left need for the whole transfer,
// measured in the same run. Nothing lands in the receive buffer after it
// completed, even once the links return and TCP delivers what it held;
// the rails then come back into service and carry their share again.
//
// RAILYARD_FAILOVER_TRANSFER_MIB sets the size (default 256; the closing
// measurement of the failover issue used 1024).
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
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
using testing::fill_pattern;
using testing::first_mismatch;
using testing::netns_variable;
using tools::ForkedPeer;
using tools::Pipe;
using Clock = std::chrono::steady_clock;

constexpr std::chrono::seconds kTimeout{120};
// What the receive buffer holds once the transfer has completed: a late
// read would overwrite it with the sender's pattern.
constexpr std::uint64_t kAfterwards = 999;

std::string path_report(const EndpointCounters& counters) {
  std::string out;
  for (const auto& path : counters.paths) {
    out += fmt::format(" [rail {}: up {}, {} downs, {} ups, {} read bytes moved]", path.local_rail,
                       path.up, path.health.downs, path.health.ups, path.health.pull_bytes_moved);
  }
  return out;
}

// The parameter: how many rails (the last ones) go down.
class NetnsStripedFailover : public testing::NetnsFailoverTest<std::size_t> {};

TEST_P(NetnsStripedFailover, ATransferDuringWhichRailsGoDownCompletesOnTheRailsLeft) {
  const std::size_t dead = GetParam();
  const std::size_t size = testing::failover_transfer_bytes();
  int link[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, link), 0);
  // Host b receives: first over the rails that stay up alone (the baseline),
  // then over all 4 while `dead` of them go down; then, the links back, once
  // more over all 4.
  ForkedPeer receiver([&](Pipe& parent) {
    ::close(link[0]);
    const Pipe peer(link[1]);
    enter_namespace(netns_variable("RAILYARD_NETNS_B"));
    std::vector<std::byte> buffer(size);
    for (const std::size_t rails : {4 - dead, std::size_t{4}}) {
      Endpoint endpoint(testing::failover_options("RAILYARD_RAILS_B", rails));
      peer.send(endpoint.address());
      const PeerId sender = endpoint.insert_peer(peer.receive(kTimeout));
      Request recv;
      check(endpoint.recv(recv, sender, buffer.data(), size, 1).ok(), "recv refused");
      check(endpoint.wait(recv, kTimeout),
            "the transfer did not complete" + path_report(endpoint.counters()));
      check(recv.status().ok(), "the transfer failed: " + recv.status().to_string());
      if (const auto at = first_mismatch(buffer, 1)) {
        throw std::runtime_error(fmt::format("byte {} of the transfer is wrong", *at));
      }
      if (rails != 4) {
        peer.send_text("received");
        continue;
      }
      // The buffer is ours again: what a late read wrote would show.
      fill_pattern(buffer, kAfterwards);
      const EndpointCounters counters = endpoint.counters();
      std::uint64_t resets = 0;
      for (const auto& rail : counters.rails) {
        resets += rail.rail.resets;
      }
      parent.send_text(fmt::format("{}", resets));
      if (parent.receive_text(kTimeout) != "up") {
        throw std::runtime_error("the links were not brought back");
      }
      check(endpoint.progress_until([&] { return testing::every_path_up(endpoint); }, kTimeout),
            "the rails did not come back" + path_report(endpoint.counters()));
      parent.send_text("back");
      // Time for whatever TCP held to arrive.
      (void)endpoint.progress_until([] { return false; }, std::chrono::seconds(2));
      if (const auto at = first_mismatch(buffer, kAfterwards)) {
        throw std::runtime_error(
            fmt::format("byte {} of the receive buffer changed after the transfer completed", *at));
      }
      // The rails that came back carry their share of a new transfer.
      std::vector<std::uint64_t> before;
      for (const auto& rail : endpoint.counters().rails) {
        before.push_back(rail.bytes_received);
      }
      Request again;
      check(endpoint.recv(again, sender, buffer.data(), std::min<std::size_t>(size, 64 << 20), 2)
                .ok(),
            "recv refused");
      peer.send_text("again");
      check(endpoint.wait(again, kTimeout) && again.status().ok(),
            "the transfer after the comeback failed: " + again.status().to_string());
      std::uint64_t on_returned = 0;
      const EndpointCounters after = endpoint.counters();
      for (std::size_t r = 4 - dead; r < 4; ++r) {
        on_returned += after.rails[r].bytes_received - before[r];
      }
      parent.send_text(fmt::format("{}", on_returned));
      peer.send_text("received");
      (void)endpoint.progress_until([] { return false; }, std::chrono::milliseconds(300));
    }
  });
  // Host a sends, and times each transfer from the send to its FIN.
  ForkedPeer sender([&](Pipe& parent) {
    ::close(link[1]);
    const Pipe peer(link[0]);
    enter_namespace(netns_variable("RAILYARD_NETNS_A"));
    std::vector<std::byte> payload(size);
    fill_pattern(payload, 1);
    std::vector<long long> took;
    for (const std::size_t rails : {4 - dead, std::size_t{4}}) {
      Endpoint endpoint(testing::failover_options("RAILYARD_RAILS_A", rails));
      const PeerId receiver_id = endpoint.insert_peer(peer.receive(kTimeout));
      peer.send(endpoint.address());
      Request send;
      const auto start = Clock::now();
      check(endpoint.send(send, receiver_id, payload.data(), size, 1).ok(), "send refused");
      if (rails == 4) {
        parent.send_text("started");
      }
      check(endpoint.wait(send, kTimeout) && send.status().ok(),
            "the send did not complete: " + send.status().to_string());
      took.push_back(
          std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count());
      if (rails == 4) {
        parent.send_text(fmt::format("{} {}", took[0], took[1]));
        // Serves the receiver until it has the transfer after the comeback.
        std::atomic<bool> answered{false};
        std::string text;
        std::thread reader([&] {
          try {
            text = peer.receive_text(kTimeout);
            if (text == "again") {
              text = peer.receive_text(kTimeout);
            }
          } catch (const std::runtime_error& e) {
            text = e.what();
          }
          answered = true;
        });
        Request again;
        bool posted = false;
        (void)endpoint.progress_until(
            [&] {
              if (!posted) {
                posted = endpoint
                             .send(again, receiver_id, payload.data(),
                                   std::min<std::size_t>(size, 64 << 20), 2)
                             .ok();
              }
              return answered.load();
            },
            kTimeout * 2);
        reader.join();
        check(text == "received", "the receiver did not finish: " + text);
      } else {
        check(peer.receive_text(kTimeout) == "received", "the receiver did not finish");
      }
    }
  });
  ::close(link[0]);
  ::close(link[1]);
  testing::LinksRestored restorer;
  restorer.host = 'b';
  std::string timings;
  std::string resets;
  std::string comeback;
  long long back_ms = 0;
  try {
    ASSERT_EQ(sender.pipe().receive_text(kTimeout), "started");
    // A fifth of the way into what 4 rails need (about 0.56 s for 256 MiB
    // at 1 Gbit/s each), while reads are posted on every rail.
    std::this_thread::sleep_for(std::chrono::milliseconds(100) * (size >> 20) / 256);
    for (std::size_t r = 4 - dead; r < 4; ++r) {
      restorer.rails.push_back(r);
      ASSERT_TRUE(testing::set_link('b', r, false));
    }
    timings = sender.pipe().receive_text(kTimeout);
    resets = receiver.pipe().receive_text(kTimeout);
    // (The endpoint's background thread may bring the rails back before
    // the receiver reads "up": the time runs from the links coming up.)
    const auto up_at = Clock::now();
    for (std::size_t r = 4 - dead; r < 4; ++r) {
      ASSERT_TRUE(testing::set_link('b', r, true));
    }
    receiver.pipe().send_text("up");
    ASSERT_EQ(receiver.pipe().receive_text(kTimeout), "back");
    back_ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - up_at).count();
    comeback = receiver.pipe().receive_text(kTimeout);
  } catch (const std::runtime_error& e) {
    const int sender_status = sender.wait(std::chrono::seconds(5));
    const int receiver_status = receiver.wait(std::chrono::seconds(5));
    FAIL() << e.what() << " (timings '" << timings << "', resets '" << resets << "')"
           << "; sender exit status " << sender_status << ", receiver exit status "
           << receiver_status;
  }
  long long baseline_ms = 0;
  long long failover_ms = 0;
  ASSERT_EQ(std::sscanf(timings.c_str(), "%lld %lld", &baseline_ms, &failover_ms), 2) << timings;
  unsigned long long on_returned = 0;
  ASSERT_EQ(std::sscanf(comeback.c_str(), "%llu", &on_returned), 1) << comeback;
  EXPECT_EQ(resets, std::to_string(dead)) << "rail resets at the receiver";
  // The done-when bound: detection (the rail timeout) plus what the rails
  // left need for the whole transfer, with 250 ms for the probe round and
  // the reset itself.
  EXPECT_LE(failover_ms, testing::kFailoverRailTimeout.count() + baseline_ms + 250)
      << "failover transfer against the " << 4 - dead << "-rail baseline";
  EXPECT_GT(on_returned, 0U) << "the rails that came back carried nothing";
  std::printf(
      "%zu MiB striped, %zu of 4 rails down at the receiver's end: %lld ms (on %zu rails alone: "
      "%lld ms; bound %lld ms = rail timeout + that + 250); links up to every rail back: %lld ms, "
      "then %llu bytes of the next transfer over the returned rails\n",
      size >> 20, dead, failover_ms, 4 - dead, baseline_ms,
      testing::kFailoverRailTimeout.count() + baseline_ms + 250, back_ms, on_returned);
  EXPECT_EQ(receiver.wait(kTimeout), 0);
  EXPECT_EQ(sender.wait(kTimeout), 0);
}

INSTANTIATE_TEST_SUITE_P(RailsDown, NetnsStripedFailover, ::testing::Values(1U, 2U),
                         [](const auto& test) { return std::to_string(test.param) + "_down"; });

}  // namespace
}  // namespace railyard::mrail

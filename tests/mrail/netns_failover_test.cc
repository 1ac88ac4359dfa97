// Rail failover on emulated hosts (run through scripts/netns-rails.sh, as
// root): a rail's link goes down mid-stream (`ip link set ... down`, which
// TCP reports to nobody for minutes), the endpoint notices the silence,
// confirms it with a probe, and carries on over the rails left: every
// message arrives once, intact and in order, within the rail timeout of
// the link going down. When the link comes back, the probes every rail
// retry bring the rail back into service and traffic uses it again.
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "netns_hosts.h"
#include "pattern.h"
#include "railyard/mrail/endpoint.h"
#include "tools/support/forked_peer.h"

namespace railyard::mrail {
namespace {

using testing::comma_list;
using testing::enter_namespace;
using testing::fill_pattern;
using testing::first_mismatch;
using testing::netns_variable;
using tools::ForkedPeer;
using tools::Pipe;
using Clock = std::chrono::steady_clock;

constexpr std::chrono::seconds kTimeout{60};
// The receiver waits less than the sender, so its account of a stall comes
// first.
constexpr std::chrono::seconds kReceiveTimeout{40};
constexpr auto kRailTimeout = std::chrono::milliseconds(2000);

// Taking host b's end of a rail down, host a, the sender, keeps its route:
// its sends vanish without an error and its provider reports nothing, so
// only the silence can tell. With host a's end down its route goes too,
// and its sends fail.
void set_link(char host, std::size_t rail, bool up) {
  ASSERT_TRUE(testing::set_link(host, rail, up))
      << "ip link set, host " << host << " rail " << rail;
}

Options options_for(const char* rails_variable) {
  Options options;
  options.rails = comma_list(netns_variable(rails_variable));
  options.policies = PolicyTable::parse("policy", "-1:striping");
  options.rail_timeout = kRailTimeout;
  options.eager_limit = std::size_t{256} << 10;  // the stream below is eager
  return options;
}

// The parameter: the host whose end of the rail goes down.
class NetnsFailover : public ::testing::TestWithParam<char> {
 protected:
  void SetUp() override {
    if (netns_variable("RAILYARD_NETNS_B").empty() ||
        netns_variable("RAILYARD_RAIL_DEVICES_B").empty()) {
      GTEST_SKIP() << "needs emulated hosts: run through scripts/netns-rails.sh as root";
    }
  }
};

// Host a streams eager messages striped over every rail to host b; halfway
// the test takes rail 2's link down, and once the stream is through, up.
TEST_P(NetnsFailover, ARailLinkGoingDownMidStreamLosesNothingAndComesBack) {
  constexpr std::size_t kMessages = 400;                 // while the link goes down
  constexpr std::size_t kAfter = 100;                    // once it is back
  constexpr std::size_t kSize = std::size_t{200} << 10;  // eager, 7 fragments over 4 rails
  constexpr std::size_t kDeadRail = 1;
  int link[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, link), 0);
  ForkedPeer receiver([&](Pipe& parent) {
    ::close(link[0]);
    const Pipe peer(link[1]);
    enter_namespace(netns_variable("RAILYARD_NETNS_B"));
    Endpoint endpoint(options_for("RAILYARD_RAILS_B"));
    peer.send(endpoint.address());
    const PeerId sender = endpoint.insert_peer(peer.receive(kTimeout));
    std::vector<std::byte> buffer(kSize);
    for (std::size_t i = 0; i < kMessages + kAfter; ++i) {
      Request recv;
      if (!endpoint.recv(recv, sender, buffer.data(), buffer.size(), 5).ok() ||
          !endpoint.wait(recv, kReceiveTimeout) || !recv.status().ok() || recv.length() != kSize) {
        const EndpointCounters counters = endpoint.counters();
        std::string paths;
        for (const auto& path : counters.paths) {
          paths +=
              fmt::format(" [path {}: up {}, {} unacked, {} downs, {} probes]", path.local_rail,
                          path.up, path.unacked_messages, path.health.downs, path.health.probes);
        }
        throw std::runtime_error(fmt::format(
            "message {} did not arrive: {}; {} duplicates, {} dropped, {} unexpected, {} early;{}",
            i, recv.status().to_string(), counters.duplicates_dropped, counters.dropped_messages,
            counters.unexpected_messages, counters.early_arrivals, paths));
      }
      // One tag: the pattern says which message this receive got.
      if (const auto at = first_mismatch(buffer, i)) {
        throw std::runtime_error(
            fmt::format("receive {} got another message or a wrong byte "
                        "at {}",
                        i, *at));
      }
      if (i + 1 == kMessages || i + 1 == kMessages + kAfter) {
        peer.send_text("received");
      }
    }
    const EndpointCounters counters = endpoint.counters();
    parent.send_text(fmt::format("{} {}", counters.duplicates_dropped, counters.dropped_messages));
    // The sender's last acknowledgements may still be on their way.
    (void)endpoint.progress_until([] { return false; }, std::chrono::milliseconds(200));
  });
  ForkedPeer sender([&](Pipe& parent) {
    ::close(link[1]);
    const Pipe peer(link[0]);
    enter_namespace(netns_variable("RAILYARD_NETNS_A"));
    Endpoint endpoint(options_for("RAILYARD_RAILS_A"));
    const PeerId receiver_id = endpoint.insert_peer(peer.receive(kTimeout));
    peer.send(endpoint.address());
    std::vector<std::vector<std::byte>> payloads(kMessages + kAfter);
    std::vector<Request> sends(kMessages + kAfter);
    const auto send_range = [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        payloads[i].resize(kSize);
        fill_pattern(payloads[i], i);
        if (!endpoint.send(sends[i], receiver_id, payloads[i].data(), kSize, 5).ok()) {
          throw std::runtime_error("send refused");
        }
      }
      if (!endpoint.progress_until(
              [&] {
                return std::all_of(sends.begin() + static_cast<std::ptrdiff_t>(begin),
                                   sends.begin() + static_cast<std::ptrdiff_t>(end),
                                   [](const Request& r) { return r.done(); });
              },
              kTimeout)) {
        throw std::runtime_error("sends did not complete");
      }
      for (std::size_t i = begin; i < end; ++i) {
        if (!sends[i].status().ok()) {
          throw std::runtime_error("a send failed: " + sends[i].status().to_string());
        }
      }
    };
    // Progresses (the endpoint must stay open and answer) until the
    // receiver says it has everything so far. The pipe is read whole by a
    // thread of its own: a read cut short by a timeout would leave half a
    // message in it.
    const auto until_received = [&] {
      std::atomic<bool> answered{false};
      std::string text;
      std::thread reader([&] {
        try {
          text = peer.receive_text(kTimeout);
        } catch (const std::runtime_error& e) {
          text = e.what();
        }
        answered = true;
      });
      (void)endpoint.progress_until([&] { return answered.load(); }, kTimeout * 2);
      reader.join();
      if (text != "received") {
        throw std::runtime_error("the receiver did not say it had everything: " + text);
      }
    };
    send_range(0, kMessages / 2);
    parent.send_text("half");
    if (parent.receive_text(kTimeout) != "down") {
      throw std::runtime_error("the link was not taken down");
    }
    const auto down_at = Clock::now();
    send_range(kMessages / 2, kMessages);
    until_received();
    const auto elapsed =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - down_at);
    const PathTraffic dead = endpoint.counters().paths.at(kDeadRail);
    parent.send_text(fmt::format("{} {} {} {} {}", elapsed.count(), dead.up ? 1 : 0,
                                 dead.health.downs, dead.health.messages_resent,
                                 dead.health.probes));
    if (parent.receive_text(kTimeout) != "up") {
      throw std::runtime_error("the link was not brought back");
    }
    // Probed every rail retry: back once the link carries again.
    const auto up_at = Clock::now();
    if (!endpoint.progress_until([&] { return endpoint.counters().paths.at(kDeadRail).up; },
                                 kTimeout)) {
      throw std::runtime_error("the rail did not come back into service");
    }
    const auto back = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - up_at);
    const std::uint64_t before = endpoint.counters().rails.at(kDeadRail).messages_sent;
    send_range(kMessages, kMessages + kAfter);
    until_received();
    const EndpointCounters counters = endpoint.counters();
    parent.send_text(fmt::format("{} {} {}", back.count(), counters.paths.at(kDeadRail).health.ups,
                                 counters.rails.at(kDeadRail).messages_sent - before));
  });
  ::close(link[0]);
  ::close(link[1]);
  ASSERT_EQ(sender.pipe().receive_text(kTimeout), "half");
  set_link(GetParam(), kDeadRail, false);
  testing::LinksRestored restorer;
  restorer.host = GetParam();
  restorer.rails = {kDeadRail};
  std::string report;
  std::string comeback;
  std::string received;
  try {
    sender.pipe().send_text("down");
    report = sender.pipe().receive_text(std::chrono::seconds(120));
    set_link(GetParam(), kDeadRail, true);
    sender.pipe().send_text("up");
    comeback = sender.pipe().receive_text(std::chrono::seconds(120));
    received = receiver.pipe().receive_text(std::chrono::seconds(10));
  } catch (const std::runtime_error& e) {
    // How each side ended says which one broke (a negative status is the
    // signal that killed it).
    const int sender_status = sender.wait(std::chrono::seconds(5));
    const int receiver_status = receiver.wait(std::chrono::seconds(5));
    FAIL() << e.what() << " (after report '" << report << "', comeback '" << comeback
           << "'); sender exit status " << sender_status << ", receiver exit status "
           << receiver_status;
  }
  long long elapsed_ms = 0;
  int up = 1;
  unsigned long long downs = 0;
  unsigned long long resent = 0;
  unsigned long long probes = 0;
  ASSERT_EQ(std::sscanf(report.c_str(), "%lld %d %llu %llu %llu", &elapsed_ms, &up, &downs, &resent,
                        &probes),
            5)
      << report;
  long long back_ms = 0;
  unsigned long long ups = 0;
  unsigned long long used_again = 0;
  ASSERT_EQ(std::sscanf(comeback.c_str(), "%lld %llu %llu", &back_ms, &ups, &used_again), 3)
      << comeback;
  unsigned long long duplicates = 0;
  unsigned long long dropped = 0;
  ASSERT_EQ(std::sscanf(received.c_str(), "%llu %llu", &duplicates, &dropped), 2) << received;
  EXPECT_EQ(up, 0) << "the dead rail's path is still up";
  EXPECT_EQ(downs, 1U);
  if (GetParam() == 'b') {
    EXPECT_GE(probes, 1U) << "it went down without a probe";
  }
  EXPECT_GT(resent, 0U) << "nothing was waiting on the dead rail";
  EXPECT_EQ(dropped, 0U);
  // Detection takes the rail timeout; the rest of the stream (half of it,
  // 40 MB) then needs about 0.1 s on three unshaped rails.
  EXPECT_LT(elapsed_ms, kRailTimeout.count() + 3000) << "from link down to the last message";
  EXPECT_EQ(ups, 1U);
  EXPECT_GT(used_again, 0U) << "nothing went over the rail once it was back";
  std::printf(
      "link down to last message: %lld ms (rail timeout %lld ms); %llu messages resent, "
      "%llu duplicates dropped, %llu probes; link up to rail back in service: %lld ms, "
      "then %llu messages over it\n",
      elapsed_ms, static_cast<long long>(kRailTimeout.count()), resent, duplicates, probes, back_ms,
      used_again);
  EXPECT_EQ(receiver.wait(kTimeout), 0);
  EXPECT_EQ(sender.wait(kTimeout), 0);
}

INSTANTIATE_TEST_SUITE_P(Hosts, NetnsFailover, ::testing::Values('b', 'a'),
                         [](const auto& test) { return std::string("host_") + test.param; });

}  // namespace
}  // namespace railyard::mrail

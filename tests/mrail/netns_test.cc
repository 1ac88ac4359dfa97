// Two processes on emulated hosts joined by several veth rails (run through
// scripts/netns-rails.sh, as root): data arrives intact and the per-rail
// counters show each policy's split, with 2 and 4 rails.
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <sstream>

#include "netns_hosts.h"
#include "pattern.h"
#include "railyard/common/detail/parse.h"
#include "railyard/mrail/endpoint.h"
#include "tools/support/forked_peer.h"

namespace railyard::mrail {
namespace {

using testing::enter_namespace;
using testing::fill_pattern;
using testing::first_mismatch;
using testing::netns_variable;
using tools::ForkedPeer;
using tools::Pipe;

constexpr std::chrono::seconds kTimeout{60};

std::vector<std::string> first_rails(const std::string& list, std::size_t count, bool reversed) {
  std::vector<std::string> out;
  for (const auto piece : split(list, ',')) {
    if (out.size() < count) {
      out.emplace_back(piece);
    }
  }
  if (reversed) {
    std::reverse(out.begin(), out.end());
  }
  return out;
}

// "198.18.2.1" -> 2: the rail number, which is the same on both hosts.
int rail_number(const std::string& rail_name) {
  const auto at = rail_name.find("198.18.");
  return at == std::string::npos ? -1 : std::atoi(rail_name.c_str() + at + 7);
}

struct Traffic {
  std::string table;
  std::size_t size;
  std::size_t count;
};

// Runs sender (host a) and receiver (host b); returns the receiver's bytes
// per rail number and the sender's messages per rail number.
void run_pair(std::size_t rails, const Traffic& traffic, std::map<int, std::uint64_t>& received,
              std::map<int, std::uint64_t>& messages) {
  int link[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, link), 0);
  const auto options_for = [&](const char* rails_variable, bool reversed) {
    Options options;
    options.rails = first_rails(netns_variable(rails_variable), rails, reversed);
    options.policies = PolicyTable::parse("policy", traffic.table);
    options.home_rail = 1;  // rail 2 (198.18.2.x) when not reversed
    // Each striped share read whole, so the bytes per rail are the plan's
    // (in chunks, a path done early reads part of a slower one's share).
    options.pull_chunk = 0;
    // Up to 256 KiB eagerly, where every byte travels over the rail the
    // policy chose; larger messages (4 MiB) by rendezvous reads.
    options.eager_limit = std::size_t{256} << 10;
    return options;
  };
  ForkedPeer receiver([&](Pipe& parent) {
    ::close(link[0]);
    Pipe peer_pipe(link[1]);
    enter_namespace(netns_variable("RAILYARD_NETNS_B"));
    Endpoint endpoint(options_for("RAILYARD_RAILS_B", true));
    peer_pipe.send(endpoint.address());
    const PeerId sender = endpoint.insert_peer(peer_pipe.receive(kTimeout));
    std::vector<std::byte> buffer(traffic.size);
    for (std::size_t i = 0; i < traffic.count; ++i) {
      Request recv;
      if (!endpoint.recv(recv, sender, buffer.data(), buffer.size(), i).ok() ||
          !endpoint.wait(recv, kTimeout) || !recv.status().ok() || recv.length() != traffic.size ||
          first_mismatch(buffer, i)) {
        throw std::runtime_error("message " + std::to_string(i) +
                                 " did not arrive intact: " + recv.status().to_string());
      }
    }
    std::ostringstream report;
    for (const auto& rail : endpoint.counters().rails) {
      report << rail_number(rail.name) << ' ' << rail.bytes_received << '\n';
    }
    parent.send_text(report.str());
  });
  ForkedPeer sender([&](Pipe& parent) {
    ::close(link[1]);
    Pipe peer_pipe(link[0]);
    enter_namespace(netns_variable("RAILYARD_NETNS_A"));
    Endpoint endpoint(options_for("RAILYARD_RAILS_A", false));
    const PeerId receiver_id = endpoint.insert_peer(peer_pipe.receive(kTimeout));
    peer_pipe.send(endpoint.address());
    std::vector<std::vector<std::byte>> payloads(traffic.count);
    std::vector<Request> sends(traffic.count);
    for (std::size_t i = 0; i < traffic.count; ++i) {
      payloads[i].resize(traffic.size);
      fill_pattern(payloads[i], i);
      if (!endpoint.send(sends[i], receiver_id, payloads[i].data(), traffic.size, i).ok()) {
        throw std::runtime_error("send refused");
      }
    }
    if (!endpoint.progress_until(
            [&] {
              return std::all_of(sends.begin(), sends.end(),
                                 [](const Request& r) { return r.done(); });
            },
            kTimeout)) {
      throw std::runtime_error("sends did not complete");
    }
    std::ostringstream report;
    for (const auto& rail : endpoint.counters().rails) {
      report << rail_number(rail.name) << ' ' << rail.messages_sent << '\n';
    }
    parent.send_text(report.str());
  });
  ::close(link[0]);
  ::close(link[1]);
  const auto parse = [](const std::string& text, std::map<int, std::uint64_t>& out) {
    std::istringstream in(text);
    int rail = 0;
    std::uint64_t value = 0;
    while (in >> rail >> value) {
      out[rail] = value;
    }
  };
  parse(receiver.pipe().receive_text(std::chrono::seconds(120)), received);
  parse(sender.pipe().receive_text(std::chrono::seconds(120)), messages);
  EXPECT_EQ(receiver.wait(kTimeout), 0);
  EXPECT_EQ(sender.wait(kTimeout), 0);
}

class NetnsRails : public ::testing::TestWithParam<std::size_t> {
 protected:
  void SetUp() override {
    if (netns_variable("RAILYARD_NETNS_A").empty()) {
      GTEST_SKIP() << "needs emulated hosts: run through scripts/netns-rails.sh as root";
    }
  }
};

TEST_P(NetnsRails, FixedKeepsEverythingOnTheHomeRail) {
  const std::size_t rails = GetParam();
  std::map<int, std::uint64_t> received;
  std::map<int, std::uint64_t> messages;
  run_pair(rails, {"-1:fixed", 100000, 20}, received, messages);
  ASSERT_EQ(received.size(), rails);
  for (const auto& [rail, bytes] : received) {
    EXPECT_EQ(bytes, rail == 2 ? 20U * 100000 : 0U) << "rail " << rail;
    EXPECT_EQ(messages[rail], rail == 2 ? 20U : 0U) << "rail " << rail;
  }
}

TEST_P(NetnsRails, RoundRobinDealsMessagesEvenly) {
  const std::size_t rails = GetParam();
  std::map<int, std::uint64_t> received;
  std::map<int, std::uint64_t> messages;
  run_pair(rails, {"-1:round-robin", 100000, 40}, received, messages);
  ASSERT_EQ(received.size(), rails);
  for (const auto& [rail, bytes] : received) {
    EXPECT_EQ(bytes, 40U / rails * 100000) << "rail " << rail;
    EXPECT_EQ(messages[rail], 40U / rails) << "rail " << rail;
  }
}

TEST_P(NetnsRails, StripingSplitsEachMessageOverEveryRail) {
  const std::size_t rails = GetParam();
  for (const std::size_t size : {std::size_t{256} * 1024, std::size_t{4} << 20}) {
    std::map<int, std::uint64_t> received;
    std::map<int, std::uint64_t> messages;
    run_pair(rails, {"-1:striping", size, 10}, received, messages);
    ASSERT_EQ(received.size(), rails);
    for (const auto& [rail, bytes] : received) {
      EXPECT_EQ(bytes, 10U * size / rails) << "size " << size << " rail " << rail;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Rails, NetnsRails, ::testing::Values(2, 4),
                         [](const auto& test) { return std::to_string(test.param) + "rails"; });

}  // namespace
}  // namespace railyard::mrail

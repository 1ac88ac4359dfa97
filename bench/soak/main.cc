// railyard-soak: two hosts push a long stream of messages of random sizes
// (0 B to 4 MiB by default: every policy of the default table, eager and
// rendezvous), tagged and untagged, to each other over multi-rail
// endpoints, received through a mix of exact and wildcard receives, and
// check every one against what both sides derive from the seed: nothing
// lost, duplicated, reordered or corrupted. Run on the emulated hosts by
// scripts/soak.sh, which takes rails down and up meanwhile; without
// namespaces both sides run here over loopback rails.
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"
#include "soak_side.h"
#include "tools/support/comma_list.h"
#include "tools/support/command_line.h"
#include "tools/support/forked_peer.h"
#include "tools/support/network_namespace.h"
#include "tools/support/tool_main.h"

namespace railyard::soak {
namespace {

// How long each side may take to open its endpoint and meet the other (a
// side waits 60 s for its peer's address; sanitizer builds start slowly).
constexpr std::chrono::seconds kConnectTimeout{120};

struct Settings {
  std::uint64_t messages = 1000000;
  std::uint64_t seed = 1;
  std::size_t window = 32;
  std::string max_size = "4m";
  int stall_timeout = 60;
  std::string netns_a;
  std::string netns_b;
  std::string rails_a;
  std::string rails_b;
  std::string json_path;
  std::string ready_file;
};

std::string from_environment(const char* name, const char* fallback) {
  const char* value = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): before any thread
  return value != nullptr && *value != '\0' ? std::string(value) : std::string(fallback);
}

void print_table(const Settings& settings, const std::vector<SideReport>& reports) {
  fmt::print("{:>4} {:>9} {:>9} {:>8} {:>6} {:>6} {:>9} {:>6} {:>6} {:>6} {:>8} {:>6} {:>8}\n",
             "host", "sent", "received", "GB", "wrong", "failed", "wildcard", "dups", "downs",
             "ups", "resent", "resets", "seconds");
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const SideReport& r = reports[i];
    fmt::print(
        "{:>4} {:>9} {:>9} {:>8.2f} {:>6} {:>6} {:>9} {:>6} {:>6} {:>6} {:>8} {:>6} {:>8.1f}\n",
        i == 0 ? "a" : "b", r.sent, r.received, static_cast<double>(r.bytes_received) / 1e9,
        r.wrong, r.failed, r.wildcard_receives, r.duplicates_dropped, r.path_downs, r.path_ups,
        r.messages_resent, r.rail_resets, r.seconds);
  }
  (void)settings;
}

int run(int argc, char** argv) {
  Settings settings;
  CLI::App app{"Soak test: two hosts exchange a long checked stream over multi-rail endpoints"};
  app.add_option("--messages", settings.messages,
                 "messages in all, half each way (default a million)")
      ->check(CLI::Range(std::uint64_t{2}, std::uint64_t{1} << 40));
  app.add_option("--seed", settings.seed, "seed of sizes, tags, streams and bytes")
      ->capture_default_str();
  app.add_option("--window", settings.window, "sends and receives in flight per stream, each way")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  app.add_option("--max-size", settings.max_size, "largest message, e.g. 4m")
      ->capture_default_str();
  app.add_option("--stall-timeout", settings.stall_timeout,
                 "seconds without any completion before a side gives up")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
  app.add_option("--netns-a", settings.netns_a, "host a's network namespace (RAILYARD_NETNS_A)");
  app.add_option("--netns-b", settings.netns_b, "host b's network namespace (RAILYARD_NETNS_B)");
  app.add_option("--rails-a", settings.rails_a, "host a's rail addresses (RAILYARD_RAILS_A)");
  app.add_option("--rails-b", settings.rails_b, "host b's rail addresses (RAILYARD_RAILS_B)");
  app.add_option("--json", settings.json_path, "also write both reports to this file");
  app.add_option("--ready-file", settings.ready_file,
                 "create this file once both hosts' endpoints are open and connected, "
                 "before any traffic (scripts/soak.sh waits for it before taking rails down)");
  if (const auto status = railyard::tools::parse_command_line(app, argc, argv, "railyard-soak: ")) {
    return *status;
  }

  if (settings.netns_a.empty()) {
    settings.netns_a = from_environment("RAILYARD_NETNS_A", "");
  }
  if (settings.netns_b.empty()) {
    settings.netns_b = from_environment("RAILYARD_NETNS_B", "");
  }
  if (settings.rails_a.empty()) {
    settings.rails_a = from_environment("RAILYARD_RAILS_A", "127.0.0.1,127.0.0.2");
  }
  if (settings.rails_b.empty()) {
    settings.rails_b = from_environment("RAILYARD_RAILS_B", "127.0.0.1,127.0.0.2");
  }
  const std::vector<std::string> rails_a = tools::comma_list("--rails-a", settings.rails_a);
  const std::vector<std::string> rails_b = tools::comma_list("--rails-b", settings.rails_b);
  const std::size_t max_size = parse_size("--max-size", settings.max_size);
  if (max_size > (std::size_t{1} << 30)) {
    throw ConfigError("--max-size", settings.max_size, "expected a size up to 1g");
  }
  const std::uint64_t each_way = settings.messages / 2;
  fmt::print("# railyard-soak: {} messages each way, 0 B to {} B, seed {}, window {} per stream\n",
             each_way, max_size, settings.seed, settings.window);
  fmt::print("# host a: {} {}; host b: {} {}\n",
             settings.netns_a.empty() ? "this namespace" : settings.netns_a, settings.rails_a,
             settings.netns_b.empty() ? "this namespace" : settings.netns_b, settings.rails_b);
  std::fflush(stdout);

  int link[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, link) != 0) {
    throw std::runtime_error("socketpair failed");
  }
  std::vector<std::unique_ptr<tools::ForkedPeer>> sides;
  for (unsigned direction = 0; direction < 2; ++direction) {
    sides.push_back(std::make_unique<tools::ForkedPeer>([&, direction](tools::Pipe& parent) {
      ::close(link[1 - direction]);
      const tools::Pipe peer(link[direction]);
      tools::enter_network_namespace(direction == 0 ? settings.netns_a : settings.netns_b);
      SideOptions options;
      options.rails = direction == 0 ? rails_a : rails_b;
      options.seed = settings.seed;
      options.direction = direction;
      options.messages = each_way;
      options.max_size = max_size;
      options.window = settings.window;
      options.stall_timeout = std::chrono::seconds(settings.stall_timeout);
      parent.send_text(
          nlohmann::json(run_side(options, peer, [&] { parent.send_text("connected"); })).dump());
    }));
  }
  ::close(link[0]);
  ::close(link[1]);

  // Both sides say when their endpoints are open and connected; until
  // then a rail taken down would fail the endpoint's set-up, not test the
  // failover. A side that fails before that sends no report either (below).
  bool connected = true;
  for (unsigned i = 0; i < 2 && connected; ++i) {
    try {
      connected = sides[i]->pipe().receive_text(kConnectTimeout) == "connected";
    } catch (const std::exception& error) {
      std::fprintf(stderr, "railyard-soak: host %c did not connect: %s\n", i == 0 ? 'a' : 'b',
                   error.what());
      connected = false;
    }
  }
  if (connected) {
    fmt::print("# both hosts connected; traffic starts\n");
    std::fflush(stdout);
    if (!settings.ready_file.empty()) {
      std::ofstream(settings.ready_file) << "connected\n";
    }
  }

  // Each side ends within its stall timeout of its last completion; the
  // bound here only guards against a side that hangs outside its loop.
  std::vector<SideReport> reports(2);
  bool reported = connected;
  for (unsigned i = 0; i < 2; ++i) {
    try {
      reports[i] = nlohmann::json::parse(sides[i]->pipe().receive_text(std::chrono::hours(24)))
                       .get<SideReport>();
    } catch (const std::exception& error) {
      std::fprintf(stderr, "railyard-soak: host %c sent no report: %s\n", i == 0 ? 'a' : 'b',
                   error.what());
      reported = false;
    }
  }
  for (auto& side : sides) {
    (void)side->wait(std::chrono::seconds(30));
  }
  print_table(settings, reports);
  if (!settings.json_path.empty()) {
    std::ofstream(settings.json_path)
        << nlohmann::json{{"a", reports[0]}, {"b", reports[1]}}.dump(2) << "\n";
  }
  // What each host received of what the other sent: messages missing at
  // the end are lost (or stuck), wrong ones duplicated, reordered or
  // corrupted.
  const std::uint64_t lost = (each_way - std::min(each_way, reports[0].received)) +
                             (each_way - std::min(each_way, reports[1].received));
  const std::uint64_t wrong = reports[0].wrong + reports[1].wrong;
  const std::uint64_t failed = reports[0].failed + reports[1].failed;
  const bool pass = reported && reports[0].finished && reports[1].finished && lost == 0 &&
                    wrong == 0 && failed == 0;
  fmt::print(
      "# {} messages checked: {} lost, {} duplicated, reordered or corrupted, {} failed: {}\n",
      reports[0].received + reports[1].received, lost, wrong, failed, pass ? "PASS" : "FAIL");
  for (unsigned i = 0; i < 2; ++i) {
    if (!reports[i].first_problem.empty()) {
      fmt::print("# host {}: first problem: {}\n", i == 0 ? 'a' : 'b', reports[i].first_problem);
    }
  }
  return pass ? 0 : 1;
}

}  // namespace
}  // namespace railyard::soak

int main(int argc, char** argv) {
  return railyard::tools::run_reporting_errors("railyard-soak: ", railyard::soak::run, argc, argv);
}

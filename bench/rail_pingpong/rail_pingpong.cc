// railyard-pingpong: latency and bandwidth between two processes over one
// rail and over several rails at once.
//
// The tool forks its peer, so one command measures a pair on this host:
//   railyard-pingpong --rails 127.0.0.1,127.0.0.2
// Latency is half the round trip of a tagged ping-pong on the first rail.
// Bandwidth keeps a window of messages in flight (as osu_bw does): first all
// on rail 0, then dealt round-robin over every rail, then acknowledged.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "railyard/common/detail/parse.h"
#include "railyard/common/error.h"
#include "railyard/rail/progress.h"
#include "railyard/rail/rail.h"
#include "tools/support/command_line.h"
#include "tools/support/forked_peer.h"
#include "tools/support/tool_main.h"

namespace {

using railyard::rail::LocalRegion;
using railyard::rail::Rail;
using railyard::rail::RailOptions;
using railyard::rail::RailPeer;
using railyard::rail::Request;
using Clock = std::chrono::steady_clock;

struct Settings {
  std::vector<std::string> rails{"127.0.0.1", "127.0.0.2"};
  std::string provider;
  std::uint64_t min_size = 1;
  std::uint64_t max_size = 4 << 20;
  std::size_t window = 64;
  std::size_t iterations = 200;
  std::chrono::seconds timeout{60};
  bool json = false;
};

// Tags: the phase in the high bits, the message index below.
constexpr std::uint64_t kPing = 1ULL << 40;
constexpr std::uint64_t kData = 2ULL << 40;
constexpr std::uint64_t kAck = 3ULL << 40;

// One side of the measurement: a rail per address, each with a registered
// buffer of the largest size and the peer inserted.
class Side {
 public:
  Side(const Settings& settings, const railyard::tools::Pipe& pipe, bool first)
      : settings_(settings) {
    for (const auto& address : settings.rails) {
      RailOptions options = RailOptions::from_environment();
      if (!settings.provider.empty()) {
        options.provider = settings.provider;
      }
      options.address = address;
      rails_.push_back(std::make_unique<railyard::rail::Rail>(options));
      raw_rails_.push_back(rails_.back().get());
      buffers_.emplace_back(std::max<std::uint64_t>(settings.max_size, 1));
      regions_.push_back(
          rails_.back()->register_memory(buffers_.back().data(), buffers_.back().size()));
    }
    // The first side speaks first, so the exchange cannot deadlock.
    for (auto& rail : rails_) {
      if (first) {
        pipe.send(rail->address());
        peers_.push_back(rail->insert_peer(pipe.receive(settings.timeout)));
      } else {
        peers_.push_back(rail->insert_peer(pipe.receive(settings.timeout)));
        pipe.send(rail->address());
      }
    }
  }

  [[nodiscard]] std::size_t rail_count() const { return rails_.size(); }
  [[nodiscard]] const railyard::rail::Rail& rail(std::size_t i) const { return *rails_[i]; }

  // Half the round trip of `iterations` ping-pongs of `size` bytes on rail 0.
  double latency_us(std::size_t size, std::size_t iterations, bool initiator) {
    const std::size_t warmup = std::min<std::size_t>(iterations / 10 + 1, 10);
    Clock::time_point start;
    for (std::size_t i = 0; i < warmup + iterations; ++i) {
      if (i == warmup) {
        start = Clock::now();
      }
      if (initiator) {
        send_one(0, size, kPing + i);
        recv_one(0, size, kPing + i);
      } else {
        recv_one(0, size, kPing + i);
        send_one(0, size, kPing + i);
      }
    }
    const std::chrono::duration<double, std::micro> elapsed = Clock::now() - start;
    return elapsed.count() / static_cast<double>(2 * iterations);
  }

  // MB/s of `windows` windows of messages dealt round-robin over the first
  // `rail_count` rails, each window acknowledged by the receiver.
  double bandwidth_mbps(std::size_t size, std::size_t windows, std::size_t rail_count,
                        bool sender) {
    std::vector<Request> requests(settings_.window);
    const auto start = Clock::now();
    for (std::size_t w = 0; w < windows; ++w) {
      for (auto& request : requests) {
        request.reset();
      }
      for (std::size_t i = 0; i < settings_.window; ++i) {
        const std::size_t r = i % rail_count;
        const auto buffer = regions_[r].slice(0, size);
        const auto status =
            sender ? rails_[r]->post_tagged_send(requests[i], peers_[r], buffer, kData + i)
                   : rails_[r]->post_tagged_recv(requests[i], buffer, kData + i);
        check(status, sender ? "send" : "receive");
      }
      wait_all(requests);
      if (sender) {
        recv_one(0, 0, kAck + w);
      } else {
        send_one(0, 0, kAck + w);
      }
    }
    const std::chrono::duration<double> elapsed = Clock::now() - start;
    return static_cast<double>(size * settings_.window * windows) / elapsed.count() / 1e6;
  }

 private:
  static void check(const railyard::Status& status, const char* what) {
    if (!status.ok()) {
      throw std::runtime_error(fmt::format("{} failed: {}", what, status.to_string()));
    }
  }

  void wait_for(const std::function<bool()>& done, const char* what) {
    if (!railyard::rail::progress_until(raw_rails_, done, settings_.timeout,
                                        rails_.front()->wait_policy())) {
      throw std::runtime_error(
          fmt::format("timed out after {} s waiting for {}", settings_.timeout.count(), what));
    }
  }

  void wait_all(std::vector<Request>& requests) {
    wait_for(
        [&] {
          return std::all_of(requests.begin(), requests.end(),
                             [](const Request& r) { return r.done(); });
        },
        "a window of messages");
    for (const auto& request : requests) {
      check(request.status(), "transfer");
    }
  }

  void send_one(std::size_t r, std::size_t size, std::uint64_t tag) {
    Request request;
    check(rails_[r]->post_tagged_send(request, peers_[r], regions_[r].slice(0, size), tag), "send");
    wait_for([&] { return request.done(); }, "a send");
    check(request.status(), "send");
  }

  void recv_one(std::size_t r, std::size_t size, std::uint64_t tag) {
    Request request;
    check(rails_[r]->post_tagged_recv(request, regions_[r].slice(0, std::max<std::size_t>(size, 1)),
                                      tag),
          "receive");
    wait_for([&] { return request.done(); }, "a receive");
    check(request.status(), "receive");
    if (request.completion().length != size) {
      throw std::runtime_error(
          fmt::format("expected {} bytes, received {}", size, request.completion().length));
    }
  }

  const Settings& settings_;
  std::vector<std::unique_ptr<railyard::rail::Rail>> rails_;
  std::vector<railyard::rail::Rail*> raw_rails_;
  std::vector<std::vector<std::byte>> buffers_;
  std::vector<railyard::rail::LocalRegion> regions_;
  std::vector<railyard::rail::RailPeer> peers_;
};

struct Row {
  std::uint64_t size;
  double latency_us;
  double one_rail_mbps;
  double all_rails_mbps;
};

std::vector<std::uint64_t> sizes(const Settings& settings) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t size = settings.min_size; size <= settings.max_size; size *= 2) {
    out.push_back(size);
    if (size == 0) {
      size = 1;
      out.push_back(1);
    }
  }
  return out;
}

std::size_t iterations_for(const Settings& settings, std::uint64_t size) {
  // Fewer round trips for large messages, so every size costs similar time.
  const std::uint64_t budget = std::uint64_t{64} << 20;
  return std::clamp<std::size_t>(budget / std::max<std::uint64_t>(size, 1), 10,
                                 settings.iterations);
}

std::size_t windows_for(const Settings& settings, std::uint64_t size) {
  const std::uint64_t budget = std::uint64_t{256} << 20;
  return std::clamp<std::size_t>(budget / (std::max<std::uint64_t>(size, 1) * settings.window), 2,
                                 20);
}

std::vector<Row> run(const Settings& settings, Side& side, bool initiator) {
  std::vector<Row> rows;
  for (const std::uint64_t size : sizes(settings)) {
    Row row{size, 0, 0, 0};
    row.latency_us = side.latency_us(size, iterations_for(settings, size), initiator);
    row.one_rail_mbps = side.bandwidth_mbps(size, windows_for(settings, size), 1, initiator);
    row.all_rails_mbps =
        side.bandwidth_mbps(size, windows_for(settings, size), side.rail_count(), initiator);
    rows.push_back(row);
  }
  return rows;
}

void print_table(const Settings& settings, const Side& side, const std::vector<Row>& rows) {
  std::cout << fmt::format("# railyard-pingpong: {} rails, provider {}, window {}\n",
                           side.rail_count(), side.rail(0).limits().provider, settings.window);
  for (std::size_t r = 0; r < side.rail_count(); ++r) {
    std::cout << fmt::format("#   rail {}: {} ({})\n", r, side.rail(r).name(),
                             side.rail(r).limits().domain);
  }
  std::cout << fmt::format("# {:>10} {:>12} {:>12} {:>12} {:>7}\n", "size(B)", "latency(us)",
                           "1-rail MB/s", fmt::format("{}-rail MB/s", side.rail_count()), "ratio");
  for (const auto& row : rows) {
    std::cout << fmt::format("  {:>10} {:>12.2f} {:>12.1f} {:>12.1f} {:>7.2f}\n", row.size,
                             row.latency_us, row.one_rail_mbps, row.all_rails_mbps,
                             row.all_rails_mbps / row.one_rail_mbps);
  }
  std::cout << "# bytes sent per rail:";
  for (std::size_t r = 0; r < side.rail_count(); ++r) {
    std::cout << fmt::format(" rail {} {}", r, side.rail(r).counters().bytes_sent);
  }
  std::cout << "\n";
}

void print_json(const Settings& settings, const Side& side, const std::vector<Row>& rows) {
  nlohmann::json out;
  out["tool"] = "railyard-pingpong";
  out["provider"] = side.rail(0).limits().provider;
  out["window"] = settings.window;
  for (std::size_t r = 0; r < side.rail_count(); ++r) {
    const auto& counters = side.rail(r).counters();
    out["rails"].push_back({{"name", side.rail(r).name()},
                            {"domain", side.rail(r).limits().domain},
                            {"bytes_sent", counters.bytes_sent},
                            {"messages_sent", counters.messages_sent},
                            {"bytes_received", counters.bytes_received},
                            {"errors", counters.errors}});
  }
  for (const auto& row : rows) {
    out["results"].push_back({{"size", row.size},
                              {"latency_us", row.latency_us},
                              {"one_rail_MBps", row.one_rail_mbps},
                              {"all_rails_MBps", row.all_rails_mbps}});
  }
  std::cout << out.dump(2) << "\n";
}

int run_pair(const Settings& settings) {
  railyard::tools::ForkedPeer peer([&](railyard::tools::Pipe& pipe) {
    Side side(settings, pipe, false);
    (void)run(settings, side, false);
  });
  Side side(settings, peer.pipe(), true);
  const auto rows = run(settings, side, true);
  if (settings.json) {
    print_json(settings, side, rows);
  } else {
    print_table(settings, side, rows);
  }
  if (peer.wait(settings.timeout) != 0) {
    throw std::runtime_error("the peer process failed");
  }
  return 0;
}

int run_tool(int argc, char** argv) {
  Settings settings;
  std::string rails = "127.0.0.1,127.0.0.2";
  std::string min_size = "1";
  std::string max_size = "4m";
  std::size_t timeout_s = 60;
  CLI::App app{"Latency and bandwidth between two processes over one and several rails"};
  app.add_option("--rails", rails,
                 "comma list of addresses, one rail each (interface, IP, host or FI_ADDR_STR)")
      ->capture_default_str();
  app.add_option("--provider", settings.provider,
                 "libfabric provider (default: RAILYARD_PROVIDER or net)");
  app.add_option("--min-size", min_size, "smallest message, e.g. 1, 4k")->capture_default_str();
  app.add_option("--max-size", max_size, "largest message, e.g. 4m")->capture_default_str();
  app.add_option("--window", settings.window, "messages in flight per bandwidth window")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  app.add_option("--iterations", settings.iterations, "most ping-pongs per size")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  app.add_option("--timeout", timeout_s, "seconds any single wait may take")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));
  app.add_flag("--json", settings.json, "print JSON instead of the table");
  if (const auto status =
          railyard::tools::parse_command_line(app, argc, argv, "railyard-pingpong: ")) {
    return *status;
  }

  settings.timeout = std::chrono::seconds(timeout_s);
  settings.min_size = railyard::parse_size("--min-size", min_size);
  settings.max_size = railyard::parse_size("--max-size", max_size);
  if (settings.max_size < settings.min_size || settings.max_size > (1ULL << 30)) {
    throw railyard::ConfigError("--max-size", max_size, "expected a size from --min-size up to 1g");
  }
  settings.rails.clear();
  for (const auto piece : railyard::split(rails, ',')) {
    if (piece.empty()) {
      throw railyard::ConfigError("--rails", rails,
                                  "expected a comma list of addresses without empty entries");
    }
    settings.rails.emplace_back(piece);
  }
  return run_pair(settings);
}

}  // namespace

int main(int argc, char** argv) {
  return railyard::tools::run_reporting_errors("railyard-pingpong: ", run_tool, argc, argv);
}

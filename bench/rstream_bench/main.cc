// railyard-rstream-bench: a stream channel against a plain TCP socket on the
// same host, in one run: round-trip latency and streaming bandwidth for a
// range of write sizes. The peer is a forked process; rounds interleave the
// two subjects and each figure is the median over rounds.
#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "byte_stream.h"
#include "railyard/common/detail/parse.h"
#include "tools/support/command_line.h"
#include "tools/support/forked_peer.h"
#include "tools/support/report.h"
#include "tools/support/tool_main.h"

namespace railyard::bench {
namespace {

using Clock = std::chrono::steady_clock;
using tools::median;
using tools::size_text;
constexpr std::chrono::seconds kPipeTimeout{120};

struct Settings {
  std::string host = "127.0.0.1";
  std::vector<std::uint64_t> sizes;
  std::uint64_t bytes = std::uint64_t{256} << 20;
  int rounds = 3;
};

struct Figures {
  double latency_us = 0;
  double bandwidth_mbps = 0;
};

std::size_t latency_rounds(std::uint64_t size) {
  return static_cast<std::size_t>(std::clamp<std::uint64_t>(
      (std::uint64_t{64} << 20) / std::max<std::uint64_t>(size, 1), 20, 2000));
}

// The child: connects and mirrors what the parent asks for over the pipe.
void serve(StreamKind kind, tools::Pipe& pipe) {
  const std::string address = pipe.receive_text(kPipeTimeout);
  auto stream = connect(kind, address);
  std::vector<std::byte> buffer;
  while (true) {
    const std::string command = pipe.receive_text(kPipeTimeout);
    std::uint64_t size = 0;
    std::uint64_t count = 0;
    char what[8] = {};
    if (std::sscanf(command.c_str(), "%7s %lu %lu", what, &size, &count) != 3) {
      return;  // "end"
    }
    buffer.resize(std::max<std::uint64_t>(size, 1));
    const auto piece = std::span(buffer).first(size);
    if (std::string(what) == "lat") {
      for (std::uint64_t i = 0; i < count; ++i) {
        stream->receive_all(piece);
        stream->send_all(piece);
      }
    } else {
      for (std::uint64_t got = 0; got < count; got += size) {
        stream->receive_all(std::span(buffer).first(std::min(size, count - got)));
      }
      stream->send_all(std::span(buffer).first(1));
    }
  }
}

// The parent's side of one subject, every size.
std::map<std::uint64_t, Figures> measure(StreamKind kind, const Settings& settings) {
  auto listener = listen(kind, settings.host);
  tools::ForkedPeer child([kind](tools::Pipe& pipe) { serve(kind, pipe); });
  child.pipe().send_text(listener->address());
  auto stream = listener->accept();
  std::map<std::uint64_t, Figures> out;
  std::vector<std::byte> buffer(std::max<std::uint64_t>(settings.sizes.back(), 1), std::byte{0x5a});
  for (const std::uint64_t size : settings.sizes) {
    const auto piece = std::span(buffer).first(size);
    const std::size_t warmup = 10;
    const std::size_t rounds = latency_rounds(size);
    child.pipe().send_text(fmt::format("lat {} {}", size, warmup + rounds));
    Clock::time_point start;
    for (std::size_t i = 0; i < warmup + rounds; ++i) {
      if (i == warmup) {
        start = Clock::now();
      }
      stream->send_all(piece);
      stream->receive_all(piece);
    }
    const std::chrono::duration<double, std::micro> rtt = Clock::now() - start;
    out[size].latency_us = rtt.count() / static_cast<double>(2 * rounds);

    const std::uint64_t total = std::max(settings.bytes / size, std::uint64_t{1}) * size;
    child.pipe().send_text(fmt::format("bw {} {}", size, total));
    start = Clock::now();
    for (std::uint64_t sent = 0; sent < total; sent += size) {
      stream->send_all(piece);
    }
    stream->receive_all(std::span(buffer).first(1));
    const std::chrono::duration<double> took = Clock::now() - start;
    out[size].bandwidth_mbps = static_cast<double>(total) / took.count() / 1e6;
  }
  child.pipe().send_text("end");
  if (const int status = child.wait(kPipeTimeout); status != 0) {
    throw std::runtime_error(
        fmt::format("{} peer process ended with status {}", to_string(kind), status));
  }
  return out;
}

int run(int argc, char** argv) {
  Settings settings;
  std::string sizes_text = "64,4k,64k,1m";
  std::string bytes_text = "256m";
  std::string json_path;
  CLI::App app{"rstream channel against a TCP socket: latency and bandwidth, side by side"};
  app.add_option("--host", settings.host, "IPv4 address both ends use")->capture_default_str();
  app.add_option("--sizes", sizes_text, "write sizes, comma separated (64k, 1m)")
      ->capture_default_str();
  app.add_option("--bytes", bytes_text, "bytes streamed per bandwidth figure")
      ->capture_default_str();
  app.add_option("--rounds", settings.rounds, "interleaved repetitions; medians are reported")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  app.add_option("--json", json_path, "also write the results to this file");
  if (const auto status =
          railyard::tools::parse_command_line(app, argc, argv, "railyard-rstream-bench: ")) {
    return *status;
  }
  try {
    for (const auto& token : split(sizes_text, ',')) {
      settings.sizes.push_back(parse_size("--sizes", token));
    }
    settings.bytes = parse_size("--bytes", bytes_text);
  } catch (const std::exception& e) {
    fmt::print(stderr, "railyard-rstream-bench: {}\n", e.what());
    return 2;
  }
  if (settings.sizes.empty() || std::count(settings.sizes.begin(), settings.sizes.end(), 0) != 0) {
    fmt::print(stderr,
               "railyard-rstream-bench: --sizes '{}' is invalid: expected byte counts "
               "above 0\n",
               sizes_text);
    return 2;
  }
  std::sort(settings.sizes.begin(), settings.sizes.end());
  // Checked here rather than when the first round connects: a typo should
  // not cost a round of the other subject first.
  in_addr host{};
  if (::inet_pton(AF_INET, settings.host.c_str(), &host) != 1) {
    fmt::print(stderr,
               "railyard-rstream-bench: --host='{}' is invalid: expected an IPv4 address of "
               "this machine\n",
               settings.host);
    return 2;
  }
  if (settings.bytes < settings.sizes.back()) {
    fmt::print(stderr,
               "railyard-rstream-bench: --bytes='{}' is invalid: expected at least the largest "
               "of --sizes, {} bytes\n",
               bytes_text, settings.sizes.back());
    return 2;
  }

  const std::vector<StreamKind> kinds{StreamKind::kTcp, StreamKind::kRstream};
  std::map<StreamKind, std::map<std::uint64_t, std::vector<Figures>>> samples;
  for (int round = 1; round <= settings.rounds; ++round) {
    for (const StreamKind kind : kinds) {
      fmt::print(stderr, "railyard-rstream-bench: round {}/{}: {}\n", round, settings.rounds,
                 to_string(kind));
      for (const auto& [size, figures] : measure(kind, settings)) {
        samples[kind][size].push_back(figures);
      }
    }
  }
  const auto pick = [&](StreamKind kind, std::uint64_t size, double Figures::*field) {
    std::vector<double> values;
    for (const auto& f : samples[kind][size]) {
      values.push_back(f.*field);
    }
    return median(values);
  };

  fmt::print(
      "# railyard-rstream-bench: host {}, {} bytes per bandwidth figure, median of {} "
      "rounds\n#\n",
      settings.host, settings.bytes, settings.rounds);
  fmt::print("# {:>8} {:>14} {:>14} {:>8} {:>14} {:>14} {:>8}\n", "size", "tcp MB/s",
             "rstream MB/s", "ratio", "tcp us", "rstream us", "ratio");
  nlohmann::json rows = nlohmann::json::array();
  for (const std::uint64_t size : settings.sizes) {
    const double tcp_bw = pick(StreamKind::kTcp, size, &Figures::bandwidth_mbps);
    const double rs_bw = pick(StreamKind::kRstream, size, &Figures::bandwidth_mbps);
    const double tcp_lat = pick(StreamKind::kTcp, size, &Figures::latency_us);
    const double rs_lat = pick(StreamKind::kRstream, size, &Figures::latency_us);
    fmt::print("  {:>8} {:>14.1f} {:>14.1f} {:>8.3f} {:>14.2f} {:>14.2f} {:>8.3f}\n",
               size_text(size), tcp_bw, rs_bw, rs_bw / tcp_bw, tcp_lat, rs_lat, rs_lat / tcp_lat);
    rows.push_back({{"size", size},
                    {"tcp_mbps", tcp_bw},
                    {"rstream_mbps", rs_bw},
                    {"tcp_latency_us", tcp_lat},
                    {"rstream_latency_us", rs_lat}});
  }
  fmt::print(
      "#\n# ratio: rstream / tcp (bandwidth: above 1 is faster; latency: below 1 is "
      "faster)\n");
  if (!json_path.empty()) {
    std::ofstream file(json_path);
    const nlohmann::json out = {{"tool", "railyard-rstream-bench"},
                                {"host", settings.host},
                                {"bytes", settings.bytes},
                                {"rounds", settings.rounds},
                                {"rows", rows}};
    file << out.dump(2) << "\n";
    if (!file) {
      fmt::print(stderr, "railyard-rstream-bench: --json '{}': cannot write the file\n", json_path);
      return 1;
    }
  }
  return 0;
}

}  // namespace
}  // namespace railyard::bench

int main(int argc, char** argv) {
  return railyard::tools::run_reporting_errors("railyard-rstream-bench: ", railyard::bench::run,
                                               argc, argv);
}

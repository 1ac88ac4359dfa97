// The measurement loops every subject runs, side by side in one run.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "bench_transport.h"

namespace railyard::bench {

struct Measurement {
  std::uint64_t size = 0;
  double latency_us = -1;      // half round trip; -1 when not measured
  double bandwidth_mbps = -1;  // MB/s (10^6 bytes/s); both directions summed when bidirectional
};

// The tag of the bandwidth windows' transfers (the others pace the two
// sides): what an RMA subject moves one-sided (RmaTransport).
inline constexpr std::uint64_t kDataTag = 2;

// What an RMA subject's window transfers are (--rma).
enum class RmaMode : std::uint8_t { kNone, kPut, kGet };

struct MeasureSettings {
  std::vector<std::uint64_t> sizes;
  std::size_t window = 64;                   // transfers in flight per bandwidth window, as osu_bw
  std::chrono::milliseconds timeout{60000};  // for any single wait
  bool latency = true;
  std::uint64_t latency_up_to = std::uint64_t{1} << 20;
  // Bytes each bandwidth run moves, spread over 1 to 50 windows (after one
  // untimed window per size).
  std::uint64_t bandwidth_bytes = std::uint64_t{128} << 20;
  // Timed ping-pongs per latency run up to 8 KiB (after 100 untimed ones),
  // as osu_latency.
  std::size_t latency_iterations = 10000;
  // A latency figure is the lowest of this many runs' means, a bandwidth
  // figure the median of its runs.
  std::size_t latency_repeats = 5;
  std::size_t bandwidth_repeats = 3;
  // Both sides send a window to each other at once (as osu_bibw), and the
  // bandwidth is the sum of both directions: what a collective moving data
  // both ways (an allreduce between two hosts) can get at most.
  bool bidirectional = false;
  // railyard's subjects move the windows by RMA instead of messages.
  RmaMode rma = RmaMode::kNone;

  // Slots the bandwidth windows use; the latency and acknowledgement slots
  // follow them.
  [[nodiscard]] std::size_t data_slots() const { return bidirectional ? 2 * window : window; }
  [[nodiscard]] std::size_t slots() const { return data_slots() + 2; }
};

// Both sides call it with the same settings; `initiator` times and sends,
// the other side answers. Throws std::runtime_error when a transfer fails.
[[nodiscard]] std::vector<Measurement> measure(BenchTransport& transport, bool initiator,
                                               const MeasureSettings& settings);

}  // namespace railyard::bench

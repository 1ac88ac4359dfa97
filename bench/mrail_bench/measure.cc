#include "measure.h"

#include <algorithm>

namespace railyard::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::uint64_t kPing = 1;
constexpr std::uint64_t kData = kDataTag;
constexpr std::uint64_t kAck = 3;
// osu_latency's boundary between small and large messages.
constexpr std::uint64_t kSmallLatencySize = 8192;

double latency_us(BenchTransport& transport, bool initiator, const MeasureSettings& settings,
                  std::uint64_t size) {
  const std::size_t slot = settings.data_slots();  // the slot after the windows'
  // As osu_latency counts: many ping-pongs for small messages, whose run
  // would otherwise last a few milliseconds and take in every scheduler
  // hiccup; fewer, but at most 16 MiB each way, above.
  const bool small = size <= kSmallLatencySize;
  const std::size_t rounds =
      small ? settings.latency_iterations
            : std::clamp<std::uint64_t>((std::uint64_t{16} << 20) / size, 10, 500);
  const std::size_t warmup = small ? 100 : 5;
  const bool blocking = transport.has_blocking_calls();
  Clock::time_point start;
  for (std::size_t i = 0; i < warmup + rounds; ++i) {
    if (i == warmup) {
      start = Clock::now();
    }
    if (blocking) {
      transport.round_trip(size, kPing, initiator);
    } else if (initiator) {
      transport.post_recv(slot, size, kPing);
      transport.post_send(slot + 1, size, kPing);
      transport.wait_all(settings.timeout);
    } else {
      transport.post_recv(slot, size, kPing);
      transport.wait_all(settings.timeout);
      transport.post_send(slot + 1, size, kPing);
      transport.wait_all(settings.timeout);
    }
  }
  const std::chrono::duration<double, std::micro> elapsed = Clock::now() - start;
  return elapsed.count() / static_cast<double>(2 * rounds);
}

// One window of `settings.window` transfers, acknowledged by the receiver.
// Bidirectional (as osu_bibw): each side also sends a window to the other
// at the same time, from the slots after its receives'.
void bandwidth_window(BenchTransport& transport, bool initiator, const MeasureSettings& settings,
                      std::uint64_t size) {
  for (std::size_t i = 0; i < settings.window; ++i) {
    if (settings.bidirectional) {
      transport.post_recv(i, size, kData);
      transport.post_send(settings.window + i, size, kData);
    } else if (initiator) {
      transport.post_send(i, size, kData);
    } else {
      transport.post_recv(i, size, kData);
    }
  }
  transport.wait_all(settings.timeout);
  const std::size_t ack_slot = settings.data_slots();
  if (initiator) {
    transport.post_recv(ack_slot, 0, kAck);
  } else {
    transport.post_send(ack_slot, 0, kAck);
  }
  transport.wait_all(settings.timeout);
}

// Windows worth about settings.bandwidth_bytes (1 to 50 of them).
double bandwidth_mbps(BenchTransport& transport, bool initiator, const MeasureSettings& settings,
                      std::uint64_t size) {
  const std::uint64_t per_window =
      std::max<std::uint64_t>(size, 1) * std::max<std::size_t>(settings.window, 1);
  const std::size_t windows =
      std::clamp<std::uint64_t>(settings.bandwidth_bytes / per_window, 1, 50);
  const auto start = Clock::now();
  for (std::size_t w = 0; w < windows; ++w) {
    bandwidth_window(transport, initiator, settings, size);
  }
  const std::chrono::duration<double> elapsed = Clock::now() - start;
  const std::uint64_t directions = settings.bidirectional ? 2 : 1;
  return static_cast<double>(directions * size * settings.window * windows) / elapsed.count() / 1e6;
}

// The median of `repeats` runs: one run disturbed by the scheduler (two
// processes, four rails and the kernel share two cores) does not decide.
template <typename Run>
double median_of(std::size_t repeats, Run run) {
  std::vector<double> values;
  for (std::size_t i = 0; i < repeats; ++i) {
    values.push_back(run());
  }
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(repeats / 2),
                   values.end());
  return values[repeats / 2];
}

// The lowest of `repeats` runs' mean latency. Interference from outside (the
// other process's scheduling, the host's other tenants) only ever adds time,
// and comes in stretches longer than a run, so the quickest run is the one
// that shows what the transport costs; each run's mean still holds every
// cost the transport itself adds now and then.
template <typename Run>
double lowest_of(std::size_t repeats, Run run) {
  double lowest = run();
  for (std::size_t i = 1; i < repeats; ++i) {
    lowest = std::min(lowest, run());
  }
  return lowest;
}

}  // namespace

std::vector<Measurement> measure(BenchTransport& transport, bool initiator,
                                 const MeasureSettings& settings) {
  std::vector<Measurement> out;
  for (const std::uint64_t size : settings.sizes) {
    Measurement row;
    row.size = size;
    if (settings.latency && size <= settings.latency_up_to) {
      row.latency_us = lowest_of(settings.latency_repeats,
                                 [&] { return latency_us(transport, initiator, settings, size); });
    }
    // One untimed window first: connections and registrations warm up.
    bandwidth_window(transport, initiator, settings, size);
    row.bandwidth_mbps = median_of(settings.bandwidth_repeats, [&] {
      return bandwidth_mbps(transport, initiator, settings, size);
    });
    out.push_back(row);
  }
  return out;
}

}  // namespace railyard::bench

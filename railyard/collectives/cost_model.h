// A LogGP-style model of a collective's time, for projecting the choice of
// algorithm to jobs larger than any testbed: each algorithm describes its
// steps (who sends how much to whom, what is reduced) with the step costs
// below, priced from a handful of measured figures of the fabric and the
// host (docs/benchmarks.md, "Cost model"). Ranks are placed host by host,
// as launchers place them by default.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "railyard/collectives/collective.h"

namespace railyard::collectives {

// The measured figures a prediction is priced from. The defaults are the
// emulated hosts' (4 rails of 1 Gbit/s), as scripts/fit-cost-model.py
// fitted them (docs/benchmarks.md, "Cost model").
struct FabricModel {
  int rails = 4;                            // per host, each to the same switch
  double rail_bytes_per_us = 119.0;         // one rail's rate (MB/s)
  double latency_us = 6.792;                // a small message between hosts
  double message_gap_us = 1.037;            // each further message one rank sends at once
  double stripe_from_bytes = 16384.0;       // messages from here use every rail
  double host_latency_us = 5.012;           // a small message within a host
  double copy_bytes_per_us = 5865.0;        // one rank's copy rate within a host
  double host_copy_bytes_per_us = 12460.0;  // the host's memory, shared by its ranks
  double reduce_bytes_per_us = 9548.0;      // one rank summing doubles
};

// One prediction's question: `bytes` as the selection counts them (the
// whole vector a rank contributes or receives; Call::bytes) on `ranks`
// ranks shaped as `shape` says, on `fabric`.
struct CostQuery {
  std::uint64_t bytes = 0;
  int ranks = 1;
  HostShape shape{};
  FabricModel fabric{};
  // Copies of this collective that run side by side on the other ranks of
  // each host, each among its own ranks, sharing the host's rails (the
  // lanes of a hierarchical algorithm).
  int concurrent = 1;

  // Ranks a host holds: the shape's, or the most any host holds when they
  // differ.
  [[nodiscard]] int ranks_per_host() const noexcept;
  // Hosts the ranks fill, ranks_per_host() on each (the last may hold fewer).
  [[nodiscard]] int host_count() const noexcept {
    return (ranks + ranks_per_host() - 1) / ranks_per_host();
  }
  [[nodiscard]] int host_of(int rank) const noexcept { return rank / ranks_per_host(); }
};

// The time for `messages` sends of `bytes` each to leave (or reach) one
// host at once, over its rails.
[[nodiscard]] double network_us(const FabricModel& fabric, int messages, double bytes);
// What a rank pays to post `messages` sends (or receives) at once beyond
// the first: a gap for each.
[[nodiscard]] double posting_us(const FabricModel& fabric, int messages);
// `messages` sends of `bytes` between ranks of one host at once, each
// copied by its own rank, all through the host's memory.
[[nodiscard]] double on_host_us(const FabricModel& fabric, int messages, double bytes);
// A step in which every rank r sends `bytes` to rank to(r) (-1: to none),
// all at once: the slowest host's time, sending and receiving at once.
[[nodiscard]] double step_us(const CostQuery& query, double bytes,
                             const std::function<int(int)>& to);

// The time of one step in which every rank r sends `bytes` to rank
// (r + distance) mod p and receives as much from (r - distance) mod p: the
// ring's and pairwise exchange's step. The slowest host decides.
[[nodiscard]] double shift_step_us(const CostQuery& query, double bytes, int distance);
// As shift_step_us, each rank r exchanging with rank r ^ mask (recursive
// doubling and halving; ranks past the power of two sit out).
[[nodiscard]] double xor_step_us(const CostQuery& query, double bytes, int mask);
// One step of the binomial tree from rank 0 (detail/patterns.h): each rank
// that is a multiple of 2 * mask sends `bytes` to the rank mask after it.
[[nodiscard]] double tree_step_us(const CostQuery& query, double bytes, int mask);
// The root (rank 0) sends every other rank `bytes_each` at once, or
// receives as much from each (linear scatter and gather).
[[nodiscard]] double fan_step_us(const CostQuery& query, double bytes_each);
// Reducing `bytes` into a partial result, on each rank at once.
[[nodiscard]] double reduce_us(const CostQuery& query, double bytes);
// Copying `bytes` within one rank's memory.
[[nodiscard]] double copy_us(const CostQuery& query, double bytes);

// The patterns several algorithms share:
// p - 1 ring steps of `block` (ring allgather; reducing each: ring
// reduce-scatter).
[[nodiscard]] double ring_us(const CostQuery& query, double block, bool reducing);
// Pairwise exchange: a shift step of `block` at each distance 1 .. p - 1.
[[nodiscard]] double pairwise_us(const CostQuery& query, double block);
// A binomial tree from (or into, reducing) rank 0: ceil(log2 p) steps of
// `bytes`, the farthest first.
[[nodiscard]] double binomial_us(const CostQuery& query, double bytes, bool reducing);
// A binomial tree's scatter from rank 0 (or gather into it): at distance
// d each rank passes on a run of d blocks of `block` bytes.
[[nodiscard]] double binomial_blocks_us(const CostQuery& query, double block);
// Ranks past the largest power of two fold their `bytes` into a
// neighbour before, and take the result back after: two steps.
[[nodiscard]] double fold_us(const CostQuery& query, double bytes, bool reducing);
// The exchanges of halving `bytes` among the largest power of two of the
// ranks: log2 p' xor steps, each of half what is left, the nearest partner
// first or the farthest; their reductions are priced apart (halving_reduce_us).
[[nodiscard]] double halving_exchanges_us(const CostQuery& query, double bytes, bool nearest_first);
// Reducing what those exchanges receive: all but one p'-th of `bytes`.
[[nodiscard]] double halving_reduce_us(const CostQuery& query, double bytes);

// ceil(log2 n) for n >= 1; the largest power of two not above n; whether
// n is a power of two.
[[nodiscard]] int ceil_log2(int n) noexcept;
[[nodiscard]] int floor_pow2(int n) noexcept;
[[nodiscard]] constexpr bool is_pow2(int n) noexcept { return n > 0 && (n & (n - 1)) == 0; }

}  // namespace railyard::collectives

// The algorithms of comm/collectives, one file each, as the table lists
// them (algorithm_table.cc). Each takes its arguments checked.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "railyard/collectives/algorithm_table.h"
#include "railyard/collectives/detail/channel.h"
#include "railyard/collectives/detail/patterns.h"
#include "railyard/collectives/detail/task.h"

namespace railyard::comm::detail {

CollectiveTask barrier_dissemination(Channel channel, CollectiveArgs args);
CollectiveTask bcast_binomial(Channel channel, CollectiveArgs args);
CollectiveTask bcast_scatter_allgather(Channel channel, CollectiveArgs args);
CollectiveTask allreduce_recursive_doubling(Channel channel, CollectiveArgs args);
CollectiveTask allreduce_ring(Channel channel, CollectiveArgs args);
CollectiveTask allreduce_rabenseifner(Channel channel, CollectiveArgs args);
CollectiveTask allreduce_split_rail(Channel channel, CollectiveArgs args);
CollectiveTask allreduce_shared_segment(Channel channel, CollectiveArgs args);
// The table's choice of an allreduce over messages for a flat group of
// ranks: what split_rail and shared_segment run where they do not apply.
CollectiveTask flat_allreduce(Channel channel, CollectiveArgs args);

class HostSegment;
// An allreduce of `args` through `segment` (host_segment.h), as one call on
// it, among the ranks of `local` (this host's, in the segment's order).
// Each lane takes chunks lane, lane + lanes, ... of the vector, the lanes
// side by side; per chunk every rank copies it into its slot, reduces its
// slice of every slot into rank 0's slot after a barrier, and after a
// second barrier copies the whole result out. A short vector on one host
// takes one barrier: after it every rank reduces the whole of it. With
// `across` (one channel per lane: the ranks holding this rank's place on
// every host), each rank first allreduces its slice with them, in place in
// the segment. Throws
// UsageError naming a rank whose call differs. The channels must outlive
// the task.
CollectiveTask allreduce_through_segment(HostSegment& segment, const Channel& local,
                                         std::span<const Channel> across, CollectiveArgs args);
CollectiveTask allgather_ring(Channel channel, CollectiveArgs args);
CollectiveTask allgather_bruck(Channel channel, CollectiveArgs args);
CollectiveTask reduce_scatter_ring(Channel channel, CollectiveArgs args);
CollectiveTask reduce_binomial(Channel channel, CollectiveArgs args);
CollectiveTask alltoall_pairwise(Channel channel, CollectiveArgs args);
// gather and gatherv (uniform blocks when args.counts is empty).
CollectiveTask gather_linear(Channel channel, CollectiveArgs args);
// scatter and scatterv (uniform blocks when args.counts is empty).
CollectiveTask scatter_linear(Channel channel, CollectiveArgs args);
CollectiveTask allgatherv_ring(Channel channel, CollectiveArgs args);
CollectiveTask alltoallv_pairwise(Channel channel, CollectiveArgs args);
CollectiveTask reduce_scatterv_ring(Channel channel, CollectiveArgs args);

// The ring steps the ring algorithms share. `channel` must outlive the task
// (it is the caller's, which awaits the task).
//
// Reduce-scatter over `blocks` (one per rank, in rank order, contiguous)
// of this rank's input at `source` into `data` (the same address, or
// another vector as long): afterwards block r of rank r's data holds the
// reduction of every rank's block r (other blocks hold partial results, or
// nothing). On one rank nothing is written.
CollectiveTask ring_reduce_scatter(const Channel& channel, const std::byte* source, std::byte* data,
                                   BlockLayout blocks, DataType type, ReduceOp op);

// The folding of the ranks past the largest power of two (Doubling), as
// recursive doubling and Rabenseifner's allreduce do it. fold_in: a rank
// that folds sends its `count` elements at `data` to rank + 1 and gets the
// result back there (it is done then); the rank it folds into receives them
// into `scratch` (as long) and reduces them into `data`, the lower rank's
// on the left. hand_back, after the power-of-two part: the result to the
// rank that folded. `channel` and `doubling` must outlive the task.
CollectiveTask fold_in(const Channel& channel, const Doubling& doubling, std::byte* data,
                       std::byte* scratch, std::size_t count, DataType type, ReduceOp op);
CollectiveTask hand_back(const Channel& channel, const Doubling& doubling, const std::byte* data,
                         std::size_t bytes);

// The most a ring step sends as one message: a step's block goes in
// segments of this size, so that the reduction of one overlaps the arrival
// of the next. 1 MiB is striped over every rail in 32 KiB fragments.
inline constexpr std::size_t kRingSegmentBytes = std::size_t{1} << 20;
// From this many bytes recursive doubling swaps in segments of
// kRingSegmentBytes, reducing each as it arrives. Measured on the emulated
// hosts (2 x 1 ranks, 4 rails at 1 Gbit/s, medians of 4 rounds;
// docs/benchmarks.md): 0.94-0.97x the one-piece swap's time at 64 MiB,
// 0.96-0.98x at 32 MiB, even at 16 MiB; segmenting every size from 2 MiB
// made 4-8 MiB 1.01-1.11x slower, each segment's rendezvous costing more
// than the overlap saved there.
inline constexpr std::size_t kSegmentedSwapFrom = std::size_t{16} << 20;
// The split-rail allreduce's pipeline: each lane reduces this much of the
// vector at a time (a host's ranks share it), and this many lanes run side
// by side. Measured on the emulated hosts (2 x 2 ranks, 4 rails, 3 lanes;
// docs/benchmarks.md): 512 KiB carries 4-64 MiB at the rails' line rate
// (8.7-8.9 ms at 4 MiB, 141-155 at 64 MiB), where 2 MiB took 9.1-9.9 and
// 158-171 and left a 1 MiB vector in one segment (2.2-3.3 ms against
// 2.2); 1 MiB was the slowest (its 256 KiB cross-host messages sit on the
// eager limit), 256 KiB no better than 512 KiB.
inline constexpr std::size_t kSplitRailSegmentBytes = std::size_t{512} << 10;
inline constexpr std::uint32_t kSplitRailLanes = 3;

// Allgather over `blocks` (a Blocks or a BlockLayout) of `element`-byte
// elements at `data`, where rank r holds block r: afterwards every rank
// holds every block. In step s each rank passes block (r - s) to the next
// rank and takes block (r - s - 1) from the previous one; p - 1 steps.
template <typename Layout>
CollectiveTask ring_allgather(const Channel& channel, std::byte* data, Layout blocks,
                              std::size_t element) {
  const Ring ring{channel.rank(), channel.size()};
  for (int step = 0; step + 1 < ring.size; ++step) {
    const auto out = static_cast<std::size_t>(ring.before(step));
    const auto in = static_cast<std::size_t>(ring.before(step + 1));
    const std::size_t in_bytes = blocks.length(in) * element;
    std::array<Request, 2> exchange{
        channel.recv(data + blocks.offset(in) * element, in_bytes, ring.previous()),
        channel.send(data + blocks.offset(out) * element, blocks.length(out) * element,
                     ring.next())};
    co_await Transfers{exchange};
    channel.expect(exchange[0], in_bytes, ring.previous());
  }
}

}  // namespace railyard::comm::detail

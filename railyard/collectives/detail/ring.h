// The ring steps the ring algorithms share: a reduce-scatter and an
// allgather around the ranks of a channel, each step between neighbours.
#pragma once

#include <array>
#include <cstddef>

#include "railyard/collectives/channel.h"
#include "railyard/collectives/collective.h"
#include "railyard/collectives/datatype.h"
#include "railyard/collectives/detail/patterns.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives::detail {

// The most a ring step sends as one message: a step's block goes in
// segments of this size, so that the reduction of one overlaps the arrival
// of the next. A segment is striped over every rail.
inline constexpr std::size_t kRingSegmentBytes = std::size_t{1} << 20;

// Reduce-scatter over `blocks` (one per rank, in rank order, contiguous)
// of this rank's input at `source` into `data` (the same address, or
// another vector as long): afterwards block r of rank r's data holds the
// reduction of every rank's block r (other blocks hold partial results, or
// nothing). On one rank nothing is written. `channel` must outlive the task
// (it is the caller's, which awaits the task).
CollectiveTask ring_reduce_scatter(const Channel& channel, const std::byte* source, std::byte* data,
                                   BlockLayout blocks, DataType type, ReduceOp op);

// The reduce-scatter of `args` over `layout`'s blocks of a vector of
// `total` elements: this rank's block of the result into args.recv.
CollectiveTask ring_reduce_scatter_to(const Channel& channel, const CollectiveArgs& args,
                                      BlockLayout layout, std::size_t total);

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
    std::array<Transfer, 2> exchange{
        channel.recv(data + blocks.offset(in) * element, in_bytes, ring.previous()),
        channel.send(data + blocks.offset(out) * element, blocks.length(out) * element,
                     ring.next())};
    co_await Transfers{exchange};
    channel.expect(exchange[0], in_bytes, ring.previous());
  }
}

}  // namespace railyard::collectives::detail

// Reduce-scatter around the ring: the vector is cut into one block per
// rank; in step s each rank passes its partial sum of block (r - s - 1) to
// the next rank and adds the previous rank's partial sum of block (r - s -
// 2) to its own, so after p - 1 steps rank r holds block r reduced over
// every rank. Each block is reduced once along one chain, so the result has
// one value whatever the rank. (p-1)/p of the vector each way. Any p.
//
// A step's block travels in segments, all posted at once: the reduction of
// one segment runs while the later ones are still arriving, so for large
// vectors the rails do not stand idle while the CPU adds.
#include "railyard/collectives/detail/ring.h"

#include <cstring>
#include <span>
#include <vector>

#include "railyard/collectives/detail/scratch.h"
#include "railyard/collectives/reduction.h"

namespace railyard::collectives::detail {

CollectiveTask ring_reduce_scatter(const Channel& channel, const std::byte* source, std::byte* data,
                                   BlockLayout blocks, DataType type, ReduceOp op) {
  const std::size_t element = size_of(type);
  const Ring ring{channel.rank(), channel.size()};
  const Segments segmented = Segments::of_bytes(kRingSegmentBytes, element);
  const auto parts = static_cast<std::size_t>(ring.size);
  const Scratch incoming(blocks.longest(parts) * element);
  for (int step = 0; step + 1 < ring.size; ++step) {
    const auto out = static_cast<std::size_t>(ring.before(step + 1));
    const auto in = static_cast<std::size_t>(ring.before(step + 2));
    // The first step passes this rank's own input on; later ones, the block
    // it reduced in the step before.
    const std::byte* sent = (step == 0 ? source : data) + blocks.offset(out) * element;
    const std::size_t in_count = blocks.length(in);
    const std::size_t out_count = blocks.length(out);
    // From the longest block, so that every rank cuts every block into as
    // many segments (some may be empty) and sends match receives.
    const std::size_t segments = segmented.count(blocks.longest(parts));
    std::vector<Transfer> receives;
    std::vector<Transfer> sends;
    receives.reserve(segments);
    sends.reserve(segments);
    for (std::size_t k = 0; k < segments; ++k) {
      receives.push_back(channel.recv(incoming.data() + segmented.first(k, in_count) * element,
                                      segmented.length(k, in_count) * element, ring.previous()));
      sends.push_back(channel.send(sent + segmented.first(k, out_count) * element,
                                   segmented.length(k, out_count) * element, ring.next()));
    }
    const std::byte* own = source + blocks.offset(in) * element;
    std::byte* block = data + blocks.offset(in) * element;
    for (std::size_t k = 0; k < segments; ++k) {
      co_await Transfers{std::span(&receives[k], 1)};
      const std::size_t first = segmented.first(k, in_count);
      const std::size_t length = segmented.length(k, in_count);
      channel.expect(receives[k], length * element, ring.previous());
      reduce(type, op, block + first * element, incoming.data() + first * element,
             own + first * element, length);
    }
    co_await Transfers{sends};
  }
}

CollectiveTask ring_reduce_scatter_to(const Channel& channel, const CollectiveArgs& args,
                                      BlockLayout layout, std::size_t total) {
  const std::size_t element = size_of(args.type);
  const int rank = channel.rank();
  const std::size_t bytes = layout.count(rank) * element;
  // The ring writes a whole vector of partial sums: the program's own when
  // in place, else one of its own (the receive buffer holds one block).
  Scratch partial;
  auto* data = static_cast<std::byte*>(args.recv);
  const auto* source = static_cast<const std::byte*>(args.in_place ? args.recv : args.send);
  if (!args.in_place) {
    partial = Scratch(total * element);
    data = partial.data();
    if (channel.size() == 1 && total != 0) {
      std::memcpy(data, source, total * element);  // no step reduces, or copies, anything
    }
  }
  co_await ring_reduce_scatter(channel, source, data, layout, args.type, args.op);
  auto* out = static_cast<std::byte*>(args.recv);
  const std::byte* mine = data + layout.offset(rank) * element;
  if (out != mine && bytes != 0) {
    std::memmove(out, mine, bytes);
  }
}

}  // namespace railyard::collectives::detail

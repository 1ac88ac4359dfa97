// Reduce-scatter around the ring: the vector is cut into one block per
// rank; in step s each rank passes its partial sum of block (r - s - 1) to
// the next rank and adds the previous rank's partial sum of block (r - s -
// 2) to its own, so after p - 1 steps rank r holds block r reduced over
// every rank. Each block is reduced once along one chain, so the result has
// one value whatever the rank. (p-1)/p of the vector each way. Any p.
#include <array>
#include <cstring>
#include <vector>

#include "railyard/comm/collectives/detail/algorithms.h"
#include "railyard/comm/collectives/reduction.h"

namespace railyard::comm::detail {

CollectiveTask ring_reduce_scatter(const Channel& channel, std::byte* data, Blocks blocks,
                                   DataType type, ReduceOp op) {
  const std::size_t element = size_of(type);
  const Ring ring{channel.rank(), channel.size()};
  std::vector<std::byte> incoming(blocks.longest() * element);
  for (int step = 0; step + 1 < ring.size; ++step) {
    const auto out = static_cast<std::size_t>(ring.before(step + 1));
    const auto in = static_cast<std::size_t>(ring.before(step + 2));
    const std::size_t in_bytes = blocks.length(in) * element;
    std::array<Request, 2> exchange{channel.recv(incoming.data(), in_bytes, ring.previous()),
                                    channel.send(data + blocks.offset(out) * element,
                                                 blocks.length(out) * element, ring.next())};
    co_await Transfers{exchange};
    channel.expect(exchange[0], in_bytes, ring.previous());
    std::byte* block = data + blocks.offset(in) * element;
    reduce(type, op, block, incoming.data(), block, blocks.length(in));
  }
}

CollectiveTask reduce_scatter_ring(Channel channel, CollectiveArgs args) {
  const std::size_t element = size_of(args.type);
  const auto parts = static_cast<std::size_t>(channel.size());
  const Blocks blocks{args.count * parts, parts};
  const std::size_t bytes = args.count * element;
  // The ring works on a whole vector of partial sums: the program's own
  // when in place, else a copy of its input.
  std::vector<std::byte> copy;
  auto* data = static_cast<std::byte*>(args.recv);
  if (!args.in_place) {
    copy.assign(static_cast<const std::byte*>(args.send),
                static_cast<const std::byte*>(args.send) + bytes * parts);
    data = copy.data();
  }
  co_await ring_reduce_scatter(channel, data, blocks, args.type, args.op);
  auto* out = static_cast<std::byte*>(args.recv);
  const std::byte* mine = data + blocks.offset(static_cast<std::size_t>(channel.rank())) * element;
  if (out != mine && bytes != 0) {
    std::memmove(out, mine, bytes);
  }
}

}  // namespace railyard::comm::detail

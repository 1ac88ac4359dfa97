// Allreduce around the ring, composed as UCC's is: a ring reduce-scatter
// leaves rank r with block r of the result, and a ring allgather hands
// every block to every rank. 2(p-1) steps of 1/p of the vector, each rank
// sending and receiving 2(p-1)/p of it in all: bandwidth-optimal, for large
// vectors. Every block is reduced once, so every rank gets the same bits.
// Any p.
#include <cstring>

#include "railyard/collectives/channel.h"
#include "railyard/collectives/detail/patterns.h"
#include "railyard/collectives/detail/ring.h"
#include "railyard/collectives/registry.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives::detail {
namespace {

CollectiveTask allreduce_ring(Channel channel, CollectiveArgs args) {
  const std::size_t element = size_of(args.type);
  auto* data = static_cast<std::byte*>(args.recv);
  const auto* source = static_cast<const std::byte*>(args.in_place ? args.recv : args.send);
  if (channel.size() == 1) {
    if (!args.in_place && args.count != 0) {
      std::memcpy(data, source, args.count * element);
    }
    co_return;
  }
  // The reduce-scatter reads the input where it is and writes the result
  // into the receive buffer: no copy of the input first.
  const Blocks blocks{args.count, static_cast<std::size_t>(channel.size())};
  const HeldLayout layout(blocks);
  co_await ring_reduce_scatter(channel, source, data, layout.view(), args.type, args.op);
  co_await ring_allgather(channel, data, blocks, element);
}

double allreduce_ring_cost(const CostQuery& query) {
  const double block = static_cast<double>(query.bytes) / query.ranks;
  return ring_us(query, block, true) + ring_us(query, block, false);
}

const Registration kAllreduceRing{
    Algorithm{Collective::kAllreduce, "ring",
              "ring reduce-scatter then ring allgather: 2(p-1) steps of 1/p of the vector",
              allreduce_ring, allreduce_ring_cost}};

}  // namespace
}  // namespace railyard::collectives::detail

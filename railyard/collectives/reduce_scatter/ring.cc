// Reduce-scatter around the ring (detail/ring.h): p - 1 steps, each
// reducing one block into what the previous rank passed on.
#include "railyard/collectives/detail/ring.h"
#include "railyard/collectives/registry.h"

namespace railyard::collectives {
namespace {

CollectiveTask reduce_scatter_ring(Channel channel, CollectiveArgs args) {
  const auto parts = static_cast<std::size_t>(channel.size());
  co_await detail::ring_reduce_scatter_to(channel, args, detail::BlockLayout{{}, {}, args.count},
                                          args.count * parts);
}

double reduce_scatter_ring_cost(const CostQuery& query) {
  return ring_us(query, static_cast<double>(query.bytes) / query.ranks, true);
}

const Registration kReduceScatterRing{
    Algorithm{Collective::kReduceScatter, "ring",
              "p-1 steps, each reducing one block into what the previous rank passed on",
              reduce_scatter_ring, reduce_scatter_ring_cost}};

}  // namespace
}  // namespace railyard::collectives

// Reduce-scatter of blocks of their own lengths around the ring
// (detail/ring.h), as MPI_Reduce_scatter's, whose blocks lie back to back
// in rank order.
#include <vector>

#include "railyard/collectives/detail/ring.h"
#include "railyard/collectives/registry.h"

namespace railyard::collectives {
namespace {

CollectiveTask reduce_scatterv_ring(Channel channel, CollectiveArgs args) {
  std::vector<std::size_t> displs;
  std::size_t total = 0;
  for (const std::size_t count : args.counts) {
    displs.push_back(total);
    total += count;
  }
  co_await detail::ring_reduce_scatter_to(channel, args,
                                          detail::BlockLayout{args.counts, displs, 0}, total);
}

// With equal counts, as the reduce_scatter ring.
double reduce_scatterv_ring_cost(const CostQuery& query) {
  return ring_us(query, static_cast<double>(query.bytes) / query.ranks, true);
}

const Registration kReduceScattervRing{Algorithm{
    Collective::kReduceScatterv, "ring",
    "p-1 steps, each reducing one block (of its own length) into what the previous rank passed "
    "on",
    reduce_scatterv_ring, reduce_scatterv_ring_cost}};

}  // namespace
}  // namespace railyard::collectives

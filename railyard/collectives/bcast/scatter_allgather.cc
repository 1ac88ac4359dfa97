// Broadcast of a long vector as a scatter and a ring allgather (van de
// Geijn's): the root sends rank r block r of p (scatter_linear), then the
// ring hands every block to every rank. Each rank receives about 2(p-1)/p
// of the vector in p steps (one from the root, p - 1 around the ring),
// instead of the binomial tree's whole vector per level, and the root's
// link sends (p-1)/p of it rather than log2 p copies. Any p.
#include "railyard/collectives/channel.h"
#include "railyard/collectives/detail/patterns.h"
#include "railyard/collectives/detail/ring.h"
#include "railyard/collectives/registry.h"
#include "railyard/collectives/scatter/linear.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives::detail {
namespace {

CollectiveTask bcast_scatter_allgather(Channel channel, CollectiveArgs args) {
  const std::size_t element = size_of(args.type);
  const int rank = channel.rank();
  const Blocks blocks{args.count, static_cast<std::size_t>(channel.size())};
  const HeldLayout layout(blocks);
  auto* data = static_cast<std::byte*>(args.recv);
  // The scatter as scatterv's, of the blocks in place in the one buffer.
  const auto mine = static_cast<std::size_t>(rank);
  co_await scatter_linear(channel, CollectiveArgs{.send = data,
                                                  .recv = data + blocks.offset(mine) * element,
                                                  .count = blocks.length(mine),
                                                  .type = args.type,
                                                  .root = args.root,
                                                  .counts = layout.counts,
                                                  .displs = layout.displs,
                                                  .in_place = rank == args.root});
  co_await ring_allgather(channel, data, blocks, element);
}

double bcast_scatter_allgather_cost(const CostQuery& query) {
  const double block = static_cast<double>(query.bytes) / query.ranks;
  return fan_step_us(query, block) + ring_us(query, block, false);
}

const Registration kBcastScatterAllgather{Algorithm{
    Collective::kBcast, "scatter_allgather",
    "the root scatters p blocks, then a ring allgather: for long vectors on 3 ranks or more",
    bcast_scatter_allgather, bcast_scatter_allgather_cost}};

}  // namespace
}  // namespace railyard::collectives::detail

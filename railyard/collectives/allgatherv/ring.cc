// Allgatherv around the ring: as the allgather ring, each block at its own
// place and of its own length. p - 1 steps. Any p.
#include <cstring>

#include "railyard/collectives/channel.h"
#include "railyard/collectives/detail/patterns.h"
#include "railyard/collectives/detail/ring.h"
#include "railyard/collectives/registry.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives::detail {
namespace {

CollectiveTask allgatherv_ring(Channel channel, CollectiveArgs args) {
  const std::size_t element = size_of(args.type);
  const BlockLayout layout{args.counts, args.displs, 0};
  auto* data = static_cast<std::byte*>(args.recv);
  const std::size_t mine = layout.count(channel.rank()) * element;
  if (!args.in_place && mine != 0) {
    std::memcpy(data + layout.offset(channel.rank()) * element, args.send, mine);
  }
  co_await ring_allgather(channel, data, layout, element);
}

// With equal counts, as the allgather ring.
double allgatherv_ring_cost(const CostQuery& query) {
  return ring_us(query, static_cast<double>(query.bytes) / query.ranks, false);
}

const Registration kAllgathervRing{
    Algorithm{Collective::kAllgatherv, "ring",
              "p-1 steps, each passing one rank's block (of its own length) to the next rank",
              allgatherv_ring, allgatherv_ring_cost}};

}  // namespace
}  // namespace railyard::collectives::detail

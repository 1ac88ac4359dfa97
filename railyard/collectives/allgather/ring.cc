// Allgather around the ring (ring_allgather): after p - 1 steps every rank
// holds every block. (p-1)/p of the result each way. Any p.
#include <cstring>

#include "railyard/collectives/channel.h"
#include "railyard/collectives/detail/patterns.h"
#include "railyard/collectives/detail/ring.h"
#include "railyard/collectives/registry.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives::detail {
namespace {

CollectiveTask allgather_ring(Channel channel, CollectiveArgs args) {
  const std::size_t element = size_of(args.type);
  const auto parts = static_cast<std::size_t>(channel.size());
  const std::size_t bytes = args.count * element;
  auto* data = static_cast<std::byte*>(args.recv);
  if (!args.in_place && bytes != 0) {
    std::memcpy(data + static_cast<std::size_t>(channel.rank()) * bytes, args.send, bytes);
  }
  co_await ring_allgather(channel, data, Blocks{args.count * parts, parts}, element);
}

double allgather_ring_cost(const CostQuery& query) {
  return ring_us(query, static_cast<double>(query.bytes) / query.ranks, false);
}

const Registration kAllgatherRing{Algorithm{
    Collective::kAllgather, "ring", "p-1 steps, each passing one rank's block to the next rank",
    allgather_ring, allgather_ring_cost}};

}  // namespace
}  // namespace railyard::collectives::detail

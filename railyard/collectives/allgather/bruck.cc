// Allgather by Bruck's algorithm, on any number of ranks: each rank starts
// with its own block first in a scratch vector; in the step at distance
// d = 1, 2, 4, ... it sends the first min(d, p - d) blocks it holds to rank
// r - d and appends as many from rank r + d, so after ceil(log2 p) steps it
// holds blocks r, r+1, ..., r+p-1 (mod p), which a rotation puts in rank
// order. log2 steps instead of the ring's p - 1: for small blocks.
#include <algorithm>
#include <array>
#include <cstring>

#include "railyard/collectives/allgather/bruck.h"
#include "railyard/collectives/channel.h"
#include "railyard/collectives/detail/scratch.h"
#include "railyard/collectives/registry.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives::detail {

CollectiveTask allgather_bruck(Channel channel, CollectiveArgs args) {
  const int size = channel.size();
  const int rank = channel.rank();
  const std::size_t block = args.count * size_of(args.type);
  const auto parts = static_cast<std::size_t>(size);
  auto* out = static_cast<std::byte*>(args.recv);
  const std::byte* own = args.in_place ? out + static_cast<std::size_t>(rank) * block
                                       : static_cast<const std::byte*>(args.send);
  const Scratch held(block * parts);
  if (block != 0) {
    std::memcpy(held.data(), own, block);
  }
  for (int distance = 1; distance < size; distance *= 2) {
    const auto count = static_cast<std::size_t>(std::min(distance, size - distance));
    const int to = (rank - distance + size) % size;
    const int from = (rank + distance) % size;
    const std::size_t bytes = count * block;
    std::array<Transfer, 2> exchange{
        channel.recv(held.data() + static_cast<std::size_t>(distance) * block, bytes, from),
        channel.send(held.data(), bytes, to)};
    co_await Transfers{exchange};
    channel.expect(exchange[0], bytes, from);
  }
  // held[i] is rank (rank + i) % size's block.
  for (std::size_t i = 0; i < parts && block != 0; ++i) {
    const std::size_t owner = (static_cast<std::size_t>(rank) + i) % parts;
    std::memcpy(out + owner * block, held.data() + i * block, block);
  }
}

double allgather_bruck_cost(const CostQuery& query) {
  // Each step sends min(d, p - d) blocks to rank r - d; then the rotation
  // of the whole result.
  const double block = static_cast<double>(query.bytes) / query.ranks;
  double total = copy_us(query, static_cast<double>(query.bytes));
  for (int distance = 1; distance < query.ranks; distance *= 2) {
    total += shift_step_us(query, block * std::min(distance, query.ranks - distance),
                           query.ranks - distance);
  }
  return total;
}

namespace {

const Registration kAllgatherBruck{
    Algorithm{Collective::kAllgather, "bruck",
              "ceil(log2 p) steps, each passing the blocks held so far to rank r - d (any p): "
              "for small blocks",
              allgather_bruck, allgather_bruck_cost}};

}  // namespace
}  // namespace railyard::collectives::detail

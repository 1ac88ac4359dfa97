// Alltoall as Bruck's: each rank rotates its blocks so that block i is the
// one for rank r + i; then at distance 1, 2, 4, ... below p it sends every
// block whose index has that bit set to rank r + distance (packed as one
// message) and takes the same places from rank r - distance; after
// ceil(log2 p) steps place i holds the block from rank r - i, which a last
// rotation puts in order. About p/2 blocks a step: few messages where the
// pairwise exchange sends p - 1, for short blocks on many ranks. Any p.
#include <array>
#include <cstring>

#include "railyard/collectives/channel.h"
#include "railyard/collectives/detail/scratch.h"
#include "railyard/collectives/registry.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives::detail {
namespace {

CollectiveTask alltoall_bruck(Channel channel, CollectiveArgs args) {
  const int size = channel.size();
  const int rank = channel.rank();
  const std::size_t block = args.count * size_of(args.type);
  const auto places = static_cast<std::size_t>(size);
  auto* out = static_cast<std::byte*>(args.recv);
  const auto* in = static_cast<const std::byte*>(args.in_place ? args.recv : args.send);
  const auto other = [&](int r) { return static_cast<std::size_t>((r % size + size) % size); };
  // Place i: the block for rank + i (in place too: read before any write).
  Scratch rotated(block * places);
  if (block != 0) {
    for (int i = 0; i < size; ++i) {
      std::memcpy(rotated.data() + static_cast<std::size_t>(i) * block,
                  in + other(rank + i) * block, block);
    }
  }
  const std::size_t most = (places / 2 + 1) * block;
  Scratch outgoing(most);
  Scratch incoming(most);
  for (int distance = 1; distance < size; distance *= 2) {
    std::size_t moved = 0;
    for (int i = distance; i < size; ++i) {
      if ((i & distance) != 0 && block != 0) {
        std::memcpy(outgoing.data() + moved * block,
                    rotated.data() + static_cast<std::size_t>(i) * block, block);
      }
      moved += static_cast<std::size_t>((i & distance) != 0);
    }
    const int to = static_cast<int>(other(rank + distance));
    const int from = static_cast<int>(other(rank - distance));
    std::array<Transfer, 2> exchange{channel.recv(incoming.data(), moved * block, from),
                                     channel.send(outgoing.data(), moved * block, to)};
    co_await Transfers{exchange};
    channel.expect(exchange[0], moved * block, from);
    std::size_t taken = 0;
    for (int i = distance; i < size && block != 0; ++i) {
      if ((i & distance) != 0) {
        std::memcpy(rotated.data() + static_cast<std::size_t>(i) * block,
                    incoming.data() + taken * block, block);
        ++taken;
      }
    }
  }
  // Place i holds the block from rank - i.
  if (block != 0) {
    for (int i = 0; i < size; ++i) {
      std::memcpy(out + other(rank - i) * block,
                  rotated.data() + static_cast<std::size_t>(i) * block, block);
    }
  }
}

// Two rotations, and at each distance about half the blocks packed, sent
// and unpacked.
double alltoall_bruck_cost(const CostQuery& query) {
  const auto bytes = static_cast<double>(query.bytes);
  const double block = bytes / query.ranks;
  double total = 2 * copy_us(query, bytes);
  for (int distance = 1; distance < query.ranks; distance *= 2) {
    int moved = 0;
    for (int i = distance; i < query.ranks; ++i) {
      moved += static_cast<int>((i & distance) != 0);
    }
    total += shift_step_us(query, moved * block, distance) + 2 * copy_us(query, moved * block);
  }
  return total;
}

const Registration kAlltoallBruck{
    Algorithm{Collective::kAlltoall, "bruck",
              "ceil(log2 p) steps, each sending the blocks whose place has that bit set, packed: "
              "short blocks on many ranks",
              alltoall_bruck, alltoall_bruck_cost}};

}  // namespace
}  // namespace railyard::collectives::detail

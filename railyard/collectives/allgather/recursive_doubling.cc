// Allgather by recursive doubling. On a power of two ranks, the exchange
// at distance d = 1, 2, 4, ... is with rank r ^ d: each sends the d blocks
// its half of the pair holds and takes the partner's, straight into their
// places, with no copy beyond its own block. Partners 1, 2, ... apart stay
// on one host as launchers number the ranks, where Bruck's shifts cross a
// host boundary at every step. On other rank counts, Bruck's algorithm
// (allgather/bruck.h). log2 steps instead of the ring's p - 1: for small
// blocks.
#include <array>
#include <cstring>
#include <utility>

#include "railyard/collectives/allgather/bruck.h"
#include "railyard/collectives/channel.h"
#include "railyard/collectives/registry.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives::detail {
namespace {

CollectiveTask allgather_recursive_doubling(Channel channel, CollectiveArgs args) {
  const int size = channel.size();
  if (!is_pow2(size)) {
    co_await allgather_bruck(std::move(channel), args);
    co_return;
  }
  const int rank = channel.rank();
  const std::size_t block = args.count * size_of(args.type);
  auto* out = static_cast<std::byte*>(args.recv);
  if (!args.in_place && block != 0) {
    std::memcpy(out + static_cast<std::size_t>(rank) * block, args.send, block);
  }
  // Rank r holds blocks (r & ~(d - 1)) .. + d - 1 before the step at d.
  for (int distance = 1; distance < size; distance *= 2) {
    const int partner = rank ^ distance;
    const auto mine = static_cast<std::size_t>(rank & ~(distance - 1));
    const auto theirs = static_cast<std::size_t>(partner & ~(distance - 1));
    const std::size_t bytes = static_cast<std::size_t>(distance) * block;
    std::array<Transfer, 2> exchange{channel.recv(out + theirs * block, bytes, partner),
                                     channel.send(out + mine * block, bytes, partner)};
    co_await Transfers{exchange};
    channel.expect(exchange[0], bytes, partner);
  }
}

double allgather_recursive_doubling_cost(const CostQuery& query) {
  if (!is_pow2(query.ranks)) {
    return allgather_bruck_cost(query);
  }
  const double block = static_cast<double>(query.bytes) / query.ranks;
  double total = 0.0;
  for (int distance = 1; distance < query.ranks; distance *= 2) {
    total += xor_step_us(query, block * distance, distance);
  }
  return total;
}

const Registration kAllgatherRecursiveDoubling{
    Algorithm{Collective::kAllgather, "recursive_doubling",
              "log2 p exchanges with rank r xor d, doubling the blocks held (Bruck's when p is "
              "no power of two): for small blocks",
              allgather_recursive_doubling, allgather_recursive_doubling_cost}};

}  // namespace
}  // namespace railyard::collectives::detail

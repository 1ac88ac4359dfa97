// Allgather by recursive doubling. On a power of two ranks, the exchange
// at distance d = 1, 2, 4, ... is with rank r ^ d: each sends the d blocks
// its half of the pair holds and takes the partner's, straight into their
// places; the largest exchanges are between far ranks, but partners 1, 2,
// ... apart stay on one host as launchers number the ranks, where a shift
// by d crosses a host boundary at every step. On other rank counts, Bruck's:
// each rank starts with its own block first in a scratch vector; in the
// step at distance d it sends the first min(d, p - d) blocks it holds to
// rank r - d and appends as many from rank r + d, so after ceil(log2 p)
// steps it holds blocks r, r+1, ..., r+p-1 (mod p), which a rotation puts
// in rank order. log2 steps instead of the ring's p - 1: for small blocks.
#include <algorithm>
#include <array>
#include <cstring>

#include "railyard/collectives/channel.h"
#include "railyard/collectives/detail/scratch.h"
#include "railyard/collectives/registry.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives::detail {
namespace {

bool power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

// Rank r holds blocks (r & ~(d - 1)) .. + d - 1 before the step at d.
CollectiveTask allgather_doubling(const Channel& channel, std::byte* out, std::size_t block) {
  const int rank = channel.rank();
  for (int distance = 1; distance < channel.size(); distance *= 2) {
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

CollectiveTask allgather_bruck(Channel channel, CollectiveArgs args) {
  const int size = channel.size();
  const int rank = channel.rank();
  const std::size_t block = args.count * size_of(args.type);
  const auto parts = static_cast<std::size_t>(size);
  auto* out = static_cast<std::byte*>(args.recv);
  const std::byte* own = args.in_place ? out + static_cast<std::size_t>(rank) * block
                                       : static_cast<const std::byte*>(args.send);
  if (power_of_two(size)) {
    if (!args.in_place && block != 0) {
      std::memcpy(out + static_cast<std::size_t>(rank) * block, own, block);
    }
    co_await allgather_doubling(channel, out, block);
    co_return;
  }
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

// On a power of two, log2 p exchanges with the partner at each bit; else
// each step sends min(d, p - d) blocks to rank r - d, plus the final
// rotation of the whole result.
double allgather_bruck_cost(const CostQuery& query) {
  const double block = static_cast<double>(query.bytes) / query.ranks;
  if (power_of_two(query.ranks)) {
    double total = 0.0;
    for (int distance = 1; distance < query.ranks; distance *= 2) {
      total += xor_step_us(query, block * distance, distance);
    }
    return total;
  }
  double total = copy_us(query, static_cast<double>(query.bytes));
  for (int distance = 1; distance < query.ranks; distance *= 2) {
    total += shift_step_us(query, block * std::min(distance, query.ranks - distance),
                           query.ranks - distance);
  }
  return total;
}

const Registration kAllgatherRecursiveDoubling{
    Algorithm{Collective::kAllgather, "recursive_doubling",
              "ceil(log2 p) steps doubling the blocks held (with rank r xor d on a power of two, "
              "Bruck's otherwise): for small blocks",
              allgather_bruck, allgather_bruck_cost}};

}  // namespace
}  // namespace railyard::collectives::detail

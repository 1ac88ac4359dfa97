// Allreduce by recursive doubling: in step k each taking-part rank swaps
// its whole vector with the rank whose number differs in bit k and reduces
// the two, so after log2 steps every one holds the reduction of all. With p
// not a power of two, each of the first 2 * (p - 2^floor(log2 p)) ranks pairs
// up first: the even one folds its vector into the odd one and sits out,
// getting the result back at the end. Partners reduce in rank order (the
// lower rank's vector on the left), so both compute the same bits. For
// small vectors, and for two ranks at any size (one swap moves the least).
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <vector>

#include "railyard/collectives/allreduce/recursive_doubling.h"
#include "railyard/collectives/channel.h"
#include "railyard/collectives/detail/doubling.h"
#include "railyard/collectives/detail/patterns.h"
#include "railyard/collectives/detail/ring.h"
#include "railyard/collectives/detail/scratch.h"
#include "railyard/collectives/reduction.h"
#include "railyard/collectives/registry.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives::detail {
namespace {

CollectiveTask allreduce_recursive_doubling(Channel channel, CollectiveArgs args) {
  const std::size_t bytes = args.count * size_of(args.type);
  auto* data = static_cast<std::byte*>(args.recv);
  const int rank = channel.rank();
  const Doubling doubling{rank, channel.size()};
  // Out of place on a power of two, the first swap sends from the send
  // buffer and reduces into the receive buffer: no copy of the vector
  // first.
  const bool copy_first = !args.in_place && (doubling.extra() != 0 || doubling.power() == 1);
  if (copy_first && bytes != 0) {
    std::memcpy(data, args.send, bytes);
  }
  const auto* mine = args.in_place || copy_first ? data : static_cast<const std::byte*>(args.send);
  // A rank that folds needs no scratch.
  const Scratch theirs(doubling.folds() ? 0 : bytes);
  co_await fold_in(channel, doubling, data, theirs.data(), args.count, args.type, args.op);
  if (doubling.folds()) {
    co_return;
  }
  const int member = doubling.member();
  const std::size_t element = size_of(args.type);
  // A long vector's swap goes in segments of whole elements, all posted at
  // once, each reduced as soon as it has arrived and this rank's own has
  // left (the reduction may overwrite what is sent): the reduction of one
  // overlaps the transfer of the rest instead of following the whole swap.
  const Segments segmented = bytes >= kSegmentedSwapFrom
                                 ? Segments::of_bytes(kRingSegmentBytes, element)
                                 : Segments{std::max<std::size_t>(args.count, 1)};
  const std::size_t segments = segmented.count(args.count);
  std::vector<std::array<Transfer, 2>> swaps;
  swaps.reserve(segments);
  for (int distance = 1; distance < doubling.power(); distance *= 2) {
    const int partner = doubling.rank_of(member ^ distance);
    swaps.clear();
    for (std::size_t k = 0; k < segments; ++k) {
      const std::size_t at = segmented.first(k, args.count) * element;
      const std::size_t length = segmented.length(k, args.count) * element;
      swaps.push_back({channel.recv(theirs.data() + at, length, partner),
                       channel.send(mine + at, length, partner)});
    }
    for (std::size_t k = 0; k < segments; ++k) {
      co_await Transfers{swaps[k]};
      const std::size_t length = segmented.length(k, args.count);
      channel.expect(swaps[k][0], length * element, partner);
      const std::size_t at = segmented.first(k, args.count) * element;
      std::byte* out = data + at;
      const std::byte* own = mine + at;
      const std::byte* peer = theirs.data() + at;
      // The lower rank's vector on the left.
      if (partner < rank) {
        reduce(args.type, args.op, out, peer, own, length);
      } else {
        reduce(args.type, args.op, out, own, peer, length);
      }
    }
    mine = data;
  }
  co_await hand_back(channel, doubling, data, bytes);
}

double allreduce_recursive_doubling_cost(const CostQuery& query) {
  const auto bytes = static_cast<double>(query.bytes);
  double total = fold_us(query, bytes, true);
  for (int mask = 1; mask < floor_pow2(query.ranks); mask *= 2) {
    total += xor_step_us(query, bytes, mask) + reduce_us(query, bytes);
  }
  return total;
}

const Registration kAllreduceRecursiveDoubling{
    Algorithm{Collective::kAllreduce, "recursive_doubling",
              "log2 steps exchanging the whole vector; ranks past a power of two fold in first",
              allreduce_recursive_doubling, allreduce_recursive_doubling_cost}};

}  // namespace
}  // namespace railyard::collectives::detail

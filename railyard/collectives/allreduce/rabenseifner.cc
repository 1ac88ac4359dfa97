// Allreduce as Rabenseifner's: a reduce-scatter by recursive halving, then
// an allgather by recursive doubling. Ranks past the largest power of two
// p' fold into a neighbour first and get the result back at the end (as in
// recursive doubling). Among the p' members, at distance 1, 2, ..., p'/2
// a member keeps one half of its window of blocks, sends the other half to
// its partner and reduces the partner's copy of its own half into it; after
// log2 p' steps each member holds one block reduced over every rank, and
// the same steps backwards hand every block to every member. 2 log2 p'
// steps moving 2(p'-1)/p' of the vector: the ring's volume in fewer steps,
// for medium vectors. Each block is reduced by one member only, so every
// rank gets the same bits. Any p.
//
// The nearest partner goes first, as in Open MPI's reduce-scatter +
// allgather: the first step moves half the vector, the last a p'-th of it.
// Launchers number the ranks of a host one after another (mpirun by slot,
// srun by block), so the halves cross within a host and only the small
// steps cross the network: on 2 hosts of 2 ranks each host sends the
// vector once each way, where the farthest partner first had it send the
// vector twice.
#include <array>
#include <cstring>
#include <vector>

#include "railyard/collectives/channel.h"
#include "railyard/collectives/detail/doubling.h"
#include "railyard/collectives/detail/patterns.h"
#include "railyard/collectives/detail/scratch.h"
#include "railyard/collectives/reduction.h"
#include "railyard/collectives/registry.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives::detail {
namespace {

// Blocks lo .. hi-1 of the vector.
struct Window {
  std::size_t lo;
  std::size_t hi;
};

CollectiveTask allreduce_rabenseifner(Channel channel, CollectiveArgs args) {
  const std::size_t element = size_of(args.type);
  const std::size_t bytes = args.count * element;
  auto* data = static_cast<std::byte*>(args.recv);
  const Doubling doubling{channel.rank(), channel.size()};
  // Out of place on a power of two, the first halving step sends from the
  // send buffer and reduces into the receive buffer, as recursive doubling
  // does: no copy of the whole vector first (8 % of the samples of a 2 MiB
  // allreduce on 4 ranks of one host were that copy).
  const bool copy_first = !args.in_place && (doubling.extra() != 0 || doubling.power() == 1);
  if (copy_first && bytes != 0) {
    std::memcpy(data, args.send, bytes);
  }
  const auto* input = args.in_place || copy_first ? data : static_cast<const std::byte*>(args.send);
  // A rank that folds needs no scratch.
  const Scratch incoming(doubling.folds() ? 0 : bytes);
  co_await fold_in(channel, doubling, data, incoming.data(), args.count, args.type, args.op);
  if (doubling.folds()) {
    co_return;
  }
  const auto members = static_cast<std::size_t>(doubling.power());
  const auto member = static_cast<std::size_t>(doubling.member());
  const Blocks blocks{args.count, members};
  // Where window `w` lies in the vector, in elements.
  const auto first = [&](Window w) { return blocks.offset(w.lo); };
  const auto length = [&](Window w) { return blocks.offset(w.hi) - blocks.offset(w.lo); };
  // Reduce-scatter by recursive halving; `parents` records each step's
  // window for the way back.
  std::vector<Window> parents;
  Window mine{0, members};
  for (std::size_t distance = 1; distance < members; distance *= 2) {
    const int partner = doubling.rank_of(static_cast<int>(member ^ distance));
    const std::size_t middle = mine.lo + (mine.hi - mine.lo) / 2;
    const bool lower = (member & distance) == 0;
    const Window keep = lower ? Window{mine.lo, middle} : Window{middle, mine.hi};
    const Window give = lower ? Window{middle, mine.hi} : Window{mine.lo, middle};
    const std::size_t in_bytes = length(keep) * element;
    std::array<Transfer, 2> swap{
        channel.recv(incoming.data(), in_bytes, partner),
        channel.send(input + first(give) * element, length(give) * element, partner)};
    co_await Transfers{swap};
    channel.expect(swap[0], in_bytes, partner);
    std::byte* kept = data + first(keep) * element;
    const std::byte* own = input + first(keep) * element;
    // The lower member's data on the left, whichever rank reduces.
    if (lower) {
      reduce(args.type, args.op, kept, own, incoming.data(), length(keep));
    } else {
      reduce(args.type, args.op, kept, incoming.data(), own, length(keep));
    }
    input = data;  // every later step works inside the window just written
    parents.push_back(mine);
    mine = keep;
  }
  // Allgather: the same pairs, in reverse order (the farthest first).
  for (std::size_t step = parents.size(); step-- > 0;) {
    const auto distance = std::size_t{1} << step;
    const int partner = doubling.rank_of(static_cast<int>(member ^ distance));
    const Window parent = parents[step];
    const std::size_t middle = parent.lo + (parent.hi - parent.lo) / 2;
    const Window theirs =
        mine.lo == parent.lo ? Window{middle, parent.hi} : Window{parent.lo, middle};
    const std::size_t in_bytes = length(theirs) * element;
    std::array<Transfer, 2> swap{
        channel.recv(data + first(theirs) * element, in_bytes, partner),
        channel.send(data + first(mine) * element, length(mine) * element, partner)};
    co_await Transfers{swap};
    channel.expect(swap[0], in_bytes, partner);
    mine = parent;
  }
  co_await hand_back(channel, doubling, data, bytes);
}

// Halving from the nearest partner, doubling back from the farthest; each
// step's share of the vector halves (then doubles) as the distance grows
// (then shrinks).
double allreduce_rabenseifner_cost(const CostQuery& query) {
  const auto bytes = static_cast<double>(query.bytes);
  return fold_us(query, bytes, true) + 2 * halving_exchanges_us(query, bytes, true) +
         halving_reduce_us(query, bytes);
}

const Registration kAllreduceRabenseifner{Algorithm{
    Collective::kAllreduce, "rabenseifner",
    "reduce-scatter by recursive halving, allgather by recursive doubling: 2 log2 p steps",
    allreduce_rabenseifner, allreduce_rabenseifner_cost}};

}  // namespace
}  // namespace railyard::collectives::detail

// Scatter down a binomial tree from the root (detail/patterns.h): the root
// hands each child the run of blocks of that child's subtree (the ranks
// after it, counted from the root), the largest first, and each rank keeps
// its own block and passes its children theirs. ceil(log2 p) steps; the
// root sends log2 p messages where the linear scatter sends p - 1, for
// short blocks on many ranks. Any p.
#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "railyard/collectives/channel.h"
#include "railyard/collectives/detail/patterns.h"
#include "railyard/collectives/detail/scratch.h"
#include "railyard/collectives/registry.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives::detail {
namespace {

CollectiveTask scatter_binomial(Channel channel, CollectiveArgs args) {
  const BinomialTree tree{channel.rank(), channel.size(), args.root};
  const std::size_t block = args.count * size_of(args.type);
  const int me = tree.relative();
  // This rank's subtree: ranks me .. me + span - 1, counted from the root.
  const int span = std::min(tree.reach(), tree.size - me);
  // The run of the subtree's blocks, this rank's first.
  Scratch run(block * static_cast<std::size_t>(span));
  if (me == 0) {
    // Block k of the run is rank root + k's.
    const auto* in = static_cast<const std::byte*>(args.send);
    for (int k = 0; k < tree.size && block != 0; ++k) {
      std::memcpy(run.data() + static_cast<std::size_t>(k) * block,
                  in + static_cast<std::size_t>(tree.absolute(k)) * block, block);
    }
  } else {
    std::array<Transfer, 1> take{channel.recv(run.data(), run.size(), tree.parent())};
    co_await Transfers{take};
    channel.expect(take[0], run.size(), tree.parent());
  }
  std::vector<Transfer> gives;
  for (const int child : tree.children()) {
    const int first = (child - args.root + tree.size) % tree.size;
    const int blocks = std::min(first - me, tree.size - first);
    gives.push_back(channel.send(run.data() + static_cast<std::size_t>(first - me) * block,
                                 static_cast<std::size_t>(blocks) * block, child));
  }
  // The root's own block stays where it is in place.
  if (block != 0 && !(me == 0 && args.in_place)) {
    std::memcpy(args.recv, run.data(), block);
  }
  co_await Transfers{gives};
}

// Down the tree, the farthest subtrees first: at distance d a run of d
// blocks.
double scatter_binomial_cost(const CostQuery& query) {
  const double block = static_cast<double>(query.bytes) / query.ranks;
  return copy_us(query, static_cast<double>(query.bytes)) + binomial_blocks_us(query, block);
}

const Registration kScatterBinomial{
    Algorithm{Collective::kScatter, "binomial",
              "down a binomial tree, each rank passing on its subtree's blocks in one message: "
              "short blocks on many ranks",
              scatter_binomial, scatter_binomial_cost}};

}  // namespace
}  // namespace railyard::collectives::detail

// Gather up a binomial tree into the root (detail/patterns.h): a rank
// takes the blocks of its children's subtrees, which follow its own in the
// ranks' order counted from the root, and passes the whole run to its
// parent. ceil(log2 p) steps; the root takes log2 p messages where the
// linear gather takes p - 1, for short blocks on many ranks. The root puts
// the runs, in order from itself, in their places. Any p.
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

CollectiveTask gather_binomial(Channel channel, CollectiveArgs args) {
  const BinomialTree tree{channel.rank(), channel.size(), args.root};
  const std::size_t block = args.count * size_of(args.type);
  const int me = tree.relative();
  // This rank's subtree: ranks me .. me + span - 1, counted from the root.
  const int span = std::min(tree.reach(), tree.size - me);
  // The run of the subtree's blocks, this rank's first.
  Scratch run(block * static_cast<std::size_t>(span));
  const bool root = me == 0;
  const auto* own = static_cast<const std::byte*>(
      root && args.in_place
          ? static_cast<const std::byte*>(args.recv) + static_cast<std::size_t>(args.root) * block
          : args.send);
  if (block != 0) {
    std::memcpy(run.data(), own, block);
  }
  std::vector<Transfer> takes;
  std::vector<int> from;
  std::vector<std::size_t> expected;
  for (const int child : tree.children()) {
    const int first = (child - args.root + tree.size) % tree.size;
    const int blocks = std::min(first - me, tree.size - first);
    const std::size_t bytes = static_cast<std::size_t>(blocks) * block;
    takes.push_back(
        channel.recv(run.data() + static_cast<std::size_t>(first - me) * block, bytes, child));
    from.push_back(child);
    expected.push_back(bytes);
  }
  co_await Transfers{takes};
  for (std::size_t i = 0; i < takes.size(); ++i) {
    channel.expect(takes[i], expected[i], from[i]);
  }
  if (!root) {
    std::array<Transfer, 1> give{channel.send(run.data(), run.size(), tree.parent())};
    co_await Transfers{give};
    co_return;
  }
  // Block k of the run is rank root + k's.
  auto* out = static_cast<std::byte*>(args.recv);
  for (int k = 0; k < tree.size && block != 0; ++k) {
    std::memcpy(out + static_cast<std::size_t>(tree.absolute(k)) * block,
                run.data() + static_cast<std::size_t>(k) * block, block);
  }
}

// Up the tree, the nearest subtrees first: at distance d a run of d blocks.
double gather_binomial_cost(const CostQuery& query) {
  const double block = static_cast<double>(query.bytes) / query.ranks;
  return copy_us(query, static_cast<double>(query.bytes)) + binomial_blocks_us(query, block);
}

const Registration kGatherBinomial{
    Algorithm{Collective::kGather, "binomial",
              "up a binomial tree, each rank passing its subtree's blocks in one message: short "
              "blocks on many ranks",
              gather_binomial, gather_binomial_cost}};

}  // namespace
}  // namespace railyard::collectives::detail

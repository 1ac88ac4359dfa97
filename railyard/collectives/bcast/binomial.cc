// Broadcast down a binomial tree rooted at the root (detail/patterns.h):
// a rank receives the vector from its parent, then passes it to all its
// children at once. ceil(log2 p) steps, the whole vector each; for small
// vectors. Any p.
#include <array>
#include <cstddef>
#include <vector>

#include "railyard/collectives/channel.h"
#include "railyard/collectives/detail/patterns.h"
#include "railyard/collectives/registry.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives::detail {
namespace {

CollectiveTask bcast_binomial(Channel channel, CollectiveArgs args) {
  const BinomialTree tree{channel.rank(), channel.size(), args.root};
  const std::size_t bytes = args.count * size_of(args.type);
  if (const int parent = tree.parent(); parent >= 0) {
    std::array<Transfer, 1> from_parent{channel.recv(args.recv, bytes, parent)};
    co_await Transfers{from_parent};
    channel.expect(from_parent[0], bytes, parent);
  }
  std::vector<Transfer> to_children;
  for (const int child : tree.children()) {
    to_children.push_back(channel.send(args.recv, bytes, child));
  }
  co_await Transfers{to_children};
}

double bcast_binomial_cost(const CostQuery& query) {
  return binomial_us(query, static_cast<double>(query.bytes), false);
}

const Registration kBcastBinomial{
    Algorithm{Collective::kBcast, "binomial",
              "binomial tree from the root: ceil(log2 p) steps, the whole vector each",
              bcast_binomial, bcast_binomial_cost}};

}  // namespace
}  // namespace railyard::collectives::detail

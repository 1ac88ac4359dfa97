// Reduce to the root up a binomial tree rooted at it (detail/patterns.h):
// a rank adds what each child sends, the nearest child first (its own
// partial on the left), then sends its partial to its parent. ceil(log2 p)
// steps, the whole vector each; for small vectors. Any p.
#include <array>
#include <cstring>
#include <vector>

#include "railyard/collectives/channel.h"
#include "railyard/collectives/detail/patterns.h"
#include "railyard/collectives/detail/scratch.h"
#include "railyard/collectives/reduction.h"
#include "railyard/collectives/registry.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives::detail {
namespace {

CollectiveTask reduce_binomial(Channel channel, CollectiveArgs args) {
  const BinomialTree tree{channel.rank(), channel.size(), args.root};
  const std::size_t bytes = args.count * size_of(args.type);
  // The partial result: the root's receive buffer, else a buffer of this
  // rank's own (its receive buffer means nothing here).
  Scratch own;
  std::byte* partial = nullptr;
  if (tree.parent() < 0) {
    partial = static_cast<std::byte*>(args.recv);
  } else {
    own = Scratch(bytes);
    partial = own.data();
  }
  if (!args.in_place && bytes != 0) {
    std::memcpy(partial, args.send, bytes);
  }
  const Scratch incoming(bytes);
  const std::vector<int> children = tree.children();
  for (std::size_t k = children.size(); k-- > 0;) {  // the nearest first
    const int child = children[k];
    std::array<Transfer, 1> from_child{channel.recv(incoming.data(), bytes, child)};
    co_await Transfers{from_child};
    channel.expect(from_child[0], bytes, child);
    reduce(args.type, args.op, partial, partial, incoming.data(), args.count);
  }
  if (const int parent = tree.parent(); parent >= 0) {
    std::array<Transfer, 1> to_parent{channel.send(partial, bytes, parent)};
    co_await Transfers{to_parent};
  }
}

double reduce_binomial_cost(const CostQuery& query) {
  return binomial_us(query, static_cast<double>(query.bytes), true);
}

const Registration kReduceBinomial{
    Algorithm{Collective::kReduce, "binomial",
              "binomial tree into the root: ceil(log2 p) steps, the whole vector each",
              reduce_binomial, reduce_binomial_cost}};

}  // namespace
}  // namespace railyard::collectives::detail

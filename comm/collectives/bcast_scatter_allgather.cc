// Broadcast of a long vector as a scatter and a ring allgather (van de
// Geijn's): the root sends rank r block r of p, then the ring hands every
// block to every rank. Each rank receives about 2(p-1)/p of the vector, in
// 2(p-1)... p steps, instead of the binomial tree's whole vector per level,
// and the root's link sends (p-1)/p of it rather than log2 p copies. Any p.
#include <vector>

#include "railyard/comm/collectives/detail/algorithms.h"

namespace railyard::comm::detail {

CollectiveTask bcast_scatter_allgather(Channel channel, CollectiveArgs args) {
  const std::size_t element = size_of(args.type);
  const int rank = channel.rank();
  const auto parts = static_cast<std::size_t>(channel.size());
  const Blocks blocks{args.count, parts};
  auto* data = static_cast<std::byte*>(args.recv);
  const auto block_of = [&](int r) {
    const auto i = static_cast<std::size_t>(r);
    return std::pair{data + blocks.offset(i) * element, blocks.length(i) * element};
  };
  if (rank == args.root) {
    std::vector<Request> scatter;
    for (int other = 0; other < channel.size(); ++other) {
      if (other != rank) {
        const auto [at, bytes] = block_of(other);
        scatter.push_back(channel.send(at, bytes, other));
      }
    }
    co_await Transfers{scatter};
  } else {
    const auto [at, bytes] = block_of(rank);
    std::vector<Request> mine;
    mine.push_back(channel.recv(at, bytes, args.root));
    co_await Transfers{mine};
    channel.expect(mine[0], bytes, args.root);
  }
  co_await ring_allgather(channel, data, blocks, element);
}

}  // namespace railyard::comm::detail

// Broadcast down a binomial tree rooted at the root: ranks numbered from
// the root; a rank receives the vector from the rank that differs in its
// lowest set bit, then passes it to the ranks its lower bits reach, the
// farthest first. ceil(log2 p) steps, the whole vector each; for small
// vectors. Any p.
#include <array>
#include <cstddef>
#include <vector>

#include "railyard/comm/collectives/detail/algorithms.h"

namespace railyard::comm::detail {

CollectiveTask bcast_binomial(Channel channel, CollectiveArgs args) {
  const int size = channel.size();
  const int relative = (channel.rank() - args.root + size) % size;
  const std::size_t bytes = args.count * size_of(args.type);
  const auto absolute = [&](int r) { return (r + args.root) % size; };
  int mask = 1;
  while (mask < size) {
    if ((relative & mask) != 0) {
      std::array<Request, 1> parent{channel.recv(args.recv, bytes, absolute(relative - mask))};
      co_await Transfers{parent};
      channel.expect(parent[0], bytes, absolute(relative - mask));
      break;
    }
    mask <<= 1;
  }
  // The children: relative + m for each m below this rank's lowest set bit
  // (below size for the root), all at once.
  std::vector<Request> children;
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (relative + mask < size) {
      children.push_back(channel.send(args.recv, bytes, absolute(relative + mask)));
    }
  }
  co_await Transfers{children};
}

}  // namespace railyard::comm::detail

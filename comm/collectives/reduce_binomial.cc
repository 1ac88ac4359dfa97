// Reduce to the root up a binomial tree: ranks numbered from the root; in
// step k a rank whose number has bit k set sends its partial result to the
// rank without it and leaves, the other adds what it receives (its own
// partial on the left, the higher-numbered rank's on the right). ceil(log2
// p) steps, the whole vector each; for small vectors. Any p.
#include <array>
#include <cstring>
#include <vector>

#include "railyard/comm/collectives/detail/algorithms.h"
#include "railyard/comm/collectives/reduction.h"

namespace railyard::comm::detail {

CollectiveTask reduce_binomial(Channel channel, CollectiveArgs args) {
  const int size = channel.size();
  const int relative = (channel.rank() - args.root + size) % size;
  const std::size_t bytes = args.count * size_of(args.type);
  const auto absolute = [&](int r) { return (r + args.root) % size; };
  // The partial result: the root's receive buffer, else a buffer of this
  // rank's own (its receive buffer means nothing here).
  std::vector<std::byte> own;
  std::byte* partial = nullptr;
  if (relative == 0) {
    partial = static_cast<std::byte*>(args.recv);
  } else {
    own.resize(bytes);
    partial = own.data();
  }
  if (!(relative == 0 && args.in_place) && bytes != 0) {
    std::memcpy(partial, args.send, bytes);
  }
  std::vector<std::byte> incoming(bytes);
  for (int mask = 1; mask < size; mask <<= 1) {
    if ((relative & mask) != 0) {
      std::array<Request, 1> up{channel.send(partial, bytes, absolute(relative - mask))};
      co_await Transfers{up};
      co_return;
    }
    if (relative + mask < size) {
      const int child = absolute(relative + mask);
      std::array<Request, 1> down{channel.recv(incoming.data(), bytes, child)};
      co_await Transfers{down};
      channel.expect(down[0], bytes, child);
      reduce(args.type, args.op, partial, partial, incoming.data(), args.count);
    }
  }
}

}  // namespace railyard::comm::detail

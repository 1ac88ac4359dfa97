// Allgatherv around the ring: as the allgather ring, each block at its own
// place and of its own length. p - 1 steps. Any p.
#include <array>
#include <cstring>

#include "railyard/comm/collectives/detail/algorithms.h"

namespace railyard::comm::detail {

CollectiveTask allgatherv_ring(Channel channel, CollectiveArgs args) {
  const std::size_t element = size_of(args.type);
  const BlockLayout layout{args.counts, args.displs, 0};
  const Ring ring{channel.rank(), channel.size()};
  auto* data = static_cast<std::byte*>(args.recv);
  const std::size_t mine = layout.count(ring.rank) * element;
  if (!args.in_place && mine != 0) {
    std::memcpy(data + layout.offset(ring.rank) * element, args.send, mine);
  }
  for (int step = 0; step + 1 < ring.size; ++step) {
    const int out = ring.before(step);
    const int in = ring.before(step + 1);
    const std::size_t in_bytes = layout.count(in) * element;
    std::array<Request, 2> exchange{
        channel.recv(data + layout.offset(in) * element, in_bytes, ring.previous()),
        channel.send(data + layout.offset(out) * element, layout.count(out) * element,
                     ring.next())};
    co_await Transfers{exchange};
    channel.expect(exchange[0], in_bytes, ring.previous());
  }
}

}  // namespace railyard::comm::detail

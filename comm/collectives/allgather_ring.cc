// Allgather around the ring: in step s each rank passes block (r - s) to
// the next rank and takes block (r - s - 1) from the previous one; after
// p - 1 steps every rank holds every block. (p-1)/p of the result each way.
// Any p.
#include <array>
#include <cstring>

#include "railyard/comm/collectives/detail/algorithms.h"

namespace railyard::comm::detail {

CollectiveTask ring_allgather(const Channel& channel, std::byte* data, Blocks blocks,
                              std::size_t element) {
  const Ring ring{channel.rank(), channel.size()};
  for (int step = 0; step + 1 < ring.size; ++step) {
    const auto out = static_cast<std::size_t>(ring.before(step));
    const auto in = static_cast<std::size_t>(ring.before(step + 1));
    const std::size_t in_bytes = blocks.length(in) * element;
    std::array<Request, 2> exchange{
        channel.recv(data + blocks.offset(in) * element, in_bytes, ring.previous()),
        channel.send(data + blocks.offset(out) * element, blocks.length(out) * element,
                     ring.next())};
    co_await Transfers{exchange};
    channel.expect(exchange[0], in_bytes, ring.previous());
  }
}

CollectiveTask allgather_ring(Channel channel, CollectiveArgs args) {
  const std::size_t element = size_of(args.type);
  const auto parts = static_cast<std::size_t>(channel.size());
  const std::size_t bytes = args.count * element;
  auto* data = static_cast<std::byte*>(args.recv);
  if (!args.in_place && bytes != 0) {
    std::memcpy(data + static_cast<std::size_t>(channel.rank()) * bytes, args.send, bytes);
  }
  co_await ring_allgather(channel, data, Blocks{args.count * parts, parts}, element);
}

}  // namespace railyard::comm::detail

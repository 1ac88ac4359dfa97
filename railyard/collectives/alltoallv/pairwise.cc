// Alltoallv by pairwise exchange: as alltoall's, each block of its own
// length at its own place on both sides. p - 1 steps. Any p.
#include <fmt/format.h>

#include <array>
#include <cstring>

#include "railyard/collectives/channel.h"
#include "railyard/collectives/detail/patterns.h"
#include "railyard/collectives/detail/scratch.h"
#include "railyard/collectives/registry.h"
#include "railyard/collectives/task.h"
#include "railyard/common/error.h"

namespace railyard::collectives::detail {
namespace {

CollectiveTask alltoallv_pairwise(Channel channel, CollectiveArgs args) {
  const int size = channel.size();
  const int rank = channel.rank();
  const std::size_t element = size_of(args.type);
  const BlockLayout received{args.counts, args.displs, 0};
  // In place the send layout is the receive one, and the blocks to send are
  // copied first: received blocks overwrite them.
  const BlockLayout sent =
      args.in_place ? received : BlockLayout{args.send_counts, args.send_displs, 0};
  auto* out = static_cast<std::byte*>(args.recv);
  Scratch copy;
  const auto* in = static_cast<const std::byte*>(args.send);
  if (args.in_place) {
    copy = Scratch::copy_of(out, received.extent(static_cast<std::size_t>(size)) * element);
    in = copy.data();
  }
  if (!args.in_place && received.count(rank) != 0) {
    if (sent.count(rank) != received.count(rank)) {
      throw UsageError(fmt::format("alltoallv: rank {} sends itself {} elements but expects {}",
                                   rank, sent.count(rank), received.count(rank)));
    }
    std::memcpy(out + received.offset(rank) * element, in + sent.offset(rank) * element,
                received.count(rank) * element);
  }
  for (int step = 1; step < size; ++step) {
    const int to = (rank + step) % size;
    const int from = (rank - step + size) % size;
    const std::size_t in_bytes = received.count(from) * element;
    std::array<Transfer, 2> exchange{
        channel.recv(out + received.offset(from) * element, in_bytes, from),
        channel.send(in + sent.offset(to) * element, sent.count(to) * element, to)};
    co_await Transfers{exchange};
    channel.expect(exchange[0], in_bytes, from);
  }
}

// With equal counts, as alltoall's.
double alltoallv_pairwise_cost(const CostQuery& query) {
  return pairwise_us(query, static_cast<double>(query.bytes) / query.ranks);
}

const Registration kAlltoallvPairwise{
    Algorithm{Collective::kAlltoallv, "pairwise",
              "p-1 steps; in step s each rank sends to rank r+s and receives from rank r-s",
              alltoallv_pairwise, alltoallv_pairwise_cost}};

}  // namespace
}  // namespace railyard::collectives::detail

// Alltoall by pairwise exchange: in step s (1 .. p-1) each rank sends its
// block for rank r + s and receives the block from rank r - s, so every
// step is one send and one receive per rank and no rank is the target of
// two at once. p - 1 steps of one block each way. Any p.
#include <array>
#include <cstring>

#include "railyard/collectives/channel.h"
#include "railyard/collectives/detail/scratch.h"
#include "railyard/collectives/registry.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives::detail {
namespace {

CollectiveTask alltoall_pairwise(Channel channel, CollectiveArgs args) {
  const int size = channel.size();
  const int rank = channel.rank();
  const std::size_t block = args.count * size_of(args.type);
  auto* out = static_cast<std::byte*>(args.recv);
  // In place, the blocks to send are the receive buffer's: copied first,
  // since received blocks overwrite them.
  Scratch copy;
  const auto* in = static_cast<const std::byte*>(args.send);
  if (args.in_place) {
    copy = Scratch::copy_of(out, block * static_cast<std::size_t>(size));
    in = copy.data();
  }
  const auto at = [&](int r) { return static_cast<std::size_t>(r) * block; };
  if (block != 0 && !args.in_place) {
    std::memcpy(out + at(rank), in + at(rank), block);
  }
  for (int step = 1; step < size; ++step) {
    const int to = (rank + step) % size;
    const int from = (rank - step + size) % size;
    std::array<Transfer, 2> exchange{channel.recv(out + at(from), block, from),
                                     channel.send(in + at(to), block, to)};
    co_await Transfers{exchange};
    channel.expect(exchange[0], block, from);
  }
}

double alltoall_pairwise_cost(const CostQuery& query) {
  return pairwise_us(query, static_cast<double>(query.bytes) / query.ranks);
}

const Registration kAlltoallPairwise{
    Algorithm{Collective::kAlltoall, "pairwise",
              "p-1 steps; in step s each rank sends to rank r+s and receives from rank r-s",
              alltoall_pairwise, alltoall_pairwise_cost}};

}  // namespace
}  // namespace railyard::collectives::detail

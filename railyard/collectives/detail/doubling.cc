// The folding of recursive doubling and Rabenseifner's allreduce on rank
// counts that are not a power of two (Doubling in detail/patterns.h): each
// of the first 2 * extra ranks pairs up, the even one folding its vector
// into the odd one before the power-of-two part and getting the result back
// after it.
#include <array>

#include "railyard/collectives/channel.h"
#include "railyard/collectives/detail/doubling.h"
#include "railyard/collectives/detail/patterns.h"
#include "railyard/collectives/reduction.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives::detail {

CollectiveTask fold_in(const Channel& channel, const Doubling& doubling, std::byte* data,
                       std::byte* scratch, std::size_t count, DataType type, ReduceOp op) {
  const std::size_t bytes = count * size_of(type);
  const int rank = doubling.rank;
  if (doubling.folds()) {
    std::array<Transfer, 1> give{channel.send(data, bytes, rank + 1)};
    co_await Transfers{give};
    std::array<Transfer, 1> result{channel.recv(data, bytes, rank + 1)};
    co_await Transfers{result};
    channel.expect(result[0], bytes, rank + 1);
  } else if (rank < 2 * doubling.extra()) {
    std::array<Transfer, 1> take{channel.recv(scratch, bytes, rank - 1)};
    co_await Transfers{take};
    channel.expect(take[0], bytes, rank - 1);
    reduce(type, op, data, scratch, data, count);  // the lower rank's on the left
  }
}

CollectiveTask hand_back(const Channel& channel, const Doubling& doubling, const std::byte* data,
                         std::size_t bytes) {
  if (!doubling.folds() && doubling.rank < 2 * doubling.extra()) {
    std::array<Transfer, 1> back{channel.send(data, bytes, doubling.rank - 1)};
    co_await Transfers{back};
  }
}

}  // namespace railyard::collectives::detail

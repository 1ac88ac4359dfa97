// The allreduce an algorithm that needs a shape of ranks it did not get (a
// hierarchy, one host) runs in its place: the table's choice for a flat
// group of ranks, over messages.
#include "railyard/collectives/detail/algorithms.h"

namespace railyard::comm::detail {

CollectiveTask flat_allreduce(Channel channel, CollectiveArgs args) {
  const std::size_t bytes = args.count * size_of(args.type);
  const Algorithm& chosen =
      channel.comm().algorithm_table().choose(Collective::kAllreduce, bytes, channel.size());
  // RAILYARD_ALGO may name one of those algorithms for these sizes; the
  // built-in table then chooses (never them: it is given no host shape).
  const Algorithm& flat =
      chosen.run == &allreduce_split_rail || chosen.run == &allreduce_shared_segment
          ? AlgorithmTable().choose(Collective::kAllreduce, bytes, channel.size())
          : chosen;
  CollectiveTask task = flat.run(std::move(channel), args);
  co_await task;
}

}  // namespace railyard::comm::detail

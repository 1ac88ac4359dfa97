// The allreduce an algorithm that needs a shape of ranks it did not get (a
// hierarchy, one host) runs in its place: the table's choice for a flat
// group of ranks, over messages.
#include "railyard/collectives/allreduce/flat.h"
#include "railyard/collectives/channel.h"
#include "railyard/collectives/reduction.h"
#include "railyard/collectives/registry.h"
#include "railyard/collectives/selection.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives::detail {

CollectiveTask flat_allreduce(Channel channel, CollectiveArgs args) {
  const std::size_t bytes = args.count * size_of(args.type);
  const Algorithm& chosen =
      channel.team().algorithms().choose(Collective::kAllreduce, bytes, channel.size());
  // RAILYARD_ALGO may name one of those algorithms for these sizes; the
  // built-in table then chooses (never them: it is given no host shape).
  const Algorithm& flat =
      chosen.name == "split_rail" || chosen.name == "shared_segment"
          ? AlgorithmTable().choose(Collective::kAllreduce, bytes, channel.size())
          : chosen;
  CollectiveTask task = flat.run(std::move(channel), args);
  co_await task;
}

}  // namespace railyard::collectives::detail

// reduce_scatterv (MPI_Reduce_scatter): the call, checked: rank r gets
// block r, of its own length, of the reduction of every rank's vector.
#include <fmt/format.h>

#include <numeric>

#include "railyard/collectives/calls.h"
#include "railyard/collectives/launch.h"
#include "railyard/common/error.h"

namespace railyard::collectives {

Call reduce_scatterv_call(const Team& team, const void* send, void* recv,
                          std::span<const std::size_t> counts, DataType type, ReduceOp op) {
  check_pairing(type, op, "reduce_scatterv");
  if (counts.size() != static_cast<std::size_t>(team.size())) {
    throw UsageError(
        fmt::format("reduce_scatterv: the counts have {} entries; expected one per rank, {}",
                    counts.size(), team.size()));
  }
  const std::size_t element = size_of(type);
  const std::size_t total = std::accumulate(counts.begin(), counts.end(), std::size_t{0});
  const bool in_place = send == kInPlace;
  const std::size_t mine = counts[static_cast<std::size_t>(team.rank())];
  const CollectiveArgs args{
      .send = send, .recv = recv, .type = type, .op = op, .counts = counts, .in_place = in_place};
  check_buffers(args, total * element, (in_place ? total : mine) * element, "reduce_scatterv");
  return Call{Collective::kReduceScatterv, args, total * element};
}

}  // namespace railyard::collectives

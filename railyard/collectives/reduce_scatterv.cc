// reduce_scatterv and ireduce_scatterv (MPI_Reduce_scatter): rank r gets
// block r, of its own length, of the reduction of every rank's vector.
#include <fmt/format.h>

#include <numeric>

#include "railyard/collectives/collectives.h"
#include "railyard/collectives/detail/launch.h"
#include "railyard/common/error.h"

namespace railyard::comm {

Request ireduce_scatterv(const Communicator& comm, const void* send, void* recv,
                         std::span<const std::size_t> counts, DataType type, ReduceOp op,
                         const CollectiveOptions& options) {
  check_pairing(type, op, "reduce_scatterv");
  if (counts.size() != static_cast<std::size_t>(comm.size())) {
    throw UsageError(
        fmt::format("reduce_scatterv: the counts have {} entries; expected one per rank, {}",
                    counts.size(), comm.size()));
  }
  const std::size_t element = size_of(type);
  const std::size_t total = std::accumulate(counts.begin(), counts.end(), std::size_t{0});
  const bool in_place = send == kInPlace;
  const std::size_t mine = counts[static_cast<std::size_t>(comm.rank())];
  const CollectiveArgs args{
      .send = send, .recv = recv, .type = type, .op = op, .counts = counts, .in_place = in_place};
  detail::check_buffers(args, total * element, (in_place ? total : mine) * element,
                        "reduce_scatterv");
  return detail::launch(comm, Collective::kReduceScatterv, args, total * element, options);
}

void reduce_scatterv(const Communicator& comm, const void* send, void* recv,
                     std::span<const std::size_t> counts, DataType type, ReduceOp op,
                     const CollectiveOptions& options) {
  ireduce_scatterv(comm, send, recv, counts, type, op, options).wait();
}

}  // namespace railyard::comm

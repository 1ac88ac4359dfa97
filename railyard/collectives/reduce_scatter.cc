// reduce_scatter and ireduce_scatter (MPI_Reduce_scatter_block): rank r
// gets block r of the reduction of every rank's vector.
#include "railyard/collectives/collectives.h"
#include "railyard/collectives/detail/launch.h"

namespace railyard::comm {

Request ireduce_scatter(const Communicator& comm, const void* send, void* recv, std::size_t count,
                        DataType type, ReduceOp op, const CollectiveOptions& options) {
  check_pairing(type, op, "reduce_scatter");
  const std::size_t bytes = count * size_of(type);
  const std::size_t whole = bytes * static_cast<std::size_t>(comm.size());
  const bool in_place = send == kInPlace;
  const CollectiveArgs args{
      .send = send, .recv = recv, .count = count, .type = type, .op = op, .in_place = in_place};
  detail::check_buffers(args, whole, in_place ? whole : bytes, "reduce_scatter");
  return detail::launch(comm, Collective::kReduceScatter, args, whole, options);
}

void reduce_scatter(const Communicator& comm, const void* send, void* recv, std::size_t count,
                    DataType type, ReduceOp op, const CollectiveOptions& options) {
  ireduce_scatter(comm, send, recv, count, type, op, options).wait();
}

}  // namespace railyard::comm

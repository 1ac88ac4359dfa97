// reduce_scatter (MPI_Reduce_scatter_block): the call, checked: rank r
// gets block r of the reduction of every rank's vector.
#include "railyard/collectives/calls.h"
#include "railyard/collectives/launch.h"

namespace railyard::collectives {

Call reduce_scatter_call(const Team& team, const void* send, void* recv, std::size_t count,
                         DataType type, ReduceOp op) {
  check_pairing(type, op, "reduce_scatter");
  const std::size_t bytes = count * size_of(type);
  const std::size_t whole = bytes * static_cast<std::size_t>(team.size());
  const bool in_place = send == kInPlace;
  const CollectiveArgs args{
      .send = send, .recv = recv, .count = count, .type = type, .op = op, .in_place = in_place};
  check_buffers(args, whole, in_place ? whole : bytes, "reduce_scatter");
  return Call{Collective::kReduceScatter, args, whole};
}

}  // namespace railyard::collectives

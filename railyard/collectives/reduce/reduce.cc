// reduce: the call, checked: the root gets the reduction of all ranks' vectors.
#include "railyard/collectives/calls.h"
#include "railyard/collectives/launch.h"

namespace railyard::collectives {

Call reduce_call(const Team& team, const void* send, void* recv, std::size_t count, DataType type,
                 ReduceOp op, int root) {
  check_pairing(type, op, "reduce");
  check_root(team, root, "reduce");
  const std::size_t bytes = count * size_of(type);
  const bool at_root = team.rank() == root;
  const CollectiveArgs args{.send = send,
                            .recv = recv,
                            .count = count,
                            .type = type,
                            .op = op,
                            .root = root,
                            .in_place = at_root && (send == kInPlace || send == recv)};
  // Only the root's receive buffer is used.
  check_buffers(args, bytes, at_root ? bytes : 0, "reduce");
  return Call{Collective::kReduce, args, bytes};
}

}  // namespace railyard::collectives

// allreduce: every rank gets the reduction of all ranks' vectors.
#include "railyard/collectives/calls.h"
#include "railyard/collectives/launch.h"

namespace railyard::collectives {

Call allreduce_call(const Team& /*team*/, const void* send, void* recv, std::size_t count,
                    DataType type, ReduceOp op, bool blocking) {
  check_pairing(type, op, "allreduce");
  const std::size_t bytes = count * size_of(type);
  const CollectiveArgs args{.send = send,
                            .recv = recv,
                            .count = count,
                            .type = type,
                            .op = op,
                            .in_place = send == kInPlace || send == recv,
                            .blocking = blocking};
  check_buffers(args, bytes, bytes, "allreduce");
  return Call{Collective::kAllreduce, args, bytes};
}

}  // namespace railyard::collectives

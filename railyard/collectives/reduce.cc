// reduce and ireduce: the root gets the reduction of all ranks' vectors.
#include "railyard/collectives/collectives.h"
#include "railyard/collectives/detail/launch.h"

namespace railyard::comm {

Request ireduce(const Communicator& comm, const void* send, void* recv, std::size_t count,
                DataType type, ReduceOp op, int root, const CollectiveOptions& options) {
  check_pairing(type, op, "reduce");
  detail::check_root(comm, root, "reduce");
  const std::size_t bytes = count * size_of(type);
  const bool at_root = comm.rank() == root;
  const CollectiveArgs args{.send = send,
                            .recv = recv,
                            .count = count,
                            .type = type,
                            .op = op,
                            .root = root,
                            .in_place = at_root && (send == kInPlace || send == recv)};
  // Only the root's receive buffer is used.
  detail::check_buffers(args, bytes, at_root ? bytes : 0, "reduce");
  return detail::launch(comm, Collective::kReduce, args, bytes, options);
}

void reduce(const Communicator& comm, const void* send, void* recv, std::size_t count,
            DataType type, ReduceOp op, int root, const CollectiveOptions& options) {
  ireduce(comm, send, recv, count, type, op, root, options).wait();
}

}  // namespace railyard::comm

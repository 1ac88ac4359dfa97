// reduce and ireduce: the root gets the reduction of all ranks' vectors.
#include "railyard/comm/collectives/collectives.h"
#include "railyard/comm/collectives/detail/launch.h"

namespace railyard::comm {

Request ireduce(const Communicator& comm, const void* send, void* recv, std::size_t count,
                DataType type, ReduceOp op, int root, const CollectiveOptions& options) {
  check_pairing(type, op, "reduce");
  detail::check_root(comm, root, "reduce");
  const std::size_t bytes = count * size_of(type);
  const bool at_root = comm.rank() == root;
  const bool in_place = at_root && (send == kInPlace || send == recv);
  if (!in_place) {
    detail::check_buffer(send, bytes, "reduce", "send");
  }
  if (at_root) {
    detail::check_buffer(recv, bytes, "reduce", "receive");
  }
  CollectiveArgs args;
  args.send = send;
  args.recv = recv;
  args.count = count;
  args.type = type;
  args.op = op;
  args.root = root;
  args.in_place = in_place;
  return detail::launch(comm, Collective::kReduce, args, bytes, options);
}

void reduce(const Communicator& comm, const void* send, void* recv, std::size_t count,
            DataType type, ReduceOp op, int root, const CollectiveOptions& options) {
  ireduce(comm, send, recv, count, type, op, root, options).wait();
}

}  // namespace railyard::comm

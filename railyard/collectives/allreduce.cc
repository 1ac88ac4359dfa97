// allreduce and iallreduce: every rank gets the reduction of all ranks'
// vectors.
#include "railyard/collectives/collectives.h"
#include "railyard/collectives/detail/launch.h"

namespace railyard::comm {
namespace {

Request start(const Communicator& comm, const void* send, void* recv, std::size_t count,
              DataType type, ReduceOp op, const CollectiveOptions& options, bool blocking) {
  check_pairing(type, op, "allreduce");
  const std::size_t bytes = count * size_of(type);
  const bool in_place = send == kInPlace || send == recv;
  const CollectiveArgs args{.send = send,
                            .recv = recv,
                            .count = count,
                            .type = type,
                            .op = op,
                            .in_place = in_place,
                            .blocking = blocking};
  detail::check_buffers(args, bytes, bytes, "allreduce");
  return detail::launch(comm, Collective::kAllreduce, args, bytes, options);
}

}  // namespace

Request iallreduce(const Communicator& comm, const void* send, void* recv, std::size_t count,
                   DataType type, ReduceOp op, const CollectiveOptions& options) {
  return start(comm, send, recv, count, type, op, options, false);
}

void allreduce(const Communicator& comm, const void* send, void* recv, std::size_t count,
               DataType type, ReduceOp op, const CollectiveOptions& options) {
  start(comm, send, recv, count, type, op, options, true).wait();
}

}  // namespace railyard::comm

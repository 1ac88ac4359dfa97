// allreduce and iallreduce: every rank gets the reduction of all ranks'
// vectors.
#include "railyard/comm/collectives/collectives.h"
#include "railyard/comm/collectives/detail/launch.h"

namespace railyard::comm {

Request iallreduce(const Communicator& comm, const void* send, void* recv, std::size_t count,
                   DataType type, ReduceOp op, const CollectiveOptions& options) {
  check_pairing(type, op, "allreduce");
  const std::size_t bytes = count * size_of(type);
  const bool in_place = send == kInPlace || send == recv;
  const CollectiveArgs args{
      .send = send, .recv = recv, .count = count, .type = type, .op = op, .in_place = in_place};
  detail::check_buffers(args, bytes, bytes, "allreduce");
  return detail::launch(comm, Collective::kAllreduce, args, bytes, options);
}

void allreduce(const Communicator& comm, const void* send, void* recv, std::size_t count,
               DataType type, ReduceOp op, const CollectiveOptions& options) {
  iallreduce(comm, send, recv, count, type, op, options).wait();
}

}  // namespace railyard::comm

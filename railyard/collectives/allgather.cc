// allgather and iallgather: every rank's block, in rank order, to every
// rank.
#include "railyard/collectives/collectives.h"
#include "railyard/collectives/detail/launch.h"

namespace railyard::comm {

Request iallgather(const Communicator& comm, const void* send, void* recv, std::size_t count,
                   DataType type, const CollectiveOptions& options) {
  const std::size_t bytes = count * size_of(type);
  const std::size_t whole = bytes * static_cast<std::size_t>(comm.size());
  const CollectiveArgs args{
      .send = send, .recv = recv, .count = count, .type = type, .in_place = send == kInPlace};
  detail::check_buffers(args, bytes, whole, "allgather");
  return detail::launch(comm, Collective::kAllgather, args, whole, options);
}

void allgather(const Communicator& comm, const void* send, void* recv, std::size_t count,
               DataType type, const CollectiveOptions& options) {
  iallgather(comm, send, recv, count, type, options).wait();
}

}  // namespace railyard::comm

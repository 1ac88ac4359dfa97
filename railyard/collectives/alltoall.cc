// alltoall and ialltoall: block r of every rank's vector to rank r.
#include "railyard/collectives/collectives.h"
#include "railyard/collectives/detail/launch.h"

namespace railyard::comm {

Request ialltoall(const Communicator& comm, const void* send, void* recv, std::size_t count,
                  DataType type, const CollectiveOptions& options) {
  const std::size_t whole = count * size_of(type) * static_cast<std::size_t>(comm.size());
  const CollectiveArgs args{
      .send = send, .recv = recv, .count = count, .type = type, .in_place = send == kInPlace};
  detail::check_buffers(args, whole, whole, "alltoall");
  return detail::launch(comm, Collective::kAlltoall, args, whole, options);
}

void alltoall(const Communicator& comm, const void* send, void* recv, std::size_t count,
              DataType type, const CollectiveOptions& options) {
  ialltoall(comm, send, recv, count, type, options).wait();
}

}  // namespace railyard::comm

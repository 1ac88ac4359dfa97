// alltoall and ialltoall: block r of every rank's vector to rank r.
#include "railyard/comm/collectives/collectives.h"
#include "railyard/comm/collectives/detail/launch.h"

namespace railyard::comm {

Request ialltoall(const Communicator& comm, const void* send, void* recv, std::size_t count,
                  DataType type, const CollectiveOptions& options) {
  const std::size_t whole = count * size_of(type) * static_cast<std::size_t>(comm.size());
  const bool in_place = send == kInPlace;
  if (!in_place) {
    detail::check_buffer(send, whole, "alltoall", "send");
  }
  detail::check_buffer(recv, whole, "alltoall", "receive");
  CollectiveArgs args;
  args.send = send;
  args.recv = recv;
  args.count = count;
  args.type = type;
  args.in_place = in_place;
  return detail::launch(comm, Collective::kAlltoall, args, whole, options);
}

void alltoall(const Communicator& comm, const void* send, void* recv, std::size_t count,
              DataType type, const CollectiveOptions& options) {
  ialltoall(comm, send, recv, count, type, options).wait();
}

}  // namespace railyard::comm

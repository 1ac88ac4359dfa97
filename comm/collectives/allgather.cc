// allgather and iallgather: every rank's block, in rank order, to every
// rank.
#include "railyard/comm/collectives/collectives.h"
#include "railyard/comm/collectives/detail/launch.h"

namespace railyard::comm {

Request iallgather(const Communicator& comm, const void* send, void* recv, std::size_t count,
                   DataType type, const CollectiveOptions& options) {
  const std::size_t bytes = count * size_of(type);
  const bool in_place = send == kInPlace;
  if (!in_place) {
    detail::check_buffer(send, bytes, "allgather", "send");
  }
  detail::check_buffer(recv, bytes * static_cast<std::size_t>(comm.size()), "allgather", "receive");
  CollectiveArgs args;
  args.send = send;
  args.recv = recv;
  args.count = count;
  args.type = type;
  args.in_place = in_place;
  return detail::launch(comm, Collective::kAllgather, args,
                        bytes * static_cast<std::size_t>(comm.size()), options);
}

void allgather(const Communicator& comm, const void* send, void* recv, std::size_t count,
               DataType type, const CollectiveOptions& options) {
  iallgather(comm, send, recv, count, type, options).wait();
}

}  // namespace railyard::comm

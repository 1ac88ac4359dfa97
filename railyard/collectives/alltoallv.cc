// alltoallv and ialltoallv: a block of its own length from every rank to
// every rank.
#include "railyard/collectives/collectives.h"
#include "railyard/collectives/detail/launch.h"

namespace railyard::comm {

Request ialltoallv(const Communicator& comm, const void* send,
                   std::span<const std::size_t> send_counts,
                   std::span<const std::size_t> send_displs, void* recv,
                   std::span<const std::size_t> recv_counts,
                   std::span<const std::size_t> recv_displs, DataType type,
                   const CollectiveOptions& options) {
  const std::size_t element = size_of(type);
  const bool in_place = send == kInPlace;
  const std::size_t received =
      detail::check_layout(comm, recv_counts, recv_displs, "alltoallv", "receive");
  const std::size_t sent =
      in_place ? 0 : detail::check_layout(comm, send_counts, send_displs, "alltoallv", "send");
  CollectiveArgs args{.send = send,
                      .recv = recv,
                      .type = type,
                      .counts = recv_counts,
                      .displs = recv_displs,
                      .in_place = in_place};
  if (!in_place) {
    args.send_counts = send_counts;
    args.send_displs = send_displs;
  }
  detail::check_buffers(args, sent * element, received * element, "alltoallv");
  return detail::launch(comm, Collective::kAlltoallv, args, received * element, options);
}

void alltoallv(const Communicator& comm, const void* send, std::span<const std::size_t> send_counts,
               std::span<const std::size_t> send_displs, void* recv,
               std::span<const std::size_t> recv_counts, std::span<const std::size_t> recv_displs,
               DataType type, const CollectiveOptions& options) {
  ialltoallv(comm, send, send_counts, send_displs, recv, recv_counts, recv_displs, type, options)
      .wait();
}

}  // namespace railyard::comm

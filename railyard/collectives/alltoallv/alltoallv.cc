// alltoallv: the call, checked: a block of its own length from every rank to
// every rank.
#include "railyard/collectives/calls.h"
#include "railyard/collectives/launch.h"

namespace railyard::collectives {

Call alltoallv_call(const Team& team, const void* send, std::span<const std::size_t> send_counts,
                    std::span<const std::size_t> send_displs, void* recv,
                    std::span<const std::size_t> recv_counts,
                    std::span<const std::size_t> recv_displs, DataType type) {
  const std::size_t element = size_of(type);
  const bool in_place = send == kInPlace;
  const std::size_t received = check_layout(team, recv_counts, recv_displs, "alltoallv", "receive");
  const std::size_t sent =
      in_place ? 0 : check_layout(team, send_counts, send_displs, "alltoallv", "send");
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
  check_buffers(args, sent * element, received * element, "alltoallv");
  return Call{Collective::kAlltoallv, args, received * element};
}

}  // namespace railyard::collectives

// allgather: the call, checked: every rank's block, in rank order, to every
// rank.
#include "railyard/collectives/calls.h"
#include "railyard/collectives/launch.h"

namespace railyard::collectives {

Call allgather_call(const Team& team, const void* send, void* recv, std::size_t count,
                    DataType type) {
  const std::size_t bytes = count * size_of(type);
  const std::size_t whole = bytes * static_cast<std::size_t>(team.size());
  const CollectiveArgs args{
      .send = send, .recv = recv, .count = count, .type = type, .in_place = send == kInPlace};
  check_buffers(args, bytes, whole, "allgather");
  return Call{Collective::kAllgather, args, whole};
}

}  // namespace railyard::collectives

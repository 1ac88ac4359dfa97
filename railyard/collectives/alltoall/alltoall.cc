// alltoall: the call, checked: block r of every rank's vector to rank r.
#include "railyard/collectives/calls.h"
#include "railyard/collectives/launch.h"

namespace railyard::collectives {

Call alltoall_call(const Team& team, const void* send, void* recv, std::size_t count,
                   DataType type) {
  const std::size_t whole = count * size_of(type) * static_cast<std::size_t>(team.size());
  const CollectiveArgs args{
      .send = send, .recv = recv, .count = count, .type = type, .in_place = send == kInPlace};
  check_buffers(args, whole, whole, "alltoall");
  return Call{Collective::kAlltoall, args, whole};
}

}  // namespace railyard::collectives

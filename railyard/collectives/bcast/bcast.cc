// bcast: the call, checked: the root's vector to every rank.
#include "railyard/collectives/calls.h"
#include "railyard/collectives/launch.h"

namespace railyard::collectives {

Call bcast_call(const Team& team, void* buffer, std::size_t count, DataType type, int root) {
  const std::size_t bytes = count * size_of(type);
  check_root(team, root, "bcast");
  // One buffer, read at the root and written elsewhere: "in place".
  const CollectiveArgs args{
      .send = buffer, .recv = buffer, .count = count, .type = type, .root = root, .in_place = true};
  check_buffer(buffer, bytes, "bcast", "data");
  return Call{Collective::kBcast, args, bytes};
}

}  // namespace railyard::collectives

// bcast and ibcast: the root's vector to every rank.
#include "railyard/collectives/collectives.h"
#include "railyard/collectives/detail/launch.h"

namespace railyard::comm {

Request ibcast(const Communicator& comm, void* buffer, std::size_t count, DataType type, int root,
               const CollectiveOptions& options) {
  const std::size_t bytes = count * size_of(type);
  detail::check_root(comm, root, "bcast");
  // One buffer, read at the root and written elsewhere: "in place".
  const CollectiveArgs args{
      .send = buffer, .recv = buffer, .count = count, .type = type, .root = root, .in_place = true};
  detail::check_buffer(buffer, bytes, "bcast", "data");
  return detail::launch(comm, Collective::kBcast, args, bytes, options);
}

void bcast(const Communicator& comm, void* buffer, std::size_t count, DataType type, int root,
           const CollectiveOptions& options) {
  ibcast(comm, buffer, count, type, root, options).wait();
}

}  // namespace railyard::comm

// gather, gatherv and their i-forms: every rank's block into the root.
#include "railyard/collectives/collectives.h"
#include "railyard/collectives/detail/launch.h"

namespace railyard::comm {

Request igather(const Communicator& comm, const void* send, void* recv, std::size_t count,
                DataType type, int root, const CollectiveOptions& options) {
  detail::check_root(comm, root, "gather");
  const std::size_t bytes = count * size_of(type);
  const bool at_root = comm.rank() == root;
  const std::size_t whole = bytes * static_cast<std::size_t>(comm.size());
  const CollectiveArgs args{.send = send,
                            .recv = recv,
                            .count = count,
                            .type = type,
                            .root = root,
                            .in_place = at_root && send == kInPlace};
  detail::check_buffers(args, bytes, at_root ? whole : 0, "gather");
  return detail::launch(comm, Collective::kGather, args, whole, options);
}

void gather(const Communicator& comm, const void* send, void* recv, std::size_t count,
            DataType type, int root, const CollectiveOptions& options) {
  igather(comm, send, recv, count, type, root, options).wait();
}

Request igatherv(const Communicator& comm, const void* send, std::size_t count, void* recv,
                 std::span<const std::size_t> counts, std::span<const std::size_t> displs,
                 DataType type, int root, const CollectiveOptions& options) {
  detail::check_root(comm, root, "gatherv");
  const std::size_t element = size_of(type);
  const bool at_root = comm.rank() == root;
  const std::size_t spanned =
      at_root ? detail::check_layout(comm, counts, displs, "gatherv", "receive") : 0;
  CollectiveArgs args{.send = send,
                      .recv = recv,
                      .count = count,
                      .type = type,
                      .root = root,
                      .in_place = at_root && send == kInPlace};
  if (at_root) {
    args.counts = counts;
    args.displs = displs;
  }
  detail::check_buffers(args, count * element, spanned * element, "gatherv");
  return detail::launch(comm, Collective::kGatherv, args, spanned * element, options);
}

void gatherv(const Communicator& comm, const void* send, std::size_t count, void* recv,
             std::span<const std::size_t> counts, std::span<const std::size_t> displs,
             DataType type, int root, const CollectiveOptions& options) {
  igatherv(comm, send, count, recv, counts, displs, type, root, options).wait();
}

}  // namespace railyard::comm

// scatter, scatterv and their i-forms: the root's blocks, one to each rank.
#include "railyard/collectives/collectives.h"
#include "railyard/collectives/detail/launch.h"

namespace railyard::comm {

Request iscatter(const Communicator& comm, const void* send, void* recv, std::size_t count,
                 DataType type, int root, const CollectiveOptions& options) {
  detail::check_root(comm, root, "scatter");
  const std::size_t bytes = count * size_of(type);
  const bool at_root = comm.rank() == root;
  const std::size_t whole = bytes * static_cast<std::size_t>(comm.size());
  const bool in_place = at_root && recv == kInPlace;
  const CollectiveArgs args{.send = send,
                            .recv = in_place ? nullptr : recv,
                            .count = count,
                            .type = type,
                            .root = root,
                            .in_place = in_place};
  detail::check_buffer(at_root ? send : nullptr, at_root ? whole : 0, "scatter", "send");
  detail::check_buffer(args.recv, in_place ? 0 : bytes, "scatter", "receive");
  return detail::launch(comm, Collective::kScatter, args, whole, options);
}

void scatter(const Communicator& comm, const void* send, void* recv, std::size_t count,
             DataType type, int root, const CollectiveOptions& options) {
  iscatter(comm, send, recv, count, type, root, options).wait();
}

Request iscatterv(const Communicator& comm, const void* send, std::span<const std::size_t> counts,
                  std::span<const std::size_t> displs, void* recv, std::size_t count, DataType type,
                  int root, const CollectiveOptions& options) {
  detail::check_root(comm, root, "scatterv");
  const std::size_t element = size_of(type);
  const bool at_root = comm.rank() == root;
  const std::size_t spanned =
      at_root ? detail::check_layout(comm, counts, displs, "scatterv", "send") : 0;
  const bool in_place = at_root && recv == kInPlace;
  CollectiveArgs args{.send = send,
                      .recv = in_place ? nullptr : recv,
                      .count = count,
                      .type = type,
                      .root = root,
                      .in_place = in_place};
  if (at_root) {
    args.counts = counts;
    args.displs = displs;
  }
  detail::check_buffer(at_root ? send : nullptr, spanned * element, "scatterv", "send");
  detail::check_buffer(args.recv, in_place ? 0 : count * element, "scatterv", "receive");
  return detail::launch(comm, Collective::kScatterv, args, spanned * element, options);
}

void scatterv(const Communicator& comm, const void* send, std::span<const std::size_t> counts,
              std::span<const std::size_t> displs, void* recv, std::size_t count, DataType type,
              int root, const CollectiveOptions& options) {
  iscatterv(comm, send, counts, displs, recv, count, type, root, options).wait();
}

}  // namespace railyard::comm

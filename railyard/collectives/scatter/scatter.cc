// scatter and scatterv: the calls, checked: the root's blocks, one to each rank.
#include "railyard/collectives/calls.h"
#include "railyard/collectives/launch.h"

namespace railyard::collectives {

Call scatter_call(const Team& team, const void* send, void* recv, std::size_t count, DataType type,
                  int root) {
  check_root(team, root, "scatter");
  const std::size_t bytes = count * size_of(type);
  const bool at_root = team.rank() == root;
  const std::size_t whole = bytes * static_cast<std::size_t>(team.size());
  const bool in_place = at_root && recv == kInPlace;
  const CollectiveArgs args{.send = send,
                            .recv = in_place ? nullptr : recv,
                            .count = count,
                            .type = type,
                            .root = root,
                            .in_place = in_place};
  check_buffer(at_root ? send : nullptr, at_root ? whole : 0, "scatter", "send");
  check_buffer(args.recv, in_place ? 0 : bytes, "scatter", "receive");
  return Call{Collective::kScatter, args, whole};
}

Call scatterv_call(const Team& team, const void* send, std::span<const std::size_t> counts,
                   std::span<const std::size_t> displs, void* recv, std::size_t count,
                   DataType type, int root) {
  check_root(team, root, "scatterv");
  const std::size_t element = size_of(type);
  const bool at_root = team.rank() == root;
  const std::size_t spanned = at_root ? check_layout(team, counts, displs, "scatterv", "send") : 0;
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
  check_buffer(at_root ? send : nullptr, spanned * element, "scatterv", "send");
  check_buffer(args.recv, in_place ? 0 : count * element, "scatterv", "receive");
  return Call{Collective::kScatterv, args, spanned * element};
}

}  // namespace railyard::collectives

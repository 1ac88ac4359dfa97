// gather and gatherv: the calls, checked: every rank's block into the root.
#include "railyard/collectives/calls.h"
#include "railyard/collectives/launch.h"

namespace railyard::collectives {

Call gather_call(const Team& team, const void* send, void* recv, std::size_t count, DataType type,
                 int root) {
  check_root(team, root, "gather");
  const std::size_t bytes = count * size_of(type);
  const bool at_root = team.rank() == root;
  const std::size_t whole = bytes * static_cast<std::size_t>(team.size());
  const CollectiveArgs args{.send = send,
                            .recv = recv,
                            .count = count,
                            .type = type,
                            .root = root,
                            .in_place = at_root && send == kInPlace};
  check_buffers(args, bytes, at_root ? whole : 0, "gather");
  return Call{Collective::kGather, args, whole};
}

Call gatherv_call(const Team& team, const void* send, std::size_t count, void* recv,
                  std::span<const std::size_t> counts, std::span<const std::size_t> displs,
                  DataType type, int root) {
  check_root(team, root, "gatherv");
  const std::size_t element = size_of(type);
  const bool at_root = team.rank() == root;
  const std::size_t spanned =
      at_root ? check_layout(team, counts, displs, "gatherv", "receive") : 0;
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
  check_buffers(args, count * element, spanned * element, "gatherv");
  return Call{Collective::kGatherv, args, spanned * element};
}

}  // namespace railyard::collectives

// allgatherv: the call, checked: every rank's block, each of its own length,
// to every rank.
#include <fmt/format.h>

#include "railyard/collectives/calls.h"
#include "railyard/collectives/launch.h"
#include "railyard/common/error.h"

namespace railyard::collectives {

Call allgatherv_call(const Team& team, const void* send, std::size_t count, void* recv,
                     std::span<const std::size_t> counts, std::span<const std::size_t> displs,
                     DataType type) {
  const std::size_t element = size_of(type);
  const std::size_t spanned = check_layout(team, counts, displs, "allgatherv", "receive");
  const bool in_place = send == kInPlace;
  const auto mine = counts[static_cast<std::size_t>(team.rank())];
  if (!in_place && count != mine) {
    throw UsageError(fmt::format("allgatherv: rank {} sends {} elements but counts[{}] is {}",
                                 team.rank(), count, team.rank(), mine));
  }
  const CollectiveArgs args{.send = send,
                            .recv = recv,
                            .count = count,
                            .type = type,
                            .counts = counts,
                            .displs = displs,
                            .in_place = in_place};
  check_buffers(args, count * element, spanned * element, "allgatherv");
  return Call{Collective::kAllgatherv, args, spanned * element};
}

}  // namespace railyard::collectives

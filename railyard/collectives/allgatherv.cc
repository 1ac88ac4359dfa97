// allgatherv and iallgatherv: every rank's block, each of its own length,
// to every rank.
#include <fmt/format.h>

#include "railyard/collectives/collectives.h"
#include "railyard/collectives/detail/launch.h"
#include "railyard/common/error.h"

namespace railyard::comm {

Request iallgatherv(const Communicator& comm, const void* send, std::size_t count, void* recv,
                    std::span<const std::size_t> counts, std::span<const std::size_t> displs,
                    DataType type, const CollectiveOptions& options) {
  const std::size_t element = size_of(type);
  const std::size_t spanned = detail::check_layout(comm, counts, displs, "allgatherv", "receive");
  const bool in_place = send == kInPlace;
  const auto mine = counts[static_cast<std::size_t>(comm.rank())];
  if (!in_place && count != mine) {
    throw UsageError(fmt::format("allgatherv: rank {} sends {} elements but counts[{}] is {}",
                                 comm.rank(), count, comm.rank(), mine));
  }
  const CollectiveArgs args{.send = send,
                            .recv = recv,
                            .count = count,
                            .type = type,
                            .counts = counts,
                            .displs = displs,
                            .in_place = in_place};
  detail::check_buffers(args, count * element, spanned * element, "allgatherv");
  return detail::launch(comm, Collective::kAllgatherv, args, spanned * element, options);
}

void allgatherv(const Communicator& comm, const void* send, std::size_t count, void* recv,
                std::span<const std::size_t> counts, std::span<const std::size_t> displs,
                DataType type, const CollectiveOptions& options) {
  iallgatherv(comm, send, count, recv, counts, displs, type, options).wait();
}

}  // namespace railyard::comm

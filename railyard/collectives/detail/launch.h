// What every collective's entry point does before its algorithm runs.
#pragma once

#include <cstddef>
#include <span>

#include "railyard/collectives/collectives.h"

namespace railyard::comm::detail {

// Throws UsageError naming `what` for a null buffer of `bytes` > 0.
void check_buffer(const void* data, std::size_t bytes, const char* what, const char* which);
// The same for the send buffer (unless `args.in_place`) and the receive
// buffer of `args`.
void check_buffers(const CollectiveArgs& args, std::size_t send_bytes, std::size_t recv_bytes,
                   const char* what);
// Throws UsageError naming `what` when `root` is not a rank of `comm`.
void check_root(const Communicator& comm, int root, const char* what);
// Throws UsageError naming `what` and `which` unless `counts` and `displs`
// hold one entry per rank of `comm`. Returns the elements the layout spans
// (the largest displacement plus its count).
std::size_t check_layout(const Communicator& comm, std::span<const std::size_t> counts,
                         std::span<const std::size_t> displs, const char* what, const char* which);

// Starts `collective` on `comm` with `args`: the algorithm `options` names,
// or the communicator's table's choice for `bytes`. The first transfers are
// posted before it returns.
[[nodiscard]] Request launch(const Communicator& comm, Collective collective,
                             const CollectiveArgs& args, std::size_t bytes,
                             const CollectiveOptions& options);

}  // namespace railyard::comm::detail

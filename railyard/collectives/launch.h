// What every collective's call does before its algorithm runs: the checks
// its arguments share, the choice of its algorithm, and the algorithm's
// task over a channel of its own.
#pragma once

#include <cstddef>
#include <span>

#include "railyard/collectives/collective.h"
#include "railyard/collectives/registry.h"
#include "railyard/collectives/task.h"
#include "railyard/collectives/team.h"

namespace railyard::collectives {

// Throws UsageError naming `what` for a null buffer of `bytes` > 0.
void check_buffer(const void* data, std::size_t bytes, const char* what, const char* which);
// The same for the send buffer (unless `args.in_place`) and the receive
// buffer of `args`.
void check_buffers(const CollectiveArgs& args, std::size_t send_bytes, std::size_t recv_bytes,
                   const char* what);
// Throws UsageError naming `what` when `root` is not a rank of `team`.
void check_root(const Team& team, int root, const char* what);
// Throws UsageError naming `what` and `which` unless `counts` and `displs`
// hold one entry per rank of `team`. Returns the elements the layout spans
// (the largest displacement plus its count).
std::size_t check_layout(const Team& team, std::span<const std::size_t> counts,
                         std::span<const std::size_t> displs, const char* what, const char* which);

// The algorithm `call` runs on `team`: the one `options` names, or the
// team's table's choice. Each algorithm's first use in a process is logged
// at info level, as NCCL logs its own choices.
[[nodiscard]] const Algorithm& select(const Team& team, const Call& call,
                                      const CollectiveOptions& options);
// The task of `algorithm` carrying out `call` on `team`, which must outlive
// it; nothing is posted before its first step.
[[nodiscard]] CollectiveTask start(const Team& team, const Call& call, const Algorithm& algorithm);

}  // namespace railyard::collectives

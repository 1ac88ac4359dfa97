// The folding of recursive doubling and Rabenseifner's allreduce on rank
// counts that are not a power of two (Doubling in patterns.h).
#pragma once

#include <cstddef>

#include "railyard/collectives/channel.h"
#include "railyard/collectives/datatype.h"
#include "railyard/collectives/detail/patterns.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives::detail {

// fold_in: a rank that folds sends its `count` elements at `data` to rank
// + 1 and gets the result back there (it is done then); the rank it folds
// into receives them into `scratch` (as long) and reduces them into
// `data`, the lower rank's on the left. hand_back, after the power-of-two
// part: the result to the rank that folded. `channel` and `doubling` must
// outlive the task.
CollectiveTask fold_in(const Channel& channel, const Doubling& doubling, std::byte* data,
                       std::byte* scratch, std::size_t count, DataType type, ReduceOp op);
CollectiveTask hand_back(const Channel& channel, const Doubling& doubling, const std::byte* data,
                         std::size_t bytes);

}  // namespace railyard::collectives::detail

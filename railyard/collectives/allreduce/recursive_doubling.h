// Recursive doubling's allreduce, as its tests see it.
#pragma once

#include <cstddef>

namespace railyard::collectives::detail {

// From this many bytes a swap goes in segments of kRingSegmentBytes, each
// reduced as it arrives; below it each segment's rendezvous costs more than
// the overlap saves (docs/benchmarks.md, "Tuning choices").
inline constexpr std::size_t kSegmentedSwapFrom = std::size_t{16} << 20;

}  // namespace railyard::collectives::detail

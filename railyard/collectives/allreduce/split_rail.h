// The split-rail allreduce's pipeline, as its tests see it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace railyard::collectives::detail {

// The pipeline: each lane reduces this much of the vector at a time (a
// host's ranks share it), and this many lanes run side by side, so one
// lane's same-host steps overlap the others' network steps. The size keeps
// the network messages above the eager limit (docs/benchmarks.md,
// "Tuning choices").
inline constexpr std::size_t kSplitRailSegmentBytes = std::size_t{512} << 10;
inline constexpr std::uint32_t kSplitRailLanes = 3;

}  // namespace railyard::collectives::detail

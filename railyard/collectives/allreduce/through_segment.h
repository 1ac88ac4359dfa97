// An allreduce whose same-host steps go through a host segment
// (detail/host_segment.h) rather than messages.
#pragma once

#include <span>

#include "railyard/collectives/channel.h"
#include "railyard/collectives/collective.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives::detail {

class HostSegment;

// An allreduce of `args` through `segment`, as one call on it, among the
// ranks of `local` (this host's, in the segment's order). Each lane takes
// chunks lane, lane + lanes, ... of the vector, the lanes side by side; per
// chunk every rank copies it into its slot, reduces its slice of every slot
// into rank 0's slot after a barrier, and after a second barrier copies the
// whole result out. A short vector on one host takes one barrier: after it
// every rank reduces the whole of it. With `across` (one channel per lane:
// the ranks holding this rank's place on every host), each rank first
// allreduces its slice with them, in place in the segment. Throws
// UsageError naming a rank whose call differs. The channels must outlive
// the task.
CollectiveTask allreduce_through_segment(HostSegment& segment, const Channel& local,
                                         std::span<const Channel> across, CollectiveArgs args);

}  // namespace railyard::collectives::detail

// The allreduce an algorithm that needs a shape of ranks it did not get (a
// hierarchy, one host) runs in its place.
#pragma once

#include "railyard/collectives/channel.h"
#include "railyard/collectives/collective.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives::detail {

// The table's choice of an allreduce over messages for a flat group of
// ranks: never split_rail or shared_segment, whatever RAILYARD_ALGO says.
CollectiveTask flat_allreduce(Channel channel, CollectiveArgs args);

}  // namespace railyard::collectives::detail

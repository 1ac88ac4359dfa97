// The root's blocks straight to every rank (scatter and scatterv): also the
// first half of the scatter-allgather broadcast.
#pragma once

#include "railyard/collectives/channel.h"
#include "railyard/collectives/collective.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives::detail {

CollectiveTask scatter_linear(Channel channel, CollectiveArgs args);

}  // namespace railyard::collectives::detail

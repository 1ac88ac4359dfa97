// Bruck's allgather, which recursive doubling runs on rank counts that are
// not a power of two.
#pragma once

#include "railyard/collectives/channel.h"
#include "railyard/collectives/collective.h"
#include "railyard/collectives/cost_model.h"
#include "railyard/collectives/task.h"

namespace railyard::collectives::detail {

CollectiveTask allgather_bruck(Channel channel, CollectiveArgs args);
[[nodiscard]] double allgather_bruck_cost(const CostQuery& query);

}  // namespace railyard::collectives::detail

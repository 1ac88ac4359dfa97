// The algorithms of comm/collectives, one file each, as the table lists
// them (algorithm_table.cc). Each takes its arguments checked.
#pragma once

#include <cstddef>

#include "railyard/comm/collectives/algorithm_table.h"
#include "railyard/comm/collectives/detail/channel.h"
#include "railyard/comm/collectives/detail/patterns.h"
#include "railyard/comm/collectives/detail/task.h"

namespace railyard::comm::detail {

CollectiveTask barrier_dissemination(Channel channel, CollectiveArgs args);
CollectiveTask bcast_binomial(Channel channel, CollectiveArgs args);
CollectiveTask allreduce_recursive_doubling(Channel channel, CollectiveArgs args);
CollectiveTask allreduce_ring(Channel channel, CollectiveArgs args);
CollectiveTask allgather_ring(Channel channel, CollectiveArgs args);
CollectiveTask reduce_scatter_ring(Channel channel, CollectiveArgs args);
CollectiveTask reduce_binomial(Channel channel, CollectiveArgs args);
CollectiveTask alltoall_pairwise(Channel channel, CollectiveArgs args);

// The ring steps the ring algorithms share. `channel` must outlive the task
// (it is the caller's, which awaits the task).
//
// Reduce-scatter over `blocks` of the elements at `data`: afterwards block
// r of rank r's data holds the reduction of every rank's block r (other
// blocks hold partial results).
CollectiveTask ring_reduce_scatter(const Channel& channel, std::byte* data, Blocks blocks,
                                   DataType type, ReduceOp op);
// Allgather over `blocks` of `element`-byte elements at `data`, where rank
// r holds block r: afterwards every rank holds every block.
CollectiveTask ring_allgather(const Channel& channel, std::byte* data, Blocks blocks,
                              std::size_t element);

}  // namespace railyard::comm::detail

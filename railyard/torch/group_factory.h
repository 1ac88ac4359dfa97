// The Group behind each process group torch makes with the railyard
// backend: the job's world for the default group, a sub-group of that
// world for each new_group (the same job, not a second one).
#pragma once

#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <memory>
#include <vector>

#include "railyard/torch/group.h"

namespace railyard::pytorch {

// `rank` and `size` in the new group; `world_ranks`: its members' ranks in
// the default group, in order, none for the default group itself. Throws
// c10::Error for a sub-group without a railyard default group in this
// process, or a rank list that does not fit `rank` and `size`; what
// join_world and form_group throw.
[[nodiscard]] std::shared_ptr<Group> make_group(const c10::intrusive_ptr<c10d::Store>& store,
                                                int rank, int size,
                                                std::chrono::milliseconds timeout,
                                                const std::vector<int>& world_ranks);

}  // namespace railyard::pytorch

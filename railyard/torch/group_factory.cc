#include "railyard/torch/group_factory.h"

#include <c10/util/Exception.h>

#include <mutex>
#include <numeric>

#include "railyard/torch/store_rendezvous.h"

namespace railyard::pytorch {
namespace {

// The default group's Group, while torch holds it: sub-groups are made
// from its communicator.
std::mutex world_mutex;
std::weak_ptr<Group>& world_group() {
  static std::weak_ptr<Group> world;
  return world;
}

bool is_every_rank(const std::vector<int>& ranks) {
  std::vector<int> every(ranks.size());
  std::iota(every.begin(), every.end(), 0);
  return ranks == every;
}

}  // namespace

std::shared_ptr<Group> make_group(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                                  std::chrono::milliseconds timeout,
                                  const std::vector<int>& world_ranks) {
  const std::scoped_lock lock(world_mutex);
  std::shared_ptr<Group> world = world_group().lock();
  // torch 1.x names no ranks for the default group; 2.x may name them all.
  if (world_ranks.empty() || (!world && is_every_rank(world_ranks))) {
    auto made = std::make_shared<Group>(join_world(*store, rank, size, timeout), timeout, store);
    world_group() = made;
    return made;
  }
  TORCH_CHECK(world != nullptr,
              "railyard: a process group of some ranks needs the railyard default group of this "
              "process: call init_process_group(\"railyard\") first");
  TORCH_CHECK(world_ranks.size() == static_cast<std::size_t>(size) && rank >= 0 && rank < size &&
                  world_ranks[static_cast<std::size_t>(rank)] == world->rank(),
              "railyard: a group of ", size, " ranks in which this rank (", world->rank(),
              " of the default group) is rank ", rank, " was given ", world_ranks.size(),
              " default-group ranks that do not say so");
  return std::make_shared<Group>(form_group(world->communicator(), *store, world_ranks), timeout,
                                 store);
}

}  // namespace railyard::pytorch

// The ranks of one communicator, as world ranks, its context id, and the
// team its collectives run on.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "railyard/collectives/team.h"

namespace railyard::comm::detail {

class World;
struct Group;

// A communicator as the collectives see it (collectives/team.h): its ranks,
// its hosts, and sends and receives on the tags of its collectives.
class GroupTeam final : public collectives::Team {
 public:
  explicit GroupTeam(const Group& group) noexcept : group_(&group) {}

  [[nodiscard]] int rank() const noexcept override;
  [[nodiscard]] int size() const noexcept override;
  [[nodiscard]] int host_index(int rank) const override;
  [[nodiscard]] collectives::HostShape host_shape() const noexcept override;
  [[nodiscard]] std::uint64_t next_collective_tag() const noexcept override;
  [[nodiscard]] std::uint64_t stream_tag(std::uint64_t tag,
                                         std::uint32_t stream) const noexcept override;
  [[nodiscard]] collectives::Transfer post(bool receive, void* data, std::size_t bytes, int rank,
                                           std::uint64_t tag) const override;
  [[nodiscard]] const collectives::AlgorithmTable& algorithms() const noexcept override;
  [[nodiscard]] bool host_segment_allowed() const noexcept override;
  [[nodiscard]] rail::OutsideWork& outside_work() const noexcept override;
  [[nodiscard]] collectives::TeamState& state() const noexcept override { return state_; }

 private:
  const Group* group_;
  mutable collectives::TeamState state_;
};

struct Group {
  Group() = default;
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;
  Group(Group&&) = delete;
  Group& operator=(Group&&) = delete;
  ~Group() = default;

  // The job's endpoint stays open while a communicator or an operation
  // still holds the group.
  std::shared_ptr<World> world;
  std::uint32_t context = 0;
  int rank = 0;              // this process's rank in the group
  std::vector<int> members;  // world rank of each group rank
  std::vector<int> rank_of;  // group rank of each world rank, -1 if not a member
  // Filled by settle(), once the members are known.
  int local_rank = 0;  // among the members on this rank's host
  int local_size = 1;
  collectives::HostShape hosts;
  // Collectives started on it so far: each one's tag (see tag_layout.h).
  // Every rank starts a communicator's collectives in the same order.
  mutable std::atomic<std::uint32_t> collectives{0};
  GroupTeam team{*this};

  // The group rank of a world rank; -1 when it is not a member or unknown (-1).
  [[nodiscard]] int rank_of_world(int world_rank) const noexcept {
    return world_rank >= 0 && static_cast<std::size_t>(world_rank) < rank_of.size()
               ? rank_of[static_cast<std::size_t>(world_rank)]
               : -1;
  }
  // Computes where the members sit (local_rank, local_size, hosts).
  void settle();
};

}  // namespace railyard::comm::detail

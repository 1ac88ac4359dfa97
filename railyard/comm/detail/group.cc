#include "railyard/comm/detail/group.h"

#include <algorithm>

#include "railyard/comm/detail/operation.h"
#include "railyard/comm/detail/tag_layout.h"
#include "railyard/comm/detail/world.h"

namespace railyard::comm::detail {

void Group::settle() {
  // Local ranks: the members on this host, in rank order.
  const auto& host = world->host().ranks;
  local_size = 0;
  for (const int member : members) {
    if (std::binary_search(host.begin(), host.end(), member)) {
      if (member == world->rank()) {
        local_rank = local_size;
      }
      ++local_size;
    }
  }
  // Ranks per host, by the world's host index (hosts a communicator leaves
  // out count nothing).
  std::vector<int> per_host;
  for (const int member : members) {
    const auto index = static_cast<std::size_t>(world->host_index(member));
    if (index >= per_host.size()) {
      per_host.resize(index + 1, 0);
    }
    ++per_host[index];
  }
  std::erase(per_host, 0);
  hosts.hosts = static_cast<int>(per_host.size());
  // (No members at all: the placeholder split() makes for a rank that
  // joins no new communicator.)
  hosts.ranks_per_host =
      !per_host.empty() &&
              std::ranges::all_of(per_host, [&](int n) { return n == per_host.front(); })
          ? per_host.front()
          : 0;
}

int GroupTeam::rank() const noexcept { return group_->rank; }

int GroupTeam::size() const noexcept { return static_cast<int>(group_->members.size()); }

int GroupTeam::host_index(int rank) const {
  return group_->world->host_index(group_->members.at(static_cast<std::size_t>(rank)));
}

collectives::HostShape GroupTeam::host_shape() const noexcept { return group_->hosts; }

std::uint64_t GroupTeam::next_collective_tag() const noexcept {
  return wire_tag(group_->context, true,
                  collective_tag(group_->collectives.fetch_add(1, std::memory_order_relaxed)));
}

std::uint64_t GroupTeam::stream_tag(std::uint64_t tag, std::uint32_t stream) const noexcept {
  return detail::stream_tag(tag, stream);
}

collectives::Transfer GroupTeam::post(bool receive, void* data, std::size_t bytes, int rank,
                                      std::uint64_t tag) const {
  // A collective's transfers live in its task, which the collective's own
  // operation holds, with the group: they take no reference of their own
  // (a non-owning shared_ptr, by the aliasing constructor).
  auto operation = std::make_unique<Operation>(
      std::shared_ptr<const Group>(std::shared_ptr<const Group>(), group_), receive, rank, 0,
      receive ? bytes : 0);
  detail::post(*operation, data, bytes, tag, 0,
               receive ? "collective: receive from" : "collective: send to");
  return collectives::Transfer(std::move(operation));
}

const collectives::AlgorithmTable& GroupTeam::algorithms() const noexcept {
  return group_->world->options().algorithms;
}

bool GroupTeam::host_segment_allowed() const noexcept {
  const CommunicatorOptions& options = group_->world->options();
  return options.host_segment && options.shared_memory != SharedMemoryMode::kOff;
}

rail::OutsideWork& GroupTeam::outside_work() const noexcept {
  return group_->world->outside_work();
}

}  // namespace railyard::comm::detail

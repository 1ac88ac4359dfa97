// The two subsets of ranks a hierarchical algorithm works in: the ranks on
// this rank's host, and the ranks holding this rank's place on every host.
#pragma once

#include <optional>
#include <vector>

#include "railyard/collectives/channel.h"

namespace railyard::collectives::detail {

struct HostGroups {
  std::vector<int> local;   // the channel's ranks on this rank's host, ascending
  std::vector<int> across;  // the local_rank-th rank of each host, hosts in index order
  int local_rank = 0;       // this rank's place in `local`
};

// The groups of `channel`'s ranks when they sit on two or more hosts with
// the same number of ranks, two or more, on each; nullopt otherwise.
[[nodiscard]] std::optional<HostGroups> host_groups(const Channel& channel);

}  // namespace railyard::collectives::detail

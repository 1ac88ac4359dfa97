#include "railyard/collectives/detail/host_groups.h"

#include <algorithm>
#include <cstddef>
#include <map>

namespace railyard::collectives::detail {

std::optional<HostGroups> host_groups(const Channel& channel) {
  // Channel ranks by host index; ordered, so every rank lists the hosts in
  // the same order.
  std::map<int, std::vector<int>> hosts;
  for (int rank = 0; rank < channel.size(); ++rank) {
    hosts[channel.host_index(rank)].push_back(rank);
  }
  const std::size_t per_host = hosts.begin()->second.size();
  if (hosts.size() < 2 || per_host < 2 || !std::ranges::all_of(hosts, [&](const auto& host) {
        return host.second.size() == per_host;
      })) {
    return std::nullopt;
  }
  HostGroups groups;
  groups.local = hosts.at(channel.host_index(channel.rank()));
  groups.local_rank =
      static_cast<int>(std::ranges::find(groups.local, channel.rank()) - groups.local.begin());
  for (const auto& host : hosts) {
    groups.across.push_back(host.second[static_cast<std::size_t>(groups.local_rank)]);
  }
  return groups;
}

}  // namespace railyard::collectives::detail
